package analyze

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// DefaultWeight is the share of cost AllocOptions splits by held time under PolicyWeighted when
// Weight is zero; the rest is split by used time.
const DefaultWeight = 0.5

// AllocOptions configure an Allocator.
type AllocOptions struct {
	// Policy is gpucost.PolicyRequested (by GPU time held, the default when empty),
	// gpucost.PolicyUsed (by GPU time used: held time × utilisation) or gpucost.PolicyWeighted.
	Policy string

	// Weight is, under PolicyWeighted, the share of cost split by held time; the rest is split by
	// used time. Zero means DefaultWeight.
	Weight float64

	// TagKeys lists, for TagTeam and TagProject, the keys tried in order in a series' telemetry
	// labels and, failing those, in the cost line's tags. Nil means DefaultTagKeys; a dimension
	// the map lacks is never filled.
	TagKeys map[string][]string

	// IdleByHolder, under PolicyUsed, charges each owner's held but unused time to that owner as
	// an idle allocation, and the capacity no telemetry held to the line's tag owner under
	// gpucost.PolicyTags, as fleet.Snapshot counts idle; otherwise all unused capacity is one
	// idle allocation.
	IdleByHolder bool
}

// Resource is the billed resource a cost line charges for, as telemetry sees it.
type Resource struct {
	Hosts []string // the telemetry hosts that are this resource
	GPUs  int      // its GPUs; 0 counts the physical GPUs seen in the line's period
}

// AllocStats say what Allocate found for one cost line.
type AllocStats struct {
	Matched          bool    // telemetry was found on the resource's hosts in the line's period
	HeldGPUHours     float64 // GPU time the users held
	UsedGPUHours     float64 // GPU time they used: held time × utilisation
	CapacityGPUHours float64 // GPUs × billed hours, grown to the held time where that is more
}

// Allocator splits the cost of GPU resources between the users that telemetry shows on them, by
// a policy, with the capacity nobody used as a line of its own. It keeps hour rollups compactly
// (24 bytes each, series and hosts interned) and indexes them by host and hour, so one cost line
// is allocated in time proportional to the rollups in its period. It is not safe for concurrent
// use.
//
// Time is counted in integer units (a GPU-minute is 17,640 of them), so each user's share of a
// MIG instance or a time-sliced minute is exact; cost is then divided in proportion to the units
// by largest remainder, so a line's allocations add up to its cost to the nano-unit.
type Allocator struct {
	policy       string
	weight       float64
	idleByHolder bool
	keys         map[string][]string
	tags         TagOwners
	tel          telemetry
	sc           scratch
}

// NewAllocator returns an Allocator without telemetry. It returns an EInvalid error for an
// unknown policy, a weight outside [0, 1] or tag keys other than team and project.
func NewAllocator(opts AllocOptions) (*Allocator, error) {
	a := &Allocator{policy: opts.Policy, weight: opts.Weight, keys: opts.TagKeys, idleByHolder: opts.IdleByHolder}
	switch a.policy {
	case "":
		a.policy = gpucost.PolicyRequested
	case gpucost.PolicyRequested, gpucost.PolicyUsed, gpucost.PolicyWeighted:
	default:
		return nil, gpucost.Errorf(gpucost.EInvalid, "allocation policy %q: want %s, %s or %s",
			opts.Policy, gpucost.PolicyRequested, gpucost.PolicyUsed, gpucost.PolicyWeighted)
	}
	if !(a.weight >= 0 && a.weight <= 1) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "allocation weight %v: want a share of held time from 0 to 1", opts.Weight)
	}
	if a.weight == 0 {
		a.weight = DefaultWeight
	}
	if a.keys == nil {
		a.keys = DefaultTagKeys()
	}
	if err := checkTagKeys(a.keys); err != nil {
		return nil, err
	}
	a.tel.owner = newOwnerLabels(a.keys)
	a.tags.Keys = a.keys
	return a, nil
}

// AddRollup keeps what allocation needs of an hour rollup (a minute rollup counts as one minute
// of its hour): its series, hour, covered minutes and utilisation. Rollups may come in any order;
// rollups of one series and hour merge. r is read only during the call. Rollups of other widths,
// without a series or without covered minutes are left out.
func (a *Allocator) AddRollup(r *gpucost.Rollup) { a.tel.add(r) }

// Reset drops the telemetry, keeping the options, so the next batch of rollups starts afresh.
func (a *Allocator) Reset() { a.tel.reset() }

// Allocate splits the BilledCost and the EffectiveCost of one cost line — a GPU resource's usage
// over [ChargePeriodStart, ChargePeriodEnd) — between the owners of the telemetry series seen on
// res.Hosts in that period, and calls emit once per owner, sorted, and then once for the idle
// capacity. Without telemetry there, it calls emit once with the whole cost charged to the owner
// the line's tags name under gpucost.PolicyTags. emit gets a reused *Allocation, valid only
// during the call.
//
// Capacity is GPUs × billed hours: the line's ConsumedQuantity where its unit is time and it fits
// in the period, else the period's length. Each series holds its GPU for the minutes its rollups
// cover, times its share of the physical GPU (MIGShare/7); series on one GPU or MIG instance in the
// same minute (time-slicing, MPS) each hold an equal part of it. Used time is held time × the
// series' mean utilisation in the hour, so a GPU's used time never exceeds its held time even
// when each time-sliced pod reports the whole device's utilisation. Owners are charged held time
// (requested), used time (used) or Weight × held + (1 − Weight) × used (weighted); the idle
// allocation gets the capacity left, grown to the held time where telemetry shows more.
func (a *Allocator) Allocate(l *gpucost.CostLine, res Resource, emit func(*gpucost.Allocation)) AllocStats {
	a.tel.index()
	w := newWindow(l.ChargePeriodStart, l.ChargePeriodEnd)
	tags := a.tags.Of(l.Tags)
	a.gather(res.Hosts, w)
	gpus := res.GPUs
	if gpus <= 0 {
		gpus = a.physicalGPUs()
	}
	capacity := int64(math.Round(float64(gpus) * billedHours(l, w.hours()) * allocUnitsPerHour))
	if len(a.sc.users) == 0 {
		return a.allocateByTags(l, tags, capacity, emit)
	}
	held, used := a.chargeOwners(tags)
	capacity = max(capacity, held)
	if a.idleByHolder && a.policy == gpucost.PolicyUsed {
		a.splitByHolder(l, tags, capacity, held, emit)
	} else {
		a.split(l, tags, capacity, emit)
	}
	return AllocStats{Matched: true, HeldGPUHours: allocHours(held), UsedGPUHours: allocHours(used),
		CapacityGPUHours: allocHours(capacity)}
}

// allocateByTags charges the whole line to the owner its tags name: no telemetry says who used it.
func (a *Allocator) allocateByTags(l *gpucost.CostLine, tags gpucost.Owner, capacity int64, emit func(*gpucost.Allocation)) AllocStats {
	a.sc.out = gpucost.Allocation{Start: l.ChargePeriodStart, End: l.ChargePeriodEnd, ResourceID: l.ResourceID, Line: l,
		Owner: tags, Policy: gpucost.PolicyTags, GPUHours: allocHours(capacity),
		BilledCost: l.BilledCost, EffectiveCost: l.EffectiveCost}
	emit(&a.sc.out)
	return AllocStats{CapacityGPUHours: allocHours(capacity)}
}

// window is a charge period in Unix minutes, [m0, m1).
type window struct{ m0, m1 int64 }

func newWindow(start, end time.Time) window {
	w := window{m0: unixMinute(start), m1: unixMinute(end)}
	if !end.Equal(time.Unix(w.m1*60, 0)) {
		w.m1++ // a period ending inside a minute covers that minute
	}
	if !end.After(start) {
		w.m1 = w.m0
	}
	return w
}

// hours returns the period's length in hours.
func (w window) hours() float64 { return float64(w.m1-w.m0) / 60 }

// span returns the Unix hours the period touches, [h0, h1).
func (w window) span() (h0, h1 int64) { return floorDiv(w.m0, 60), floorDiv(w.m1+59, 60) }

// mask returns the minutes of Unix hour h that lie in the period.
func (w window) mask(h int64) uint64 {
	lo, hi := max(w.m0-h*60, 0), min(w.m1-h*60, 60)
	if lo >= hi {
		return 0
	}
	return (1<<uint(hi) - 1) &^ (1<<uint(lo) - 1)
}

// timeUnits are the consumed units Allocate reads as time, in hours per unit. Readers multiply
// pack units such as AWS's "10 Hours" into the quantity, so a leading count is ignored.
var timeUnits = map[string]float64{
	"h": 1, "hr": 1, "hrs": 1, "hour": 1, "hours": 1,
	"min": 1.0 / 60, "mins": 1.0 / 60, "minute": 1.0 / 60, "minutes": 1.0 / 60,
	"s": 1.0 / 3600, "sec": 1.0 / 3600, "secs": 1.0 / 3600, "second": 1.0 / 3600, "seconds": 1.0 / 3600,
}

// billedHours returns the hours l bills each GPU for: its consumed quantity where the unit is
// time and the quantity fits in the period, else the period's length.
func billedHours(l *gpucost.CostLine, period float64) float64 {
	perUnit, ok := 1.0, true
	switch l.ConsumedUnit {
	case "Hours", "Hrs", "Hour", "hours", "hour": // the common spellings, without a map look-up
	default:
		perUnit, ok = unitHours(l.ConsumedUnit)
	}
	if !ok {
		return period
	}
	if h := l.ConsumedQuantity * perUnit; h > 0 && h <= period*(1+1e-9) {
		return min(h, period)
	}
	return period
}

// unitHours returns the hours in one consumed unit, if the unit is time.
func unitHours(unit string) (float64, bool) {
	unit = strings.TrimSpace(unit)
	if count, rest, ok := strings.Cut(unit, " "); ok && strings.Trim(count, "0123456789.") == "" {
		unit = strings.TrimSpace(rest)
	}
	var lower [16]byte // lower-cased in place: ToLower would allocate for every line
	if len(unit) > len(lower) {
		return 0, false
	}
	for i := range len(unit) {
		c := unit[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	perUnit, ok := timeUnits[string(lower[:len(unit)])]
	return perUnit, ok
}

func allocHours(units int64) float64 { return float64(units) / allocUnitsPerHour }

// physicalGPUs counts the physical GPUs of the users gathered.
func (a *Allocator) physicalGPUs() int {
	sc := &a.sc
	if n := len(a.tel.physIDs); len(sc.physSeen) < n {
		sc.physSeen = slices.Grow(sc.physSeen, n-len(sc.physSeen))[:n]
	}
	n := 0
	for _, u := range sc.users {
		if p := a.tel.series[u.series].physical; sc.physSeen[p] != sc.gen {
			sc.physSeen[p] = sc.gen
			n++
		}
	}
	return n
}

// chargeOwners merges the users gathered by owner, sorted, and sets what each is charged under
// the policy. It returns the held and used time in all. Sorting and merging neighbours costs less
// than hashing owners for the few users a line has.
func (a *Allocator) chargeOwners(tags gpucost.Owner) (held, used int64) {
	sc := &a.sc
	sc.owners = sc.owners[:0]
	for _, u := range sc.users {
		sc.owners = append(sc.owners, ownerTime{owner: fill(a.tel.series[u.series].owner, tags), held: u.held, used: u.used})
		held += u.held
		used += u.used
	}
	slices.SortFunc(sc.owners, func(x, y ownerTime) int { return compareOwners(x.owner, y.owner) })
	merged := sc.owners[:0]
	for _, o := range sc.owners {
		if n := len(merged); n > 0 && merged[n-1].owner == o.owner {
			merged[n-1].held += o.held
			merged[n-1].used += o.used
			continue
		}
		merged = append(merged, o)
	}
	sc.owners = merged
	for i := range sc.owners {
		o := &sc.owners[i]
		switch a.policy {
		case gpucost.PolicyUsed:
			o.charged = o.used
		case gpucost.PolicyWeighted:
			o.charged = int64(math.Round(a.weight*float64(o.held) + (1-a.weight)*float64(o.used)))
		default:
			o.charged = o.held
		}
	}
	return held, used
}

// split divides the line's costs between the owners, by the time each is charged, and the idle
// capacity, and emits them.
func (a *Allocator) split(l *gpucost.CostLine, tags gpucost.Owner, capacity int64, emit func(*gpucost.Allocation)) {
	sc := &a.sc
	sc.weights = sc.weights[:0]
	charged := int64(0)
	for _, o := range sc.owners {
		sc.weights = append(sc.weights, o.charged)
		charged += o.charged
	}
	sc.weights = append(sc.weights, capacity-charged)
	sc.billed = sc.ham.split(l.BilledCost.Nanos, sc.weights, sc.billed)
	sc.effective = sc.ham.split(l.EffectiveCost.Nanos, sc.weights, sc.effective)
	base := gpucost.Allocation{Start: l.ChargePeriodStart, End: l.ChargePeriodEnd, ResourceID: l.ResourceID, Line: l,
		Policy: a.policy}
	for i, o := range sc.owners {
		if o.charged == 0 {
			continue // a share of nothing: under PolicyUsed, a user that held its GPU without using it
		}
		sc.out = base
		sc.out.Owner, sc.out.GPUHours, sc.out.UsedGPUHours = o.owner, allocHours(o.charged), allocHours(o.used)
		sc.out.BilledCost = gpucost.Money{Nanos: sc.billed[i], Currency: l.BilledCost.Currency}
		sc.out.EffectiveCost = gpucost.Money{Nanos: sc.effective[i], Currency: l.EffectiveCost.Currency}
		emit(&sc.out)
	}
	idle := len(sc.owners)
	sc.out = base
	sc.out.Owner, sc.out.Idle, sc.out.GPUHours = tags, true, allocHours(capacity-charged)
	sc.out.BilledCost = gpucost.Money{Nanos: sc.billed[idle], Currency: l.BilledCost.Currency}
	sc.out.EffectiveCost = gpucost.Money{Nanos: sc.effective[idle], Currency: l.EffectiveCost.Currency}
	emit(&sc.out)
}

// BilledHours returns the hours a GPU cost line bills each GPU for over its charge period: its
// consumed quantity where the unit is time and the quantity fits in the period, else the
// period's length, as Allocate counts capacity.
func BilledHours(l *gpucost.CostLine) float64 {
	return billedHours(l, newWindow(l.ChargePeriodStart, l.ChargePeriodEnd).hours())
}

// splitByHolder divides the line's costs between each owner's used time, each owner's idle time
// (held − used) and the capacity no telemetry held, and emits them: IdleByHolder's split.
func (a *Allocator) splitByHolder(l *gpucost.CostLine, tags gpucost.Owner, capacity, held int64, emit func(*gpucost.Allocation)) {
	sc := &a.sc
	sc.weights = sc.weights[:0]
	for _, o := range sc.owners {
		sc.weights = append(sc.weights, o.charged, o.held-o.charged)
	}
	sc.weights = append(sc.weights, capacity-held)
	sc.billed = sc.ham.split(l.BilledCost.Nanos, sc.weights, sc.billed)
	sc.effective = sc.ham.split(l.EffectiveCost.Nanos, sc.weights, sc.effective)
	base := gpucost.Allocation{Start: l.ChargePeriodStart, End: l.ChargePeriodEnd, ResourceID: l.ResourceID, Line: l,
		Policy: a.policy}
	out := func(i int, owner gpucost.Owner, idle bool, gpuHours, usedHours int64) {
		if sc.weights[i] == 0 && sc.billed[i] == 0 && sc.effective[i] == 0 {
			return
		}
		sc.out = base
		sc.out.Owner, sc.out.Idle, sc.out.GPUHours, sc.out.UsedGPUHours = owner, idle, allocHours(gpuHours), allocHours(usedHours)
		sc.out.BilledCost = gpucost.Money{Nanos: sc.billed[i], Currency: l.BilledCost.Currency}
		sc.out.EffectiveCost = gpucost.Money{Nanos: sc.effective[i], Currency: l.EffectiveCost.Currency}
		emit(&sc.out)
	}
	for i, o := range sc.owners {
		out(2*i, o.owner, false, o.charged, o.used)
		out(2*i+1, o.owner, true, o.held-o.charged, 0)
	}
	last := len(sc.weights) - 1
	base.Policy = gpucost.PolicyTags
	out(last, tags, false, capacity-held, 0)
}
