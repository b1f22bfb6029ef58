package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/recommend"
)

// Costs is gpucost report cost --by q.By (team by default) over q, with the filters applied to
// the allocations.
func (v *storeViews) Costs(ctx context.Context, q httpapi.Query) (httpapi.CostReport, error) {
	return cachedView(ctx, v, queryKey("costs", q), func(ctx context.Context) (httpapi.CostReport, error) {
		by := cmp.Or(q.By, "team")
		key, err := costKey(by)
		if err != nil {
			return httpapi.CostReport{}, gpucost.Errorf(gpucost.EInvalid, "parameter by=%q: use %s or tag:KEY", by, strings.Join(sortedKeys(costDimensions), ", "))
		}
		p, err := v.period(q, viewCostPeriod)
		if err != nil {
			return httpapi.CostReport{}, err
		}
		f := costFlags{period: p, policy: gpucost.PolicyUsed, weight: 0.5}
		s, err := f.open(ctx, v.env())
		if err != nil {
			return httpapi.CostReport{}, err
		}
		defer s.Close()
		groups := newCostGroups(by, s.from, s.to)
		err = s.each(ctx, func(a *gpucost.Allocation, gpu catalog.LineGPU, _ bool) {
			if allocationMatches(q.Filter, a, gpu) {
				groups.add(key(a, gpu), a)
			}
		})
		if gpucost.ErrorCode(err) == gpucost.ENotFound {
			return httpapi.CostReport{By: by, From: s.from, To: s.to, Days: []time.Time{}, Groups: []httpapi.CostGroup{},
				Total: []gpucost.Money{}, Bill: []gpucost.Money{}, Notes: []string{err.Error()}}, nil
		}
		if err != nil {
			return httpapi.CostReport{}, err
		}
		return costReport(by, groups, s, q.Filter), nil
	})
}

// allocationMatches reports whether an allocation matches every filter: an owner or bill
// dimension of gpucost report cost --by by its value, model by the GPU, any other key (or
// tag:KEY) by the line's tags.
func allocationMatches(f map[string]string, a *gpucost.Allocation, gpu catalog.LineGPU) bool {
	for k, want := range f {
		var got string
		switch dim, ok := costDimensions[k]; {
		case ok:
			got = dim(a, gpu)
		case k == "model":
			got = gpu.Model
			if !strings.EqualFold(got, want) && !strings.EqualFold(got, normalizeModel(want)) {
				return false
			}
			continue
		case k == "host":
			got = a.ResourceID
			if a.Line != nil && a.Line.ResourceName != "" && strings.EqualFold(a.Line.ResourceName, want) {
				continue
			}
		default:
			got = a.Line.Tags[strings.TrimPrefix(k, "tag:")]
		}
		if got != want {
			return false
		}
	}
	return true
}

// costReport turns summed groups into the API's cost report.
func costReport(by string, c *costGroups, s *costScan, filter map[string]string) httpapi.CostReport {
	rep := httpapi.CostReport{By: by, From: s.from, To: s.to, Days: make([]time.Time, c.days), Groups: []httpapi.CostGroup{}}
	for i := range rep.Days {
		rep.Days[i] = s.from.AddDate(0, 0, i)
	}
	totals := map[string]int64{}
	var currencies []string
	for _, g := range c.sorted() {
		cg := httpapi.CostGroup{Group: g.Group, Currency: g.Currency, EffectiveCost: g.EffectiveCost, BilledCost: g.BilledCost,
			IdleCost: g.IdleCost, UsedGPUHours: g.UsedGPUHours, IdleGPUHours: g.IdleGPUHours, Daily: make([]gpucost.Money, len(g.Daily))}
		for i, n := range g.Daily {
			cg.Daily[i] = gpucost.Money{Nanos: n, Currency: g.Currency}
		}
		rep.Groups = append(rep.Groups, cg)
		if _, seen := totals[g.Currency]; !seen {
			currencies = append(currencies, g.Currency)
		}
		totals[g.Currency] += g.total()
	}
	for _, cur := range currencies {
		rep.Total = append(rep.Total, gpucost.Money{Nanos: totals[cur], Currency: cur})
	}
	for _, t := range s.stats.Totals.Sorted() {
		rep.Bill = append(rep.Bill, t.EffectiveCost)
	}
	rep.Reconciled = slices.Equal(rep.Total, rep.Bill)
	if len(filter) > 0 {
		var fs []string
		for _, k := range sortedKeys(filter) {
			fs = append(fs, k+"="+filter[k])
		}
		rep.Notes = append(rep.Notes, fmt.Sprintf("Filtered to %s: the groups hold the matching allocations only; all of the period's allocations reconcile with the bill to the cent.",
			strings.Join(fs, ", ")))
	}
	rep.Notes = append(rep.Notes, costNotes(s)...)
	return rep
}

// Recommendations is gpucost recommend over q (the last 30 days by default), largest saving
// first, with the total of gpucost report savings, which applies them in turn so no dollar is
// counted twice.
func (v *storeViews) Recommendations(ctx context.Context, q httpapi.Query) (httpapi.RecommendationReport, error) {
	return cachedView(ctx, v, queryKey("recommendations", q), func(ctx context.Context) (httpapi.RecommendationReport, error) {
		out := httpapi.RecommendationReport{Recommendations: []gpucost.Recommendation{}}
		p, err := v.period(q, viewCostPeriod)
		if err != nil {
			return out, err
		}
		rf := recommendFlags{costFlags: costFlags{period: p, policy: gpucost.PolicyUsed, weight: 0.5}, minSaving: "100", moveDataGB: 1000}
		err = v.env().withFleet(ctx, &rf, func(fv recommend.FleetView, prices recommend.Prices, o recommend.Options) error {
			var err error
			if fv.Resources, err = filterResources(q.Filter, fv.Resources); err != nil {
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

// filterResources keeps the billed machines that match every filter: team (the owner its tags
// name), namespace, provider, region, model and host.
func filterResources(f map[string]string, rs []recommend.Resource) ([]recommend.Resource, error) {
	if len(f) == 0 {
		return rs, nil
	}
	var out []recommend.Resource
	for _, r := range rs {
		ok := true
		for k, want := range f {
			switch k {
			case "team":
				ok = ok && r.Owner == want
			case "namespace":
				ok = ok && r.Namespace == want
			case "provider":
				ok = ok && strings.EqualFold(r.Provider, want)
			case "region":
				ok = ok && r.Region == want
			case "model":
				ok = ok && (strings.EqualFold(r.GPUModel, want) || strings.EqualFold(r.GPUModel, normalizeModel(want)))
			case "host":
				ok = ok && r.ID == want
			default:
				return nil, gpucost.Errorf(gpucost.EInvalid, "filter %s: recommendations are filtered by team, namespace, provider, region, model or host", k)
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out, nil
}
