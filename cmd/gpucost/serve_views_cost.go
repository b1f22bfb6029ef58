package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
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
	return costReport(d, s, filter), nil
}

// costReport is the API's cost report of a snapshot grouped by d.
func costReport(d fleet.Dimension, s *fleet.Snapshot, filter map[string]string) httpapi.CostReport {
	rep := httpapi.CostReport{By: d.String(), From: s.Period.Start, To: s.Period.End, Days: s.Period.Days(), Groups: []httpapi.CostGroup{}}
	totals := map[string]int64{}
	var currencies []string
	for _, g := range s.Group(d, fleet.Match(filter)) {
		rep.Groups = append(rep.Groups, httpapi.CostGroup{Group: g.Group, Currency: g.Currency,
			EffectiveCost: g.TotalCost().Sub(g.IdleCost), BilledCost: g.BilledCost.Sub(g.IdleBilled), IdleCost: g.IdleCost, GPUCost: g.GPUCost(),
			GPUHours: g.GPUHours(), UsedGPUHours: g.UsedGPUHours(), IdleGPUHours: g.IdleGPUHours(), IdlePercent: g.IdlePercent(),
			PriceSource: string(g.Source), Daily: g.Daily})
		if _, seen := totals[g.Currency]; !seen {
			currencies = append(currencies, g.Currency)
		}
		totals[g.Currency] += g.TotalCost().Nanos
	}
	for _, cur := range currencies {
		rep.Total = append(rep.Total, gpucost.Money{Nanos: totals[cur], Currency: cur})
	}
	_, rep.Bill, _ = s.Reconcile()
	rep.Reconciled = len(filter) == 0 && len(s.CatalogCost()) == 0 && slices.Equal(rep.Total, rep.Bill)
	if len(filter) > 0 {
		var fs []string
		for _, k := range sortedKeys(filter) {
			fs = append(fs, k+"="+filter[k])
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("Filtered to %s: the groups hold the matching charges only; all of the period's charges reconcile with the bill to the cent.",
			strings.Join(fs, ", ")))
	}
	rep.Notes = append(rep.Notes, fleetCostNotes(s, nil)...)
	return rep
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
