package server

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/recommend"
)

// HourlyPrices is what each billed GPU machine of the 30 days before now costs an hour, by the
// id recommend names it with (its host, else the bill's resource id): its on-demand price from
// the catalog, else the bill's monthly cost over the hours of the month it ran. Idle and
// off-hours actions record it, so that the cost of the hours they avoid is counted; gpucost
// enforce and serve both price with it.
func HourlyPrices(ctx context.Context, st gpucost.Store, now time.Time) (map[string]gpucost.Money, error) {
	p, err := query.BillPeriod(now.Add(-30*24*time.Hour), now)
	if err != nil {
		return nil, err
	}
	v, _, err := usedView(ctx, st, p)
	if err != nil {
		return nil, err
	}
	return heldHourly(v), nil
}

// heldHourly is each machine's on-demand price, else its monthly cost over the hours a month
// it is held.
func heldHourly(v recommend.FleetView) map[string]gpucost.Money {
	out := map[string]gpucost.Money{}
	for _, r := range v.Resources {
		if r.Hourly.Nanos > 0 {
			out[r.ID] = r.Hourly
			continue
		}
		var held float64
		for d := range 7 {
			for h := range 24 {
				held += r.Running[d][h]
			}
		}
		if perMonth := held * recommend.HoursPerMonth / 168; perMonth > 0 {
			out[r.ID] = r.Monthly.MulFloat(1 / perMonth)
		}
	}
	return out
}

// UsageSnapshot adds to snap what idle and off-hours policies read from st
// (enforce.UsageSnapshot) and prices the resources from the bill (HourlyPrices); a store
// without a bill leaves them unpriced, with a note. gpucost enforce and serve's check loop
// both call it, so that they decide and record alike.
func UsageSnapshot(ctx context.Context, st gpucost.Store, policies []enforce.Policy, snap *enforce.Snapshot, live bool) ([]string, error) {
	notes, err := enforce.UsageSnapshot(ctx, st, enforce.Log{Store: st}, policies, snap, live)
	if err != nil {
		return notes, err
	}
	hourly, err := HourlyPrices(ctx, st, snap.Now)
	if err != nil {
		return append(notes, "The resources are unpriced, so the cost of the hours a stop avoids is not counted: "+err.Error()), nil
	}
	enforce.PriceResources(snap.Resources, hourly)
	return notes, nil
}
