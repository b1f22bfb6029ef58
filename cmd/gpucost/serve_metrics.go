package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/httpapi"
)

// fleetMetrics computes the gpucost_* series of /metrics with the reports' code: GPU use by
// namespace over the hour before now (gpucost report utilization --by namespace --since 1h, from
// the minute rollups) and month-to-date spend by team (gpucost report cost --by team). The
// server calls it at most once a minute, on a scrape.
func (e *env) fleetMetrics(ctx context.Context, now time.Time) (httpapi.FleetMetrics, error) {
	var fm httpapi.FleetMetrics
	ec := *e // the reports open their own store connection through a copy of the env
	ns, err := ec.namespaceUsage(ctx, now)
	if err != nil {
		return fm, fmt.Errorf("utilisation by namespace over the last hour: %w", err)
	}
	teams, err := ec.teamCosts(ctx, now)
	if err != nil {
		return fm, fmt.Errorf("month-to-date cost by team: %w", err)
	}
	return httpapi.FleetMetrics{Namespaces: ns, Teams: teams}, nil
}

// namespaceUsage is the utilisation report by namespace over the hour before now.
func (e *env) namespaceUsage(ctx context.Context, now time.Time) ([]httpapi.NamespaceUsage, error) {
	f := reportFlags{period: period{since: "1h", until: now.UTC().Format(time.RFC3339)}, provider: "aws"}
	rc, err := f.open(ctx, e)
	if err != nil {
		return nil, err
	}
	defer rc.close()
	g, err := analyze.ParseGroupBy("namespace")
	if err != nil {
		return nil, err
	}
	opts := rc.opts
	opts.By = g
	u := analyze.NewUtilization(opts)
	if err := rc.scan(ctx, time.Minute, u.Add); err != nil {
		return nil, err
	}
	rep := u.Result()
	out := make([]httpapi.NamespaceUsage, 0, len(rep.Groups))
	for _, gs := range rep.Groups {
		out = append(out, httpapi.NamespaceUsage{Namespace: gs.Key, GPUs: gs.GPUs, GPUHours: gs.GPUHours,
			IdleGPUHours: gs.IdleGPUHours, UtilMean: float64(gs.UtilMean)})
	}
	return out, nil
}

// teamCosts is the cost report by team from the first of now's month (UTC) to now, in US
// dollars; groups in other currencies are left out.
func (e *env) teamCosts(ctx context.Context, now time.Time) ([]httpapi.TeamCost, error) {
	to := now.UTC().Truncate(time.Minute)
	monthStart := time.Date(to.Year(), to.Month(), 1, 0, 0, 0, 0, time.UTC)
	ago := to.Sub(monthStart)
	if ago < time.Minute {
		return nil, nil // the month has just begun
	}
	f := costFlags{period: period{since: fmt.Sprintf("%dm", int64(ago/time.Minute)), until: to.Format(time.RFC3339)},
		policy: gpucost.PolicyUsed, weight: 0.5}
	key, err := costKey("team")
	if err != nil {
		return nil, err
	}
	s, err := f.open(ctx, e)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	groups := newCostGroups("team", s.from, s.to)
	err = s.each(ctx, func(a *gpucost.Allocation, gpu catalog.LineGPU, _ bool) {
		groups.add(key(a, gpu), a)
	})
	if err != nil {
		return nil, err
	}
	var out []httpapi.TeamCost
	for _, g := range groups.sorted() {
		if g.Currency != "USD" {
			continue
		}
		out = append(out, httpapi.TeamCost{Team: g.Group, CostUSD: dollars(g.EffectiveCost), IdleUSD: dollars(g.IdleCost),
			GPUHours: g.UsedGPUHours})
	}
	return out, nil
}

// dollars converts exact money to the float a Prometheus sample holds, once, after summing.
func dollars(m gpucost.Money) float64 { return float64(m.Nanos) / 1e9 }
