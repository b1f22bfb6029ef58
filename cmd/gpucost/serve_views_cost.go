package main

import (
	"cmp"
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/recommend"
)

// Costs is gpucost report cost --by q.By (team by default) over q, from the midnight (UTC) of
// its first day, with the filters applied to the charges.
func (v *storeViews) Costs(ctx context.Context, q httpapi.Query) (httpapi.CostReport, error) {
	return cachedView(ctx, v, queryKey("costs", q), func(ctx context.Context) (httpapi.CostReport, error) {
		by := cmp.Or(q.By, "team")
		d, err := fleet.ParseDimension(by)
		if err != nil {
			return httpapi.CostReport{}, gpucost.Errorf(gpucost.EInvalid, "parameter by=%q: %w", by, err)
		}
		p, err := q.Period(v.e.now(), viewCostPeriod)
		if err != nil {
			return httpapi.CostReport{}, err
		}
		return v.env().costView(ctx, p, d, q.Filter)
	})
}

// costView is the spend of p by d, as gpucost report cost shows it: from the midnight (UTC) of
// p's first day, bills being stored by day.
func (e *env) costView(ctx context.Context, p fleet.Period, d fleet.Dimension, filter map[string]string) (httpapi.CostReport, error) {
	f := costFlags{period: period{at: p}, policy: gpucost.PolicyUsed}
	s, err := f.snapshot(ctx, e)
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		start := p.Start.Truncate(24 * time.Hour)
		return httpapi.CostReport{By: d.String(), From: start, To: p.End, Days: []time.Time{}, Groups: []httpapi.CostGroup{},
			Total: []gpucost.Money{}, Bill: []gpucost.Money{}, Notes: []string{err.Error()}}, nil
	}
	if err != nil {
		return httpapi.CostReport{}, err
	}
	return present.CostReport(d, s, filter), nil
}

// Recommendations is gpucost recommend over q (the last 30 days by default), largest saving
// first, with the total of gpucost report savings, which applies them in turn so no dollar is
// counted twice.
func (v *storeViews) Recommendations(ctx context.Context, q httpapi.Query) (httpapi.RecommendationReport, error) {
	return cachedView(ctx, v, queryKey("recommendations", q), func(ctx context.Context) (httpapi.RecommendationReport, error) {
		out := httpapi.RecommendationReport{Recommendations: []gpucost.Recommendation{}}
		p, err := q.Period(v.e.now(), viewCostPeriod)
		if err != nil {
			return out, err
		}
		rf := recommendFlags{costFlags: costFlags{period: period{at: p}, policy: gpucost.PolicyUsed, weight: 0.5}, minSaving: "100", moveDataGB: 1000}
		err = v.env().withFleet(ctx, &rf, func(fv recommend.FleetView, prices recommend.Prices, o recommend.Options) error {
			var err error
			if fv.Resources, err = fleet.FilterResources(q.Filter, fv.Resources); err != nil {
				return err
			}
			if out.Recommendations, err = recommend.Recommend(fv, prices, o); err != nil {
				return err
			}
			plan, err := recommend.Plan(fv, prices, o)
			if err != nil {
				return err
			}
			sv := recommend.Savings(plan)
			out.MonthlySaving, out.OneTimeCost = sv.Saving, sv.OneTimeCost
			return nil
		})
		if gpucost.ErrorCode(err) == gpucost.ENotFound {
			out.Notes = append(out.Notes, err.Error())
			return out, nil
		}
		if out.Recommendations == nil {
			out.Recommendations = []gpucost.Recommendation{}
		}
		out.Notes = append(out.Notes, "Each recommendation's saving stands alone; monthly_saving applies them in turn (gpucost report savings), so no dollar is counted twice.")
		return out, err
	})
}
