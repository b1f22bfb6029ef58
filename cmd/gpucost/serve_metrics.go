package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
)

// fleetMetrics computes the gpucost_* series of /metrics with the reports' code: GPU use by
// namespace over the hour before now (gpucost report utilization --by namespace --since 1h, from
// the hourly rollups) and month-to-date spend by team (gpucost report cost --by team). The
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

// namespaceUsage is the utilisation report by namespace over the hour before now, with the
// fleet snapshot's idle GPU-hours (report utilization's).
func (e *env) namespaceUsage(ctx context.Context, now time.Time) ([]httpapi.NamespaceUsage, error) {
	to := now.UTC().Truncate(time.Minute)
	rc, err := e.openReport(ctx, fleet.Period{Start: to.Add(-time.Hour), End: to}, "aws")
	if err != nil {
		return nil, err
	}
	defer rc.close()
	g, err := analyze.ParseGroupBy("namespace")
	if err != nil {
		return nil, err
	}
	rep, _, err := rc.utilization(ctx, g, nil)
	if err != nil {
		return nil, err
	}
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
	team, _ := fleet.ParseDimension("team")
	rep, err := e.costView(ctx, fleet.Period{Start: monthStart, End: to}, team, nil)
	if err != nil {
		return nil, err
	}
	var out []httpapi.TeamCost
	for _, g := range rep.Groups {
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
