package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/spotrisk"
)

// fleetPoolRisk gives each spot offer plan fleet may use its interruption rate from data
// (spotrisk.Resolve), for --interruption-rate auto; none for "none", or where there is no data.
func fleetPoolRisk(ctx context.Context, e *env, offers []gpucost.Offer, o plan.FleetOptions, rate, events string) ([]plan.PoolRisk, error) {
	switch rate {
	case "none":
		return nil, nil
	case rateAuto:
	default:
		return nil, gpucost.Errorf(gpucost.EInvalid, "--interruption-rate %q: plan fleet takes auto (each pool's rate from data) or none", rate)
	}
	var rates []spotrisk.Rate
	if events != "" {
		var err error
		if rates, _, err = spotRates(ctx, e, events); err != nil && gpucost.ErrorCode(err) != gpucost.ENotFound {
			return nil, err
		}
	}
	adv, err := spotAdvisor(ctx, e)
	if err != nil || (adv == nil && len(rates) == 0) {
		return nil, err
	}
	var out []plan.PoolRisk
	for _, of := range offers {
		if !of.HasSpot || (o.Provider != "" && !strings.EqualFold(of.Provider, o.Provider)) {
			continue
		}
		r, ok := spotrisk.Resolve(spotrisk.Pool{InstanceType: of.InstanceType, Region: of.Region, Zone: of.Zone}, rates, adv)
		if ok {
			out = append(out, plan.PoolRisk{Region: of.Region, Zone: of.Zone, InstanceType: of.InstanceType, PerHour: r.PerHour, Source: r.Why})
		}
	}
	return out, nil
}

// withFleetRisk adds to the fleet's table the rate of each spot pool that has one and the
// interruptions the plan expects.
func withFleetRisk(t present.Table, r plan.FleetResult) present.Table {
	n := 0
	for _, p := range r.Pools {
		if p.RiskSource == "" {
			continue
		}
		n++
		risk := ""
		if p.HighRisk {
			risk = ", above --max-risk: used last"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s (%s%s).", p.Zone, p.InstanceType, spotrisk.FormatRate(p.InterruptionsPerHour), p.RiskSource, risk))
	}
	if n > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Expected interruptions: %.3g an hour over the spot instances.", r.ExpectedInterruptionsPerHour))
	}
	return t
}
