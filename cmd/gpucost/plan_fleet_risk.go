package main

import (
	"context"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
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
