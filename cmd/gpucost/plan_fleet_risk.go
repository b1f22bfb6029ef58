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
//
// Offers name AWS zones by ID (use1-az4) and runs and bills by name (us-east-1a): the runner's
// recorded pairs and the zones file match them, and the names the mapping knows become
// o.ZoneNames for the EC2 Fleet export.
func fleetPoolRisk(ctx context.Context, e *env, offers []gpucost.Offer, o *plan.FleetOptions, rate, events, zonesFile string) ([]plan.PoolRisk, error) {
	switch rate {
	case "none":
		return nil, nil
	case rateAuto:
	default:
		return nil, gpucost.Errorf(gpucost.EInvalid, "--interruption-rate %q: plan fleet takes auto (each pool's rate from data) or none", rate)
	}
	m, err := e.measureSpot(ctx, events, "", zonesFile)
	if err != nil {
		return nil, err
	}
	for id, name := range m.zones.Names() {
		if o.ZoneNames == nil {
			o.ZoneNames = map[string]string{}
		}
		o.ZoneNames[id] = name
	}
	rates := m.rates
	adv, err := spotAdvisor(ctx, e)
	if err != nil || (adv == nil && len(rates) == 0) {
		return nil, err
	}
	var out []plan.PoolRisk
	for _, of := range offers {
		if !of.HasSpot || (o.Provider != "" && !strings.EqualFold(of.Provider, o.Provider)) {
			continue
		}
		r, ok := spotrisk.Resolve(spotrisk.Pool{InstanceType: of.InstanceType, Region: of.Region, Zone: of.Zone}, rates, adv, m.zones)
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
	unmatched := 0
	for _, p := range r.Options.PoolRisk {
		if strings.Contains(p.Source, "zone unmatched") {
			unmatched++
		}
	}
	if unmatched > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d spot pools' zones could not be matched with the zones runs and bills name (zone IDs against names): they take their region's measured rate. --zones FILE (aws ec2 describe-availability-zones --output json) matches them.", unmatched))
	}
	return t
}
