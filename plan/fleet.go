package plan

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// DefaultDiversify is the number of spot pools (instance type × zone) a fleet spreads over when
// FleetOptions.Diversify is zero: enough that one pool's reclaim takes a sixth of the spot part.
const DefaultDiversify = 6

// FleetOptions asks for a fleet of GPUs: how many, of which models, and how much of it on spot.
type FleetOptions struct {
	// Models are the canonical GPU models accepted (gpucost.GPUModel.Name); the caller resolves
	// a user's --gpu through the catalog ("A100" → A100, A100-80GB). Empty accepts every model
	// with MinVRAMGB per GPU.
	Models       []string `json:"models,omitempty"`
	GPUs         int      `json:"gpus"`                  // GPUs wanted in all
	MinVRAMGB    float64  `json:"min_vram_gb,omitempty"` // memory per GPU at least
	Spot         bool     `json:"spot"`                  // run all but the on-demand base on spot
	Diversify    int      `json:"diversify"`             // spot pools wanted; 0 means DefaultDiversify
	OnDemandBase float64  `json:"on_demand_base"`        // share of GPUs kept on-demand, 0 to 1
	Provider     string   `json:"provider,omitempty"`    // "aws"; empty accepts every provider
	Regions      []string `json:"regions,omitempty"`     // regions allowed; empty allows all

	// Name names the fleet in exports (EC2 tags, NodePool names); "gpucost-fleet" when empty.
	Name string `json:"name,omitempty"`
	// LaunchTemplate is the EC2 launch template the fleet request uses; Name when empty.
	LaunchTemplate string `json:"launch_template,omitempty"`
	// FleetType is the EC2 Fleet type: "maintain" (the default), "request" or "instant".
	FleetType string `json:"fleet_type,omitempty"`
	// NodeClass is the Karpenter EC2NodeClass the NodePools use; "default" when empty.
	NodeClass string `json:"node_class,omitempty"`
	// PoolRisk is each spot pool's interruption rate where one is known (docs/architecture.md
	// "Spot risk"): pools above MaxRiskPerHour are used only after the others, whatever their
	// price, and the plan sums the interruptions it expects.
	PoolRisk       []PoolRisk `json:"pool_risk,omitempty"`
	MaxRiskPerHour float64    `json:"max_risk_per_hour,omitempty"`
	// MaxPoolShare caps the share of the spot GPUs any one spot pool holds (0 to 1; 0 is no cap),
	// so one reclaim takes at most that share; a pool whose one instance passes the cap is used
	// only when no other pool can take the GPUs left.
	MaxPoolShare float64 `json:"max_pool_share,omitempty"`
	// ZoneNames maps AWS zone IDs (use1-az1) to this account's zone names (us-east-1a), which
	// EC2 Fleet overrides need; `aws ec2 describe-availability-zones` lists them.
	ZoneNames map[string]string `json:"zone_names,omitempty"`
}

// PoolRisk is one spot pool's interruption rate and where it came from (measured, or the
// Spot Instance Advisor's bucket). An empty Zone applies to every zone of the region.
type PoolRisk struct {
	Region       string  `json:"region"`
	Zone         string  `json:"zone,omitempty"`
	InstanceType string  `json:"instance_type"`
	PerHour      float64 `json:"per_hour"` // interruptions per instance-hour
	Source       string  `json:"source"`
}

// risk returns the rate opt gives the pool of c, the zone's before the region's. A rate given
// for the zone's name in ZoneNames is the zone's too: the catalog names AWS zones by ID, runs
// and bills by name (docs/architecture.md "Spot risk").
func (opt FleetOptions) risk(c fleetCandidate) (PoolRisk, bool) {
	zones := []string{c.o.Zone}
	if name, ok := opt.ZoneNames[c.o.Zone]; ok {
		zones = append(zones, name)
	}
	return lookupPoolRisk(opt.PoolRisk, c.o.Region, c.o.InstanceType, zones)
}

// LookupPoolRisk returns the rate risks give instance type typ in region and zone: the zone's,
// else the region's (an entry without a zone).
func LookupPoolRisk(risks []PoolRisk, region, zone, typ string) (PoolRisk, bool) {
	return lookupPoolRisk(risks, region, typ, []string{zone})
}

// lookupPoolRisk is LookupPoolRisk for a zone that any of zones names (its ID, its name).
func lookupPoolRisk(risks []PoolRisk, region, typ string, zones []string) (PoolRisk, bool) {
	var found PoolRisk
	ok := false
	for _, r := range risks {
		if r.InstanceType != typ || r.Region != region || (r.Zone != "" && !slices.Contains(zones, r.Zone)) {
			continue
		}
		if !ok || r.Zone != "" {
			found, ok = r, true
		}
	}
	return found, ok
}

// FleetPool is one pool of the fleet, an instance type in one zone under one pricing model, and
// the instances the plan expects there.
type FleetPool struct {
	Provider        string               `json:"provider"`
	Region          string               `json:"region"`
	Zone            string               `json:"zone,omitempty"`
	InstanceType    string               `json:"instance_type"`
	GPUModel        string               `json:"gpu_model"`
	GPUsPerInstance int                  `json:"gpus_per_instance"`
	GPUMemoryGB     float64              `json:"gpu_memory_gb"`
	Capacity        gpucost.PricingModel `json:"capacity"` // spot or on-demand
	Rank            int                  `json:"rank"`     // 1 is the cheapest $/GPU-hour of its capacity type
	Instances       int                  `json:"instances"`
	GPUs            int                  `json:"gpus"`
	PricePerHour    gpucost.PerHour      `json:"price_per_hour"`     // one instance, under Capacity
	OnDemandPerHour gpucost.PerHour      `json:"on_demand_per_hour"` // one instance, on-demand
	PerGPUHour      gpucost.PerHour      `json:"per_gpu_hour"`       // under Capacity
	TotalPerHour    gpucost.PerHour      `json:"total_per_hour"`     // Instances × PricePerHour
	// InterruptionsPerHour is the pool's rate per instance-hour where FleetOptions.PoolRisk gives
	// one, and RiskSource where it came from; HighRisk marks a rate above MaxRiskPerHour.
	InterruptionsPerHour float64 `json:"interruptions_per_hour,omitempty"`
	RiskSource           string  `json:"risk_source,omitempty"`
	HighRisk             bool    `json:"high_risk,omitempty"`
}

// FleetResult is a planned fleet in one region: spot pools ranked by $/GPU-hour, the on-demand
// base, the blended price against running the same instances all on-demand, and warnings.
type FleetResult struct {
	Options  FleetOptions `json:"options"`
	Provider string       `json:"provider"`
	Region   string       `json:"region"`
	// Pools are the spot pools, cheapest first (some may hold no instance: they are the
	// fallback capacity the fleet request lists), then the on-demand pool of the base.
	Pools []FleetPool `json:"pools"`

	TargetGPUs         int `json:"target_gpus"`           // GPUs asked for
	OnDemandTargetGPUs int `json:"on_demand_target_gpus"` // the base asked for, rounded up to a GPU
	GPUs               int `json:"gpus"`                  // GPUs of the planned instances
	SpotGPUs           int `json:"spot_gpus"`
	OnDemandGPUs       int `json:"on_demand_gpus"`

	PerHour            gpucost.PerHour `json:"per_hour"`     // blended, the planned instances
	PerGPUHour         gpucost.PerHour `json:"per_gpu_hour"` // blended
	OnDemandPerHour    gpucost.PerHour `json:"on_demand_per_hour"`
	OnDemandPerGPUHour gpucost.PerHour `json:"on_demand_per_gpu_hour"`
	SavingPerHour      gpucost.PerHour `json:"saving_per_hour"`
	SavingPercent      float64         `json:"saving_pct"`
	SpotPools          int             `json:"spot_pools_available"` // spot pools in the region
	// ExpectedInterruptionsPerHour is Σ instances × rate over the spot pools with a known rate.
	ExpectedInterruptionsPerHour float64  `json:"expected_interruptions_per_hour,omitempty"`
	Warnings                     []string `json:"warnings,omitempty"`
}

// fleetCandidate is one offer that can serve as a pool.
type fleetCandidate struct {
	o    gpucost.Offer
	gpus int
}

// Fleet plans a diversified fleet of opt.GPUs GPUs from offers. It works region by region,
// because an EC2 Fleet request and a Karpenter cluster live in one region, and returns the
// region that reaches the spot diversification asked for at the lowest blended $/hour (or, if
// none reaches it, the cheapest).
//
// In a region the on-demand base, OnDemandBase × GPUs rounded up, goes to the on-demand pool
// that covers it at the lowest $/hour. The rest is spread instance by instance over the
// Diversify cheapest spot pools (by spot $/GPU-hour), in rank order, so one pool's reclaim takes
// as small a share as whole instances allow; the last instance goes to the pool that covers
// what is left at the lowest $/hour. The real placement is EC2's (price-capacity-optimized) or
// Karpenter's; the plan's counts are the expected spread and its prices the catalog's.
func Fleet(offers []gpucost.Offer, opt FleetOptions) (FleetResult, error) {
	opt, err := checkFleetOptions(opt)
	if err != nil {
		return FleetResult{}, err
	}
	regions, err := fleetCandidates(offers, opt)
	if err != nil {
		return FleetResult{}, err
	}
	var best *FleetResult
	var errs []string
	for _, cands := range regions {
		r, err := planRegion(cands, opt)
		if err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if best == nil || betterFleet(r, *best, opt) {
			best = &r
		}
	}
	if best == nil {
		return FleetResult{}, gpucost.Errorf(gpucost.EInvalid, "plan fleet: no region can hold the fleet: %s",
			strings.Join(errs, "; "))
	}
	return *best, nil
}

// checkFleetOptions refuses impossible requests and fills in defaults.
func checkFleetOptions(opt FleetOptions) (FleetOptions, error) {
	switch {
	case opt.GPUs < 1:
		return opt, gpucost.Errorf(gpucost.EInvalid, "plan fleet: %d GPUs: ask for 1 or more", opt.GPUs)
	case math.IsNaN(opt.OnDemandBase) || opt.OnDemandBase < 0 || opt.OnDemandBase > 1:
		return opt, gpucost.Errorf(gpucost.EInvalid,
			"plan fleet: on-demand base %v is not a share: give 0 to 1 (20%% is 0.2)", opt.OnDemandBase)
	case opt.Diversify < 0:
		return opt, gpucost.Errorf(gpucost.EInvalid, "plan fleet: diversify %d: give 1 or more pools, or 0 for %d",
			opt.Diversify, DefaultDiversify)
	case math.IsNaN(opt.MaxPoolShare) || opt.MaxPoolShare < 0 || opt.MaxPoolShare > 1:
		return opt, gpucost.Errorf(gpucost.EInvalid, "plan fleet: max pool share %v is not a share: give 0 to 1 (40%% is 0.4), 0 for no cap", opt.MaxPoolShare)
	case math.IsNaN(opt.MinVRAMGB) || opt.MinVRAMGB < 0:
		return opt, gpucost.Errorf(gpucost.EInvalid, "plan fleet: minimum VRAM %v GB: give 0 or more", opt.MinVRAMGB)
	}
	switch opt.FleetType {
	case "":
		opt.FleetType = "maintain"
	case "maintain", "request", "instant":
	default:
		return opt, gpucost.Errorf(gpucost.EInvalid, "plan fleet: fleet type %q: use maintain, request or instant", opt.FleetType)
	}
	if opt.Diversify == 0 {
		opt.Diversify = DefaultDiversify
	}
	if opt.Name == "" {
		opt.Name = "gpucost-fleet"
	}
	if opt.LaunchTemplate == "" {
		opt.LaunchTemplate = opt.Name
	}
	if opt.NodeClass == "" {
		opt.NodeClass = "default"
	}
	opt.Provider = strings.ToLower(strings.TrimSpace(opt.Provider))
	return opt, nil
}

// fleetCandidates returns the offers that can be pools, grouped by provider and region in name
// order, or an error that says which filter emptied the list and what the offers have instead.
func fleetCandidates(offers []gpucost.Offer, opt FleetOptions) ([][]fleetCandidate, error) {
	var byModel, byVRAM, byProvider, priced int
	maxVRAM := 0.0
	seen := map[[4]string]bool{}
	groups := map[[2]string][]fleetCandidate{}
	for _, o := range offers {
		n := int(o.GPUCount)
		if o.GPUCount < 1 || float64(n) != o.GPUCount || (len(opt.Models) > 0 && !slices.Contains(opt.Models, o.GPUModel)) {
			continue
		}
		byModel++
		maxVRAM = max(maxVRAM, o.GPUMemoryGB)
		if o.GPUMemoryGB < opt.MinVRAMGB {
			continue
		}
		byVRAM++
		if opt.Provider != "" && !strings.EqualFold(o.Provider, opt.Provider) {
			continue
		}
		byProvider++
		if !o.HasOnDemand || o.OnDemand.Nanos <= 0 {
			continue // the base and the comparison need an on-demand price
		}
		priced++
		if len(opt.Regions) > 0 && !slices.ContainsFunc(opt.Regions, func(r string) bool { return strings.EqualFold(r, o.Region) }) {
			continue
		}
		k := [4]string{strings.ToLower(o.Provider), o.Region, o.Zone, o.InstanceType}
		if seen[k] {
			continue
		}
		seen[k] = true
		g := [2]string{k[0], o.Region}
		groups[g] = append(groups[g], fleetCandidate{o: o, gpus: n})
	}
	if len(groups) == 0 {
		return nil, noFleetOffer(opt, byModel, byVRAM, byProvider, priced, maxVRAM)
	}
	keys := make([][2]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	out := make([][]fleetCandidate, len(keys))
	for i, k := range keys {
		out[i] = groups[k]
	}
	return out, nil
}

// noFleetOffer explains which filter left no offer.
func noFleetOffer(opt FleetOptions, byModel, byVRAM, byProvider, priced int, maxVRAM float64) error {
	models := "any GPU"
	if len(opt.Models) > 0 {
		models = strings.Join(opt.Models, ", ")
	}
	var why string
	switch {
	case byModel == 0:
		why = fmt.Sprintf("the catalog has no whole-GPU offer of %s: pick another GPU", models)
	case byVRAM == 0:
		why = fmt.Sprintf("offers of %s have at most %g GB per GPU: lower the minimum VRAM to %g or pick a larger GPU",
			models, maxVRAM, maxVRAM)
	case byProvider == 0:
		why = fmt.Sprintf("provider %q sells no %s with %g GB: drop the provider", opt.Provider, models, opt.MinVRAMGB)
	case priced == 0:
		why = "no matching offer has an on-demand price, which the base and the comparison need"
	default:
		why = fmt.Sprintf("none of the %d matching offers is in regions %s: widen the regions",
			priced, strings.Join(opt.Regions, ", "))
	}
	return gpucost.Errorf(gpucost.EInvalid, "plan fleet: no offer fits: %s", why)
}

// betterFleet reports whether a is a better plan than b: one that reaches the diversification
// asked for beats one that does not, then the lower blended $/hour, then the region name.
func betterFleet(a, b FleetResult, opt FleetOptions) bool {
	if opt.Spot {
		if da, db := a.SpotPools >= opt.Diversify, b.SpotPools >= opt.Diversify; da != db {
			return da
		}
	}
	if c := cmp.Compare(a.PerHour.Nanos, b.PerHour.Nanos); c != 0 {
		return c < 0
	}
	return a.Region < b.Region
}

// spotPerGPU and onDemandPerGPU are a candidate's prices per GPU-hour.
func (c fleetCandidate) spotPerGPU() gpucost.Money     { return c.o.SpotPrice.DivInt(int64(c.gpus)) }
func (c fleetCandidate) onDemandPerGPU() gpucost.Money { return c.o.OnDemand.DivInt(int64(c.gpus)) }

// rankCandidates sorts cs by price per GPU-hour, then zone and instance type for a stable order.
func rankCandidates(cs []fleetCandidate, price func(fleetCandidate) gpucost.Money) {
	slices.SortStableFunc(cs, func(a, b fleetCandidate) int {
		return cmp.Or(cmp.Compare(price(a).Nanos, price(b).Nanos), cmp.Compare(a.o.Zone, b.o.Zone),
			cmp.Compare(a.o.InstanceType, b.o.InstanceType))
	})
}

// planRegion plans the fleet over one region's candidates.
func planRegion(cands []fleetCandidate, opt FleetOptions) (FleetResult, error) {
	o := cands[0].o
	r := FleetResult{Options: opt, Provider: strings.ToLower(o.Provider), Region: o.Region, TargetGPUs: opt.GPUs}
	spot, dearer := spotCandidates(cands)
	spot = preferLowRisk(spot, opt)
	r.SpotPools = len(spot)
	base := opt.GPUs
	if opt.Spot {
		base = int(math.Ceil(opt.OnDemandBase*float64(opt.GPUs) - 1e-9))
		if len(spot) == 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s has no spot price more than 1%% below on-demand for these GPUs: the whole fleet is on-demand", r.Region))
			base = opt.GPUs
		}
	}
	if opt.Spot && dearer > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d pools in %s have a spot price within 1%% of on-demand or above it and are left out", dearer, r.Region))
	}
	r.OnDemandTargetGPUs = base
	od := slices.Clone(cands)
	rankCandidates(od, fleetCandidate.onDemandPerGPU)
	baseGPUs := 0
	var basePool *FleetPool
	if base > 0 {
		i, n := cheapestCover(base, od, gpucost.OnDemand)
		p := fleetPool(od[i], gpucost.OnDemand, 1+i, n)
		basePool, baseGPUs = &p, p.GPUs
		if opt.Spot && len(spot) > 0 && base < opt.GPUs && p.GPUs >= opt.GPUs && 2*base < p.GPUs {
			// Whole instances would turn a small base into an all-on-demand fleet: the nearer
			// whole number of instances is none.
			r.Warnings = append(r.Warnings, fmt.Sprintf("the on-demand base of %g%% is %d GPUs, under half of the smallest on-demand instance (%d GPUs): it is rounded down to none; give --on-demand-base 100%% or --spot=false to keep the fleet on-demand",
				opt.OnDemandBase*100, base, p.GPUs))
			basePool, baseGPUs, base, r.OnDemandTargetGPUs = nil, 0, 0, 0
		}
	}
	if opt.Spot && len(spot) > 0 {
		chosen := spot[:min(opt.Diversify, len(spot))]
		gpus := max(0, opt.GPUs-baseGPUs)
		counts, capped := spread(gpus, chosen, int(math.Ceil(opt.MaxPoolShare*float64(gpus)-1e-9)))
		if capped {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the %d spot pools cannot hold %d GPUs with no pool over %g%% of them: the cap is passed; widen --diversify", len(chosen), gpus, 100*opt.MaxPoolShare))
		}
		for i, c := range chosen {
			p := fleetPool(c, gpucost.Spot, i+1, counts[i])
			if rk, ok := opt.risk(c); ok {
				p.InterruptionsPerHour, p.RiskSource = rk.PerHour, rk.Source
				p.HighRisk = opt.MaxRiskPerHour > 0 && rk.PerHour > opt.MaxRiskPerHour
				r.ExpectedInterruptionsPerHour += float64(p.Instances) * rk.PerHour
			}
			r.Pools = append(r.Pools, p)
		}
	}
	if basePool != nil {
		r.Pools = append(r.Pools, *basePool)
	}
	fleetTotals(&r)
	r.Warnings = append(r.Warnings, fleetWarnings(r, opt, base, baseGPUs)...)
	return r, nil
}

// spotCandidates returns the candidates with a spot price more than 1% below on-demand,
// cheapest spot $/GPU-hour first, and how many were left out for a price at or near on-demand.
func spotCandidates(cands []fleetCandidate) ([]fleetCandidate, int) {
	var spot []fleetCandidate
	dearer := 0
	for _, c := range cands {
		switch {
		case !c.o.HasSpot || c.o.SpotPrice.Nanos <= 0:
		case c.o.SpotPrice.Nanos >= c.o.OnDemand.Nanos-c.o.OnDemand.Nanos/100:
			// A spot price within 1% of on-demand saves nothing worth a reclaim; the bundled
			// AWS catalog lists such prices (eu-central-1 p4de: $34.2912 vs $34.29122).
			dearer++
		default:
			spot = append(spot, c)
		}
	}
	rankCandidates(spot, fleetCandidate.spotPerGPU)
	return spot, dearer
}

// instancePrice is one instance's $/hour under pricing model p.
func instancePrice(c fleetCandidate, p gpucost.PricingModel) gpucost.Money {
	if p == gpucost.Spot {
		return c.o.SpotPrice
	}
	return c.o.OnDemand
}

// cheapestCover returns the candidate that covers gpus GPUs at the lowest $/hour under pricing
// model p and the instances it takes; ties go to the earlier, cheaper-per-GPU candidate.
func cheapestCover(gpus int, cs []fleetCandidate, p gpucost.PricingModel) (best, instances int) {
	var bestCost int64 = math.MaxInt64
	for i, c := range cs {
		n := (gpus + c.gpus - 1) / c.gpus
		if cost := instancePrice(c, p).Nanos * int64(n); cost < bestCost {
			best, instances, bestCost = i, n, cost
		}
	}
	return best, instances
}

// preferLowRisk moves the spot pools whose rate is above opt.MaxRiskPerHour after the others,
// each part in its price order, so the fleet takes the low-risk pools first.
func preferLowRisk(spot []fleetCandidate, opt FleetOptions) []fleetCandidate {
	if opt.MaxRiskPerHour <= 0 || len(opt.PoolRisk) == 0 {
		return spot
	}
	var low, high []fleetCandidate
	for _, c := range spot {
		if rk, ok := opt.risk(c); ok && rk.PerHour > opt.MaxRiskPerHour {
			high = append(high, c)
		} else {
			low = append(low, c)
		}
	}
	return append(low, high...)
}

// spread deals gpus GPUs over pools one instance at a time in rank order, passing over pools
// whose instance is larger than what is left, or, with capGPUs > 0, that would pass capGPUs;
// when every pool is passed over, the pool that covers the rest at the lowest $/hour takes it,
// and capped says whether that passed the cap.
func spread(gpus int, pools []fleetCandidate, capGPUs int) (counts []int, capped bool) {
	counts = make([]int, len(pools))
	fits := func(j int) bool {
		c := pools[j]
		return c.gpus <= gpus && (capGPUs <= 0 || (counts[j]+1)*c.gpus <= capGPUs)
	}
	for i := 0; gpus > 0; {
		j := -1
		for k := range pools {
			if at := (i + k) % len(pools); fits(at) {
				j = at
				break
			}
		}
		if j < 0 {
			k, n := cheapestCover(gpus, pools, gpucost.Spot)
			counts[k] += n
			capped = capGPUs > 0 && counts[k]*pools[k].gpus > capGPUs
			break
		}
		counts[j]++
		gpus -= pools[j].gpus
		i = (j + 1) % len(pools)
	}
	return counts, capped
}

// fleetPool builds the pool of candidate c under pricing model p with n instances.
func fleetPool(c fleetCandidate, p gpucost.PricingModel, rank, n int) FleetPool {
	price := instancePrice(c, p)
	return FleetPool{
		Provider: strings.ToLower(c.o.Provider), Region: c.o.Region, Zone: c.o.Zone, InstanceType: c.o.InstanceType,
		GPUModel: c.o.GPUModel, GPUsPerInstance: c.gpus, GPUMemoryGB: c.o.GPUMemoryGB, Capacity: p, Rank: rank,
		Instances: n, GPUs: n * c.gpus, PricePerHour: price, OnDemandPerHour: c.o.OnDemand,
		PerGPUHour: price.DivInt(int64(c.gpus)), TotalPerHour: fleetTimes(price, n),
	}
}

// fleetTimes is m × n, exact.
func fleetTimes(m gpucost.Money, n int) gpucost.Money {
	return gpucost.Money{Nanos: m.Nanos * int64(n), Currency: m.Currency}
}

// fleetTotals sums the pools into the result's GPUs, blended prices and saving. Every spot pool
// is priced below on-demand and the base is on-demand, so the saving is never negative.
func fleetTotals(r *FleetResult) {
	r.PerHour, r.OnDemandPerHour = gpucost.USD(0), gpucost.USD(0)
	for _, p := range r.Pools {
		r.GPUs += p.GPUs
		if p.Capacity == gpucost.Spot {
			r.SpotGPUs += p.GPUs
		} else {
			r.OnDemandGPUs += p.GPUs
		}
		if r.PerHour.Currency != p.PricePerHour.Currency && p.Instances > 0 {
			r.PerHour.Currency, r.OnDemandPerHour.Currency = p.PricePerHour.Currency, p.PricePerHour.Currency
		}
		r.PerHour = r.PerHour.Add(p.TotalPerHour)
		r.OnDemandPerHour = r.OnDemandPerHour.Add(fleetTimes(p.OnDemandPerHour, p.Instances))
	}
	r.SavingPerHour = r.OnDemandPerHour.Sub(r.PerHour)
	if r.GPUs > 0 {
		r.PerGPUHour = r.PerHour.DivInt(int64(r.GPUs))
		r.OnDemandPerGPUHour = r.OnDemandPerHour.DivInt(int64(r.GPUs))
	}
	if r.OnDemandPerHour.Nanos > 0 {
		r.SavingPercent = math.Round(float64(r.SavingPerHour.Nanos)/float64(r.OnDemandPerHour.Nanos)*1e4) / 100
	}
}

// fleetWarnings says where the plan falls short of what was asked: too few pools to diversify,
// whole instances that round the base or the fleet up.
func fleetWarnings(r FleetResult, opt FleetOptions, base, baseGPUs int) []string {
	var w []string
	if opt.Spot && r.SpotPools > 0 && r.SpotPools < opt.Diversify {
		w = append(w, fmt.Sprintf("only %d spot pools (instance type × zone) in %s, fewer than the %d asked for: "+
			"one pool's reclaim can take 1/%d of the spot part; accept more GPU models or less VRAM to widen it",
			r.SpotPools, r.Region, opt.Diversify, r.SpotPools))
	}
	used := 0
	for _, p := range r.Pools {
		if p.Capacity == gpucost.Spot && p.Instances > 0 {
			used++
		}
	}
	if want := min(opt.Diversify, r.SpotPools); opt.Spot && r.SpotGPUs > 0 && used < want {
		w = append(w, fmt.Sprintf("the spot part is %d GPUs in %d instances, so it fills only %d of the %d pools listed; "+
			"the others are fallback capacity", r.SpotGPUs, used, used, want))
	}
	if opt.Spot && base > 0 && baseGPUs > base {
		w = append(w, fmt.Sprintf("the on-demand base of %g%% is %d GPUs; whole instances round it up to %d GPUs (%.0f%% of the fleet)",
			opt.OnDemandBase*100, base, baseGPUs, 100*float64(baseGPUs)/float64(r.GPUs)))
	}
	if r.GPUs > r.TargetGPUs {
		w = append(w, fmt.Sprintf("whole instances give %d GPUs for the %d asked", r.GPUs, r.TargetGPUs))
	}
	if r.Provider == "aws" && hasZoneIDs(r, opt) {
		w = append(w, "zones are AWS zone IDs, which map to zone names per account; EC2 Fleet overrides need names: "+
			"give ZoneNames from `aws ec2 describe-availability-zones`, or the request leaves zones to the launch template's subnets")
	}
	return w
}

// hasZoneIDs reports whether a pool's zone is an AWS zone ID (use1-az1) that opt.ZoneNames does
// not name.
func hasZoneIDs(r FleetResult, opt FleetOptions) bool {
	return slices.ContainsFunc(r.Pools, func(p FleetPool) bool {
		_, named := opt.ZoneNames[p.Zone]
		return isZoneID(p.Zone) && !named
	})
}

// isZoneID reports whether zone is an AWS availability zone ID such as "use1-az1".
func isZoneID(zone string) bool {
	_, n, ok := strings.Cut(zone, "-az")
	if !ok || n == "" {
		return false
	}
	return strings.Trim(n, "0123456789") == ""
}
