package server

import (
	"cmp"
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/recommend"
)

// Costs is gpucost report cost --by q.By (team by default) over q, from the midnight (UTC) of
// its first day, with the filters applied to the charges.
func (v *Views) Costs(ctx context.Context, q httpapi.Query) (httpapi.CostReport, error) {
	return cachedView(ctx, v, queryKey("costs", q), func(ctx context.Context) (httpapi.CostReport, error) {
		by := cmp.Or(q.By, "team")
		d, err := fleet.ParseDimension(by)
		if err != nil {
			return httpapi.CostReport{}, gpucost.Errorf(gpucost.EInvalid, "parameter by=%q: %w", by, err)
		}
		p, err := q.Period(v.now(), viewCostPeriod)
		if err != nil {
			return httpapi.CostReport{}, err
		}
		return costView(ctx, v.store, p, d, q.Filter)
	})
}

// costView is the spend of p by d over st, as gpucost report cost shows it: from the midnight
// (UTC) of p's first day, bills being stored by day. A period without bill lines has an empty
// report whose note says so.
func costView(ctx context.Context, st gpucost.Store, p fleet.Period, d fleet.Dimension, filter map[string]string) (httpapi.CostReport, error) {
	bp, err := query.BillPeriod(p.Start, p.End)
	if err != nil {
		return httpapi.CostReport{}, err
	}
	cat, err := catalog.Load(ctx, st)
	if err != nil {
		return httpapi.CostReport{}, err
	}
	s, err := query.BillSnapshot(ctx, st, cat, bp, provider, nil)
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		return httpapi.CostReport{By: d.String(), From: bp.Start, To: bp.End, Days: []time.Time{}, Groups: []httpapi.CostGroup{},
			Total: []gpucost.Money{}, Bill: []gpucost.Money{}, Notes: []string{err.Error()}}, nil
	}
	if err != nil {
		return httpapi.CostReport{}, err
	}
	return present.CostReport(d, s, filter), nil
}

// Recommendations is gpucost recommend's plan over q (the last 30 days by default), whose total
// is gpucost report savings'.
func (v *Views) Recommendations(ctx context.Context, q httpapi.Query) (httpapi.RecommendationReport, error) {
	return cachedView(ctx, v, queryKey("recommendations", q), func(ctx context.Context) (httpapi.RecommendationReport, error) {
		out := httpapi.RecommendationReport{Plan: recommend.Plan{Groups: []recommend.PlanGroup{}}}
		p, err := q.Period(v.now(), viewCostPeriod)
		if err != nil {
			return out, err
		}
		err = v.recommend(ctx, p, q.Filter, &out)
		if gpucost.ErrorCode(err) == gpucost.ENotFound {
			out.Notes = append(out.Notes, err.Error())
			return out, nil
		}
		out.Notes = append(out.Notes, "Each step is priced on its group as the steps before it left it; alternatives are not added, so the steps' savings add up to monthly_saving (gpucost report savings).")
		return out, err
	})
}

// recommend fills out with the plan over p's bill (split under the default policy) for the
// resources filter keeps, as gpucost recommend makes it with its default options.
func (v *Views) recommend(ctx context.Context, p fleet.Period, filter map[string]string, out *httpapi.RecommendationReport) error {
	opts, err := recommend.NewOptions("100", false, 1000)
	if err != nil {
		return err
	}
	bp, err := query.BillPeriod(p.Start, p.End)
	if err != nil {
		return err
	}
	cat, err := catalog.Load(ctx, v.store)
	if err != nil {
		return err
	}
	b, err := query.OpenBill(ctx, v.store, cat, fleet.SplitOptions{Period: bp, Policy: gpucost.PolicyUsed, Weight: 0.5})
	if err != nil {
		return err
	}
	fv, prices, err := b.Recommendable(ctx)
	if err != nil {
		return err
	}
	if fv.Resources, err = fleet.FilterResources(filter, fv.Resources); err != nil {
		return err
	}
	if out.Plan, err = recommend.NewPlan(fv, prices, opts); err != nil {
		return err
	}
	out.MonthlySaving, out.OneTimeCost = out.Plan.Saving, out.Plan.OneTimeCost
	return nil
}
