// Package recommend turns a fleet's telemetry statistics, bill and prices into one plan of
// changes (NewPlan): per resource group, one path of compatible steps — right-size, a cheaper
// GPU type or region, MIG sharing, an idle schedule or autoscaling, spot, and a commitment for
// what stays on-demand — each priced on the group as the steps before it left it, with the
// options it excludes listed as alternatives, so the total never counts a dollar twice
// (docs/architecture.md "Recommendations and savings"). Recommend gives every option alone.
//
// It is pure: no I/O and no clock. The caller builds a FleetView from the store (usage statistics
// per GPU, monthly cost per resource from the bill) and passes a Prices lookup.
package recommend

import (
	"cmp"
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// HoursPerMonth is the month length used to turn hourly figures into monthly ones (8,760 / 12).
const HoursPerMonth = 730

// Workload kinds a Resource may carry; the levers read them to decide what is safe to change.
const (
	KindServing    = "serving"
	KindTraining   = "training"
	KindExperiment = "experiment"
	KindBatch      = "batch"
	KindEval       = "eval"
	KindNotebook   = "notebook"
	KindDev        = "dev"
)

// FleetView is the snapshot the engine reads: the resources and the period their statistics
// cover.
type FleetView struct {
	From, To  time.Time // the period of the telemetry and bill behind the statistics
	Zone      string    // the time zone of the hour-of-week patterns; "" for UTC
	Resources []Resource
}

// Resource is one billed machine with its GPUs' usage statistics.
type Resource struct {
	ID           string
	Provider     string // "aws", "gcp", …
	Region       string
	InstanceType string
	GPUModel     string // any name the Prices lookup knows
	GPUs         int
	Hourly       gpucost.Money        // on-demand price of the whole instance per hour
	Monthly      gpucost.Money        // what the bill charges per month
	Pricing      gpucost.PricingModel // on-demand, spot, or "committed"
	Owner        string
	Namespace    string
	Kind         string // the workload kind label: KindServing, KindTraining, …
	// Interruptible is true when the work survives losing the machine (it checkpoints or is
	// retried): experiments, batch inference, training with checkpoints.
	Interruptible bool
	// Movable is true when the work may run in another region or provider: experiments, batch
	// and training whose data is not pinned to the region (the caller sets it from the kind and
	// any data-locality label). Serving is never moved.
	Movable bool
	// Running is the share of each hour of the week ([time.Weekday][hour]) the machine was held.
	Running [7][24]float64
	Usage   []GPUUsage // one per GPU
	// CostLines name the bill lines behind Monthly, for the evidence: "i-0abc SKU X: 30 daily
	// lines, USD 15,800.00".
	CostLines []string
}

// GPUUsage is one GPU's statistics over the period.
type GPUUsage struct {
	MeanUtil   float64 // percent, over the hours it ran
	P95Util    float64 // percent
	VRAMPeakGB float64
	IdleShare  float64 // share of its running time idle
	// Idle is the share of each hour of the week ([time.Weekday][hour]) it was idle while running.
	Idle [7][24]float64
	// Util is the mean utilisation, percent, in each hour of the week ([time.Weekday][hour])
	// while running: the demand autoscaling follows. All zero means not measured.
	Util [7][24]float64
}

// Committed is the pricing of a resource covered by a commitment.
const Committed gpucost.PricingModel = "committed"

// Options tune the engine. The zero value is replaced field by field by DefaultOptions.
type Options struct {
	MinSaving        gpucost.Money // recommendations saving less per month are dropped
	InterruptionRate float64       // expected spot interruptions per hour (0.05 = 5%/h)
	// PoolRisk is the interruption rate of spot pools where data gives one (measured, or the
	// Spot Instance Advisor's bucket; docs/architecture.md "Spot risk"): the spot lever uses a
	// pool's own rate for its checkpoint interval and overhead, InterruptionRate elsewhere.
	PoolRisk         []plan.PoolRisk
	CheckpointTime   time.Duration // δ: time to write one checkpoint
	RestartTime      time.Duration // R: time to get a new machine and resume
	CommitDiscount   float64       // fraction off on-demand for a 1-year commitment
	ServingTarget    float64       // utilisation a serving GPU may reach at p95 (0.75)
	IdleShare        float64       // an hour of the week counts as idle at this share (0.9)
	UsedVRAMGB       float64       // a GPU holding less memory than this, and no load, is unused
	ScaleToZeroHours int           // a serving pool idle this many consecutive hours scales to zero (3)
	MoveMargin       float64       // another region must be at least this much cheaper (0.10)
	OtherProviders   bool          // let work move to another provider, not only another region
	// MoveDataGB is the data a moved workload carries along once (datasets, checkpoints), priced
	// at the source's egress rate (1,000 GB); MovePaybackDays is the longest the saving may take
	// to repay it (90).
	MoveDataGB      float64
	MovePaybackDays int
	// Headroom is the margin a cheaper GPU type must leave over the VRAM peak and the p95
	// compute demand (0.2: 20%).
	Headroom float64
}

// DefaultOptions are the defaults: 5%/h interruptions, Daly's δ = 5 min and R = 10 min, a 40%
// 1-year commitment discount (R2), serving at 75% — inside the 60–80% target (docs/architecture.md,
// reference facts).
func DefaultOptions() Options {
	return Options{InterruptionRate: 0.05, CheckpointTime: 5 * time.Minute, RestartTime: 10 * time.Minute,
		CommitDiscount: 0.4, ServingTarget: 0.75, IdleShare: 0.9, UsedVRAMGB: 1, ScaleToZeroHours: 3, MoveMargin: 0.1, Headroom: 0.2,
		MoveDataGB: 1000, MovePaybackDays: 90}
}

func (o Options) withDefaults() (Options, error) {
	d := DefaultOptions()
	o.InterruptionRate = orDefault(o.InterruptionRate, d.InterruptionRate)
	o.CheckpointTime = orDefault(o.CheckpointTime, d.CheckpointTime)
	o.RestartTime = orDefault(o.RestartTime, d.RestartTime)
	o.CommitDiscount = orDefault(o.CommitDiscount, d.CommitDiscount)
	o.ServingTarget = orDefault(o.ServingTarget, d.ServingTarget)
	o.IdleShare = orDefault(o.IdleShare, d.IdleShare)
	o.UsedVRAMGB = orDefault(o.UsedVRAMGB, d.UsedVRAMGB)
	o.ScaleToZeroHours = int(orDefault(int64(o.ScaleToZeroHours), int64(d.ScaleToZeroHours)))
	o.MoveMargin = orDefault(o.MoveMargin, d.MoveMargin)
	o.MoveDataGB = orDefault(o.MoveDataGB, d.MoveDataGB)
	o.MovePaybackDays = int(orDefault(int64(o.MovePaybackDays), int64(d.MovePaybackDays)))
	o.Headroom = orDefault(o.Headroom, d.Headroom)
	switch {
	case o.CommitDiscount <= 0 || o.CommitDiscount >= 1:
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: commitment discount %v is not in (0, 1); use e.g. 0.4", o.CommitDiscount)
	case o.InterruptionRate <= 0 || o.InterruptionRate >= 1:
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: interruption rate %v/h is not in (0, 1); use e.g. 0.05", o.InterruptionRate)
	case o.ServingTarget <= 0 || o.ServingTarget > 1:
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: serving target %v is not in (0, 1]; use e.g. 0.75", o.ServingTarget)
	case o.IdleShare <= 0 || o.IdleShare > 1:
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: idle share %v is not in (0, 1]; use e.g. 0.9", o.IdleShare)
	case o.MoveMargin >= 1:
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: move margin %v is not in (0, 1); use e.g. 0.1", o.MoveMargin)
	case !(o.MoveDataGB < 1e9): // NaN too
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: move data %v GB is not a size; use e.g. 1000", o.MoveDataGB)
	case !(o.Headroom <= 10): // NaN too
		return o, gpucost.Errorf(gpucost.EInvalid, "recommend: headroom %v is not in (0, 10]; use e.g. 0.2 for 20%%", o.Headroom)
	}
	return o, nil
}

func orDefault[T int64 | float64 | time.Duration](v, d T) T {
	if v <= 0 {
		return d
	}
	return v
}

// lever finds one kind of change on the fleet as it stands; each step it returns carries the
// recommendation and how the fleet looks once it is made.
type lever struct {
	name string // the savings report's lever
	find func(e *engine) []step
}

// step is one recommendation with the change it makes, what it changes to (target: the
// instance type, schedule or pool size that names the step in a plan's step ID) and what it
// needs from people before it is made.
type step struct {
	rec    gpucost.Recommendation
	apply  func(f []Resource)
	target string
	needs  []string
}

// levers are every lever Recommend runs, each on the fleet as it is; NewPlan runs them in
// stages (plan.go).
var levers = []lever{
	{LeverIdle, findIdleSchedules},
	{LeverRightSizing, findRightSizes},
	{LeverRightSizing, findServingRightSizes},
	{LeverRightSizing, findCheaperTypes},
	{LeverSharing, findMIGShares},
	{LeverAutoscaling, findAutoscales},
	{LeverRegion, findMoves},
	{LeverSpot, findSpot},
	{LeverCommitments, findCommitments},
}

type engine struct {
	view   FleetView
	fleet  []Resource // the fleet as changed so far
	prices Prices
	opt    Options
	// resized holds the machines a right-sizing or sharing step of the plan has changed, so a
	// serving pool already reduced is not changed again by another GPU type.
	resized map[string]bool
}

func newEngine(v FleetView, p Prices, o Options) (*engine, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if p == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "recommend: no price lookup; pass the catalog's (recommend.FromCatalog)")
	}
	if err := validate(v); err != nil {
		return nil, err
	}
	e := &engine{view: v, prices: p, opt: o, resized: map[string]bool{}}
	e.reset()
	return e, nil
}

func (e *engine) reset() {
	e.fleet = make([]Resource, len(e.view.Resources))
	for i, r := range e.view.Resources {
		r.Usage = slices.Clone(r.Usage)
		for j := range r.Usage {
			cleanUsage(&r.Usage[j])
		}
		for d := range 7 {
			for h := range 24 {
				if v := r.Running[d][h]; math.IsNaN(v) || v < 0 || v > 1 {
					r.Running[d][h] = b2f(v > 1) // NaN and negatives to 0, above 1 to 1
				}
			}
		}
		e.fleet[i] = r
	}
}

func validate(v FleetView) error {
	seen := map[string]bool{}
	for i, r := range v.Resources {
		switch {
		case r.ID == "":
			return gpucost.Errorf(gpucost.EInvalid, "recommend: resource %d has no id", i)
		case seen[r.ID]:
			return gpucost.Errorf(gpucost.EInvalid, "recommend: resource %q appears twice; give each machine one entry", r.ID)
		case r.Monthly.Nanos < 0 || r.Hourly.Nanos < 0:
			return gpucost.Errorf(gpucost.EInvalid, "recommend: resource %q has a negative cost", r.ID)
		case len(r.Usage) > 0 && len(r.Usage) != r.GPUs:
			return gpucost.Errorf(gpucost.EInvalid, "recommend: resource %q has %d GPUs but usage for %d", r.ID, r.GPUs, len(r.Usage))
		}
		seen[r.ID] = true
	}
	return nil
}

// Recommend returns every recommendation the engine finds on the fleet as it is, each saving
// computed against the unchanged fleet, largest saving first. Savings of different
// recommendations may overlap and exclude each other; NewPlan chooses one path of compatible
// steps per resource group, and its total never counts a dollar twice.
func Recommend(v FleetView, p Prices, o Options) ([]gpucost.Recommendation, error) {
	e, err := newEngine(v, p, o)
	if err != nil {
		return nil, err
	}
	var recs []gpucost.Recommendation
	for _, l := range levers {
		e.reset()
		for _, s := range l.find(e) {
			recs = append(recs, s.rec)
		}
	}
	recs = e.keep(recs)
	rank(recs)
	return recs, nil
}

// keep drops recommendations below the minimum saving and any without a positive saving.
func (e *engine) keep(recs []gpucost.Recommendation) []gpucost.Recommendation {
	return slices.DeleteFunc(recs, func(r gpucost.Recommendation) bool {
		return r.MonthlySaving.Nanos <= 0 || r.MonthlySaving.Less(e.opt.MinSaving)
	})
}

// rank orders recommendations by saving, largest first; ties by kind and resources, so the
// order is the same on every run.
func rank(recs []gpucost.Recommendation) {
	slices.SortStableFunc(recs, func(a, b gpucost.Recommendation) int {
		if c := cmp.Compare(b.MonthlySaving.Nanos, a.MonthlySaving.Nanos); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Kind, b.Kind); c != 0 {
			return c
		}
		return slices.Compare(a.Resources, b.Resources)
	})
}

func total(f []Resource) gpucost.Money {
	sum := gpucost.USD(0)
	for _, r := range f {
		sum = sum.Add(r.Monthly)
	}
	return sum
}

// runningHours returns the hours per week the resource is held.
func runningHours(r *Resource) float64 {
	var h float64
	for d := range 7 {
		for hr := range 24 {
			h += r.Running[d][hr]
		}
	}
	return h
}

// cleanUsage replaces statistics that are not finite or out of range, so that no NaN reaches a
// saving or a sentence.
func cleanUsage(u *GPUUsage) {
	fix := func(v *float64, hi float64) {
		if math.IsNaN(*v) || *v < 0 {
			*v = 0
		} else if *v > hi {
			*v = hi
		}
	}
	fix(&u.MeanUtil, 100)
	fix(&u.P95Util, 100)
	fix(&u.VRAMPeakGB, math.MaxFloat64)
	fix(&u.IdleShare, 1)
	for d := range 7 {
		for h := range 24 {
			fix(&u.Idle[d][h], 1)
			fix(&u.Util[d][h], 100)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
