package server

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/query"
)

// FleetMetrics computes the gpucost_* series of /metrics over st with the reports' code: GPU use
// by namespace over the hour before now (gpucost report utilization --by namespace --since 1h,
// from the hourly rollups) and month-to-date spend by team (gpucost report cost --by team). The
// server calls it at most once a minute, on a scrape.
func FleetMetrics(ctx context.Context, st gpucost.Store, now time.Time) (httpapi.FleetMetrics, error) {
	var fm httpapi.FleetMetrics
	ns, err := namespaceUsage(ctx, st, now)
	if err != nil {
		return fm, fmt.Errorf("utilisation by namespace over the last hour: %w", err)
	}
	teams, err := teamCosts(ctx, st, now)
	if err != nil {
		return fm, fmt.Errorf("month-to-date cost by team: %w", err)
	}
	return httpapi.FleetMetrics{Namespaces: ns, Teams: teams}, nil
}

// namespaceUsage is the utilisation report by namespace over the hour before now, with the
// fleet snapshot's idle GPU-hours (report utilization's).
func namespaceUsage(ctx context.Context, st gpucost.Store, now time.Time) ([]httpapi.NamespaceUsage, error) {
	to := now.UTC().Truncate(time.Minute)
	cat, err := catalog.Load(ctx, st)
	if err != nil {
		return nil, err
	}
	r, err := query.Open(ctx, st, cat, fleet.Period{Start: to.Add(-time.Hour), End: to}, provider)
	if err != nil {
		return nil, err
	}
	g, err := analyze.ParseGroupBy("namespace")
	if err != nil {
		return nil, err
	}
	rep, _, err := r.Utilization(ctx, g, nil)
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
func teamCosts(ctx context.Context, st gpucost.Store, now time.Time) ([]httpapi.TeamCost, error) {
	to := now.UTC().Truncate(time.Minute)
	monthStart := time.Date(to.Year(), to.Month(), 1, 0, 0, 0, 0, time.UTC)
	ago := to.Sub(monthStart)
	if ago < time.Minute {
		return nil, nil // the month has just begun
	}
	team, _ := fleet.ParseDimension("team")
	rep, err := costView(ctx, st, fleet.Period{Start: monthStart, End: to}, team, nil)
	if err != nil {
		return nil, err
	}
	var out []httpapi.TeamCost
	for _, g := range rep.Groups {
		if g.Currency != "USD" {
			continue
		}
		out = append(out, httpapi.TeamCost{Team: g.Group, CostUSD: dollars(g.CostLessIdle), IdleUSD: dollars(g.IdleCost),
			GPUHours: g.UsedGPUHours})
	}
	return out, nil
}

// dollars converts exact money to the float a Prometheus sample holds, once, after summing.
func dollars(m gpucost.Money) float64 { return float64(m.Nanos) / 1e9 }
