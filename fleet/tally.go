package fleet

import (
	"math"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Tally sums the allocations of a Split by a Dimension into Figures: report cost --policy
// requested or weighted, which splits the money by another rule than the snapshot's. Under
// those policies the users are charged held time (requested) or a blend, so UsedCost is what
// the users were charged and IdleCost the capacity nobody was, in one "(idle capacity)" group
// of the telemetry dimensions.
type Tally struct {
	d        Dimension
	groups   *groups
	scratch  Line // the line of the allocation being added
	resource LineResource
}

// NewTally returns an empty Tally of the period p by d.
func NewTally(d Dimension, p Period) *Tally {
	return &Tally{d: d, groups: newGroups(p)}
}

// Add adds one allocation of a Split, with the GPU its line pays for (Split.Each's arguments).
func (t *Tally) Add(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool) {
	c := Charge{Start: a.Start, Owner: a.Owner, Model: gpu.Model, Line: t.line(a.Line, gpu), Source: SourceBill,
		Cost: a.EffectiveCost, Billed: a.BilledCost, held: int64(math.Round(a.GPUHours * unitsPerHour)),
		IdleCost: gpucost.Money{Currency: a.EffectiveCost.Currency}, IdleBilled: gpucost.Money{Currency: a.BilledCost.Currency}}
	switch {
	case !isGPU || a.Line == nil || a.Line.ChargeCategory != "Usage":
		c.Kind = Other
	case a.Policy == gpucost.PolicyTags:
		c.Kind = NoTelemetry
	case a.Idle:
		c.Kind, c.idleCapacity, c.IdleCost, c.IdleBilled = GPUTime, true, a.EffectiveCost, a.BilledCost
	default:
		c.Kind, c.used = GPUTime, int64(math.Round(a.UsedGPUHours*unitsPerHour))
	}
	t.groups.add(t.d.Key(&c), &c)
}

// line returns the Line of a cost line, for the dimension to read during Add.
func (t *Tally) line(l *gpucost.CostLine, gpu catalog.LineGPU) *Line {
	if l == nil {
		return nil
	}
	t.resource = LineResource{ResourceID: l.ResourceID, ResourceName: l.ResourceName, Provider: l.Provider, Region: l.RegionID,
		Account: l.SubAccountID, Service: l.ServiceName, SKU: l.SkuID, Pricing: l.PricingCategory, Category: l.ChargeCategory,
		InstanceType: gpu.InstanceType, Model: gpu.Model, Tags: l.Tags}
	t.scratch = Line{LineResource: &t.resource, start: unixNano(l.ChargePeriodStart), end: unixNano(l.ChargePeriodEnd)}
	return &t.scratch
}

// Figures returns the groups, ordered as Snapshot.Group orders them.
func (t *Tally) Figures() []Figures { return t.groups.sorted() }
