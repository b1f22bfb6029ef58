package server

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/recommend"
)

// ReplaySavings replays the idle and off-hours policies over the 30 days before now of st's
// telemetry and bill (enforce.Replay) and sets the result beside recommend's idle-schedule
// lever on the same machines; nil when the bill names no machine. It returns an ENotFound error
// when st holds no bill to price the machines. gpucost enforce --replay prints it.
func ReplaySavings(ctx context.Context, st gpucost.Store, policies []enforce.Policy, resources []enforce.Resource, now time.Time) (*present.Table, error) {
	w, err := fleet.Window{DefaultSince: "30d"}.Resolve(now)
	if err != nil {
		return nil, err
	}
	p, err := query.BillWindow(w, 0)
	if err != nil {
		return nil, err
	}
	v, prices, err := usedView(ctx, st, p)
	if err != nil || len(v.Resources) == 0 {
		return nil, err
	}
	below, err := query.IdleBelow(ctx, st)
	if err != nil {
		return nil, err
	}
	var replays []enforce.Replayed
	for _, pol := range policies {
		if !pol.PerResource() {
			continue
		}
		b := below
		if pol.Idle != nil {
			b = pol.Idle.Below
		}
		traces, err := enforce.ReadTraces(ctx, st, b, v.From, v.To)
		if err != nil {
			return nil, err
		}
		replays = append(replays, enforce.Replay(pol, resources, traces, monthlyByResource(v, resources))...)
	}
	lever, note, err := idleScheduleLever(v, prices)
	if err != nil {
		return nil, err
	}
	t := present.EnforceSavings(replays, lever, v.From, v.To, hostsOf(resources))
	if note != "" {
		t.Notes = append(t.Notes, note)
	}
	return &t, nil
}

// usedView is the recommender's view of p's bill, split by used time.
func usedView(ctx context.Context, st gpucost.Store, p fleet.Period) (recommend.FleetView, recommend.Prices, error) {
	cat, err := catalog.Load(ctx, st)
	if err != nil {
		return recommend.FleetView{}, nil, err
	}
	b, err := query.OpenBill(ctx, st, cat, fleet.SplitOptions{Period: p, Policy: gpucost.PolicyUsed, Weight: 0.5})
	if err != nil {
		return recommend.FleetView{}, nil, err
	}
	return b.Recommendable(ctx)
}

// idleScheduleLever is recommend's idle-schedule lever over v, every saving counted; when the
// recommender fails, none and a note that says why.
func idleScheduleLever(v recommend.FleetView, prices recommend.Prices) ([]gpucost.Recommendation, string, error) {
	opts, err := recommend.NewOptions("0", false, 1000)
	if err != nil {
		return nil, "", err
	}
	recs, err := recommend.Recommend(v, prices, opts)
	var note string
	if err != nil {
		note = "recommend's idle-schedule lever could not be computed: " + err.Error()
	}
	var lever []gpucost.Recommendation
	for _, r := range recs {
		if r.Kind == gpucost.RecIdleSchedule {
			lever = append(lever, r)
		}
	}
	return lever, note, nil
}

// monthlyByResource is each resource's monthly cost from the bill, as recommend reads it,
// by the resource's id: the recommender names a machine by its host when it has one.
func monthlyByResource(v recommend.FleetView, resources []enforce.Resource) map[string]gpucost.Money {
	byName := map[string]gpucost.Money{}
	for _, r := range v.Resources {
		byName[r.ID] = r.Monthly
	}
	out := map[string]gpucost.Money{}
	for _, r := range resources {
		for _, k := range append([]string{r.ID, r.Name}, r.Hosts...) {
			if m, ok := byName[k]; ok && k != "" {
				out[r.ID] = m
				break
			}
		}
	}
	return out
}

// hostsOf names each resource by its first telemetry host, as recommend names machines.
func hostsOf(resources []enforce.Resource) map[string]string {
	out := map[string]string{}
	for _, r := range resources {
		if len(r.Hosts) > 0 {
			out[r.ID] = r.Hosts[0]
		}
	}
	return out
}
