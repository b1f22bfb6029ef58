package plan

import (
	"fmt"
	"math"
	"slices"

	"github.com/gpucost/gpucost"
)

// Instrument is one way to commit: a 3-year or 1-year reserved instance or committed-use discount,
// or a savings plan, priced as a fraction off on-demand for every committed unit-hour.
type Instrument struct {
	Name     string  `json:"name"`                // such as "reserved-3y" or "savings-plan"
	Discount float64 `json:"discount"`            // fraction off on-demand, 0 < d < 1
	MaxUnits float64 `json:"max_units,omitempty"` // most units/hour that may be bought (risk appetite, quota); 0 for no limit
}

// LayerInput asks for the cheapest mix of commitment instruments over a history of hourly usage.
// Usage and OnDemand mean what they mean in CommitInput.
type LayerInput struct {
	Usage       []float64       `json:"-"`
	OnDemand    gpucost.PerHour `json:"on_demand"`
	Instruments []Instrument    `json:"instruments"`
}

// LayerAmount is what one instrument buys: a band of Units above the deeper instruments' bands.
type LayerAmount struct {
	Name        string        `json:"name"`
	Discount    float64       `json:"discount"`
	From        float64       `json:"from_units"`  // the band's floor: units bought of deeper instruments
	Units       float64       `json:"units"`       // units per hour bought of this instrument
	Cost        gpucost.Money `json:"cost"`        // what the band costs over the hours
	Utilisation float64       `json:"utilisation"` // share of the band's unit-hours used
}

// LayerResult is the cost-minimising mix and what it saves against on-demand and against the
// best single instrument.
type LayerResult struct {
	Hours            int           `json:"hours"`
	Layers           []LayerAmount `json:"layers"`          // deepest discount first, one per instrument
	Committed        float64       `json:"committed_units"` // units per hour over all layers
	OnDemandCost     gpucost.Money `json:"on_demand_cost"`  // all usage on-demand
	OverflowCost     gpucost.Money `json:"overflow_cost"`   // usage above the layers, on-demand
	PlanCost         gpucost.Money `json:"plan_cost"`       // layers plus overflow
	Saving           gpucost.Money `json:"saving"`          // OnDemandCost − PlanCost, never negative
	SavingPercent    float64       `json:"saving_pct"`
	BestSingle       string        `json:"best_single"`           // the instrument that alone saves most
	BestSingleCost   gpucost.Money `json:"best_single_cost"`      // plan cost with that instrument alone
	SavingVsBestOnly gpucost.Money `json:"saving_vs_best_single"` // BestSingleCost − PlanCost, never negative
}

// Layer returns the cheapest hourly amounts of each instrument for in.Usage.
//
// With c_i bought of instrument i and C = Σ c_i, the usage costs
// Σ_i (1−d_i)·c_i·T + Σ_t max(u_t − C, 0) (docs/architecture.md "Commitments", several instruments). For a
// given total C the cheapest split fills the deepest discounts first (the overflow depends on C
// alone), so the cost of the best split is convex in C with slope (1−d_i)·T − #{t : u_t > C} on
// the band of instrument i. The optimum grows C while that slope is negative: each instrument in
// order of discount is filled from the level already bought up to its own d_i-quantile, or to its
// MaxUnits, whichever is less; once the level passes an instrument's quantile it buys nothing,
// nor does any shallower one. Without limits the deepest instrument takes it all. The tests check
// this against the LP with per-hour overflow variables (gonum optimize/convex/lp) and brute force.
func Layer(in LayerInput) (LayerResult, error) {
	insts, err := checkLayer(in)
	if err != nil {
		return LayerResult{}, err
	}
	sorted := slices.Clone(in.Usage)
	slices.Sort(sorted)
	units := make([]float64, len(insts))
	level := 0.0
	for i, inst := range insts {
		units[i] = min(bandLimit(inst), max(0, quantile(sorted, inst.Discount)-level))
		level += units[i]
	}
	r := priceLayers(in.Usage, in.OnDemand, insts, units)
	if r.Saving.Nanos < 0 { // rounding only: committing nothing is then as good
		r = priceLayers(in.Usage, in.OnDemand, insts, make([]float64, len(insts)))
	}
	r.BestSingleCost = r.OnDemandCost
	for i, inst := range insts {
		only := make([]float64, len(insts))
		only[i] = min(bandLimit(inst), quantile(sorted, inst.Discount))
		if c := priceLayers(in.Usage, in.OnDemand, insts, only).PlanCost; c.Nanos < r.BestSingleCost.Nanos {
			r.BestSingle, r.BestSingleCost = inst.Name, c
		}
	}
	r.SavingVsBestOnly = r.BestSingleCost.Sub(r.PlanCost)
	if r.SavingVsBestOnly.Nanos < 0 { // rounding only: the mix includes every single instrument
		r.SavingVsBestOnly = gpucost.Money{Currency: in.OnDemand.Currency}
	}
	return r, nil
}

// bandLimit returns the most an instrument may buy.
func bandLimit(inst Instrument) float64 {
	if inst.MaxUnits == 0 {
		return math.Inf(1)
	}
	return inst.MaxUnits
}

// quantile returns the d-quantile of sorted usage: the ⌈d·T⌉-th smallest hour (OptimalCommitment).
func quantile(sorted []float64, d float64) float64 {
	k := int(math.Ceil(d * float64(len(sorted))))
	if k < 1 {
		return 0
	}
	return sorted[k-1]
}

// priceLayers prices units of each instrument, stacked in order, against usage.
func priceLayers(usage []float64, price gpucost.PerHour, insts []Instrument, units []float64) LayerResult {
	hours := float64(len(usage))
	r := LayerResult{Hours: len(usage)}
	r.PlanCost = gpucost.Money{Currency: price.Currency}
	used, above := 0.0, 0.0
	level := 0.0
	for _, u := range usage {
		used += u
	}
	for i, inst := range insts {
		l := LayerAmount{Name: inst.Name, Discount: inst.Discount, From: level, Units: units[i]}
		l.Cost = price.MulFloat((1 - inst.Discount) * units[i] * hours)
		if units[i] > 0 {
			covered := 0.0
			for _, u := range usage {
				covered += min(max(u-level, 0), units[i])
			}
			l.Utilisation = covered / (units[i] * hours)
		}
		r.Layers = append(r.Layers, l)
		r.PlanCost = r.PlanCost.Add(l.Cost)
		level += units[i]
	}
	for _, u := range usage {
		above += max(u-level, 0)
	}
	r.Committed = level
	r.OnDemandCost = price.MulFloat(used)
	r.OverflowCost = price.MulFloat(above)
	r.PlanCost = r.PlanCost.Add(r.OverflowCost)
	r.Saving = r.OnDemandCost.Sub(r.PlanCost)
	r.SavingPercent = percent(r.Saving, r.OnDemandCost)
	return r
}

// checkLayer returns the instruments deepest discount first, named, or an error saying what
// would work.
func checkLayer(in LayerInput) ([]Instrument, error) {
	if len(in.Instruments) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "no instruments to layer: give at least one, such as a 3-year commitment at 0.57 off")
	}
	insts := slices.Clone(in.Instruments)
	for i := range insts {
		inst := &insts[i]
		if inst.Name == "" {
			inst.Name = fmt.Sprintf("instrument-%d", i+1)
		}
		if err := checkUsage(in.Usage, inst.Discount, in.OnDemand, 0); err != nil {
			return nil, fmt.Errorf("layer %s: %w", inst.Name, err)
		}
		if math.IsNaN(inst.MaxUnits) || math.IsInf(inst.MaxUnits, 0) || inst.MaxUnits < 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "instrument %s may buy at most %v units: give a finite limit ≥ 0, or 0 for none",
				inst.Name, inst.MaxUnits)
		}
	}
	slices.SortStableFunc(insts, func(a, b Instrument) int {
		switch {
		case a.Discount > b.Discount:
			return -1
		case a.Discount < b.Discount:
			return 1
		}
		return 0
	})
	return insts, nil
}
