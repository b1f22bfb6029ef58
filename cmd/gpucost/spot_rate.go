package main

import (
	"cmp"
	"context"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/spf13/cobra"
)

// rateAuto is the --interruption-rate value that takes the pool's rate from data.
const rateAuto = "auto"

// spotPoolFlags name the pool whose rate --interruption-rate auto uses, and where its measured
// rate is read from (docs/architecture.md "Spot risk").
type spotPoolFlags struct {
	store string
	pool  spotrisk.Pool
}

func (f *spotPoolFlags) register(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&f.store, "events", "", "for --interruption-rate auto: the store gpucost run wrote job events to (s3://BUCKET/PREFIX, file://PATH or a directory)")
	fs.StringVar(&f.pool.InstanceType, "instance-type", "", "for --interruption-rate auto: the spot pool's instance type, such as g5.12xlarge")
	fs.StringVar(&f.pool.Region, "region", "", "for --interruption-rate auto: the spot pool's region")
	fs.StringVar(&f.pool.Zone, "zone", "", "for --interruption-rate auto: the spot pool's zone (default: the region's zones together)")
}

// auto reports whether the rate is to come from data: --interruption-rate auto, or no rate typed
// (typed is false) while the pool is named.
func (f *spotPoolFlags) auto(value string, typed bool) bool {
	return value == rateAuto || (!typed && value == "" && f.pool.InstanceType != "")
}

// rate returns the pool's interruptions per instance-hour and a sentence saying where it came
// from: the rate measured from the events in --events and the bill in the --db store, else the Spot Instance Advisor's bucket
// kept in the --db store (spotrisk.Resolve).
func (f *spotPoolFlags) rate(ctx context.Context, e *env) (float64, string, error) {
	if f.pool.InstanceType == "" || f.pool.Region == "" {
		return 0, "", gpucost.Errorf(gpucost.EInvalid, "--interruption-rate auto needs the pool: --instance-type and --region (and --events with the store gpucost run wrote to)")
	}
	m, err := e.measureSpot(ctx, f.store, "", "")
	if err != nil {
		return 0, "", err
	}
	adv, err := spotAdvisor(ctx, e)
	if err != nil {
		return 0, "", err
	}
	r, ok := spotrisk.Resolve(f.pool, m.rates, adv, m.zones)
	if !ok {
		return 0, "", gpucost.Errorf(gpucost.EInvalid, "--interruption-rate auto: nothing is known of %s; give --events with the store gpucost run wrote to, import the Spot Instance Advisor's data (gpucost catalog import --format aws-spot-advisor spot-advisor-data.json), or type a rate such as 10%%/h", f.pool)
	}
	return r.PerHour, r.Why, nil
}

// parseRate reads an --interruption-rate value: auto (from data, through f) or a typed rate.
func (f *spotPoolFlags) parseRate(ctx context.Context, e *env, value string, typed bool) (rate float64, source string, err error) {
	if f.auto(value, typed) {
		return f.rate(ctx, e)
	}
	if value == "" {
		return 0, "", nil
	}
	rate, err = flagValue("interruption-rate", value, plan.ParseRate)
	return rate, "", err
}

// recommendPoolRisk gives the spot lever the rate of every pool of the fleet's instance types
// that data covers: measured from the job events in events and the bill in the --db store, else the Spot Instance Advisor's
// bucket kept in the --db store. It returns nil where there is no data, and the lever assumes
// its default rate.
func (e *env) recommendPoolRisk(ctx context.Context, events string, v recommend.FleetView) ([]plan.PoolRisk, error) {
	m, err := e.measureSpot(ctx, events, "", "")
	if err != nil {
		return nil, err
	}
	rates := m.rates
	adv, err := spotAdvisor(ctx, e)
	if err != nil || (adv == nil && len(rates) == 0) {
		return nil, err
	}
	types := map[string]bool{}
	for _, r := range v.Resources {
		types[r.InstanceType] = true
	}
	pools := map[spotrisk.Pool]bool{}
	for _, r := range rates {
		if types[r.Pool.InstanceType] {
			pools[spotrisk.Pool{InstanceType: r.Pool.InstanceType, Region: r.Pool.Region}] = true
		}
	}
	if adv != nil {
		for region, entries := range adv.Regions {
			for typ := range entries {
				if types[typ] {
					pools[spotrisk.Pool{InstanceType: typ, Region: region}] = true
				}
			}
		}
	}
	var out []plan.PoolRisk
	for p := range pools {
		if r, ok := spotrisk.Resolve(p, rates, adv, m.zones); ok {
			out = append(out, plan.PoolRisk{Region: p.Region, InstanceType: p.InstanceType, PerHour: r.PerHour, Source: r.Why})
		}
	}
	slices.SortFunc(out, func(a, b plan.PoolRisk) int {
		return cmp.Or(cmp.Compare(a.InstanceType, b.InstanceType), cmp.Compare(a.Region, b.Region))
	})
	return out, nil
}
