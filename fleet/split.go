package fleet

import (
	"context"
	"errors"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
)

// SplitOptions say how to split a period's bill.
type SplitOptions struct {
	Period  Period
	GPUOnly bool
	Policy  string              // gpucost.PolicyRequested, PolicyUsed or PolicyWeighted
	Weight  float64             // under PolicyWeighted, the share split by held time
	TagKeys map[string][]string // nil: analyze.DefaultTagKeys
}

// NewSplit reads what splitting the period's bill needs: the inventory and whether there is
// telemetry in the period. It returns an EInvalid error for a bad policy or weight.
func NewSplit(ctx context.Context, st Store, cat Catalog, o SplitOptions) (*Split, error) {
	keys := o.TagKeys
	if keys == nil {
		keys = analyze.DefaultTagKeys()
	}
	alloc, err := analyze.NewAllocator(analyze.AllocOptions{Policy: o.Policy, Weight: o.Weight, TagKeys: keys,
		IdleByHolder: true}) // under PolicyUsed, idle is the holder's, as in the Snapshot
	if err != nil {
		return nil, err
	}
	s := &Split{store: st, cat: cat, Period: o.Period, GPUOnly: o.GPUOnly, Policy: o.Policy, alloc: alloc,
		owners: analyze.TagOwners{Keys: keys},
		hosts:  map[string]bool{}, inventory: map[string]gpucost.InventoryEntry{}, invHosts: map[string][]string{}, gpuRes: map[string]bool{}}
	if err := s.load(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// Split walks the stored bill of a period and turns every line into allocations by a policy
// (report cost --policy requested|weighted, export --allocated, the recommender's fleet): GPU usage
// with telemetry split by use across its users with idle capacity apart, everything else
// charged whole to the owner its tags name.
type Split struct {
	Period  Period
	GPUOnly bool   // only GPU lines and the other lines of their resources
	Policy  string // gpucost.PolicyRequested, PolicyUsed or PolicyWeighted

	store Store
	cat   Catalog
	alloc *analyze.Allocator

	hosts     map[string]bool                   // hosts with telemetry in the period
	inventory map[string]gpucost.InventoryEntry // by resource id
	invHosts  map[string][]string               // resource id → hosts
	invTags   bool                              // some inventory entry has tags
	gpuRes    map[string]bool                   // resources with a GPU line
	Telemetry bool                              // the store has rollups in the period

	Stats  SplitStats
	OnLine func() // called after each line's allocations, if set

	owners  analyze.TagOwners
	gpus    [8]lineGPU // the last lines' GPUs: bills repeat a few instance types
	nextGPU int
}

type lineGPU struct {
	instanceType, description string
	gpu                       catalog.LineGPU
	ok, used                  bool
}

// lineGPU is s.cat.LineGPU, remembering the last few answers. The strings of stored lines are
// shared between lines, so comparing them is mostly comparing pointers.
func (s *Split) lineGPU(l *gpucost.CostLine) (catalog.LineGPU, bool) {
	for i := range s.gpus {
		if c := &s.gpus[i]; c.used && c.instanceType == l.InstanceType && c.description == l.ChargeDescription {
			return c.gpu, c.ok
		}
	}
	g, ok := s.cat.LineGPU(l)
	s.gpus[s.nextGPU] = lineGPU{l.InstanceType, l.ChargeDescription, g, ok, true}
	s.nextGPU = (s.nextGPU + 1) % len(s.gpus)
	return g, ok
}

// SplitStats says what a scan covered, for the reports' reconciliation notes.
type SplitStats struct {
	Lines     int                `json:"lines"`
	GPULines  int                `json:"gpu_lines"`
	Matched   int                `json:"gpu_lines_with_telemetry"`
	Unmatched map[string]bool    `json:"-"` // GPU resources without telemetry
	Totals    gpucost.CostTotals `json:"-"` // of the lines scanned
	Allocated gpucost.CostTotals `json:"-"` // of the allocations made
	Imports   int                `json:"imports"`
}

func (s *Split) load(ctx context.Context) (err error) {
	inv, err := s.store.Inventory(ctx)
	if err != nil {
		return err
	}
	for _, ent := range inv {
		s.inventory[ent.ResourceID] = ent
		s.invTags = s.invTags || len(ent.Tags) > 0
		s.invHosts[ent.ResourceID] = append(s.invHosts[ent.ResourceID], ent.Host)
	}
	imports, err := s.store.CostImports(ctx)
	if err != nil {
		return err
	}
	s.Stats.Imports = len(imports)
	err = s.store.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{From: s.Period.Start.Add(-time.Hour), To: s.Period.End}, func(*gpucost.Rollup) error {
		s.Telemetry = true
		return errStop
	})
	if err != nil && err != errStop {
		return err
	}
	if !s.GPUOnly {
		return nil
	}
	// A first pass finds the resources that have GPU lines, so --gpu-only keeps their other lines
	// (a GCP VM's cores and memory, billed apart from its GPUs).
	return s.store.ScanCosts(ctx, s.filter(), func(l *gpucost.CostLine) error {
		if _, ok := s.lineGPU(l); ok && l.ResourceID != "" && !s.gpuRes[l.ResourceID] {
			s.gpuRes[l.ResourceID] = true
		}
		return nil
	})
}

// errStop stops a scan early.
var errStop = errors.New("stop")

func (s *Split) filter() gpucost.CostFilter {
	// Lines are stored by charge period start; a monthly line that started before the period
	// is left out, as every report says.
	return s.Period.Lines(s.Period.Start, s.Period.End)
}

// telemetryWindow is how much telemetry the allocator holds at once: a week of a 10,000-GPU
// fleet's hourly rollups is 1.7 M, about 90 MB.
const telemetryWindow = 7 * 24 * time.Hour

// loadTelemetry gives the allocator the hourly rollups of [from, to), and an hour before so a
// day's first hour is complete whatever the rollups' alignment.
func (s *Split) loadTelemetry(ctx context.Context, from, to time.Time) error {
	s.alloc.Reset()
	clear(s.hosts)
	return s.store.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{From: from.Add(-time.Hour), To: to}, func(r *gpucost.Rollup) error {
		s.hosts[r.Series.GPU.Host] = true
		s.alloc.AddRollup(r)
		return nil
	})
}

// each calls fn with every allocation of the period's lines, and the GPU the line pays for. It
// fails if the allocations do not add up to the lines to the nano-unit.
func (s *Split) Each(ctx context.Context, fn func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool)) error {
	s.Stats.Totals, s.Stats.Allocated = gpucost.CostTotals{}, gpucost.CostTotals{}
	s.Stats.Unmatched = map[string]bool{}
	if err := s.scan(ctx, fn); err != nil {
		return err
	}
	if s.Stats.Lines == 0 {
		return NoLines(ctx, s.store, s.Period, s.Stats.Imports)
	}
	if !slices.Equal(s.Stats.Totals.Sorted(), s.Stats.Allocated.Sorted()) {
		return gpucost.Errorf(gpucost.EInternal, "allocating: allocations sum to %v, the lines to %v", s.Stats.Allocated.Sorted(), s.Stats.Totals.Sorted())
	}
	return nil
}

// scan allocates the lines of the period, a week at a time where there is telemetry, so the
// allocator holds one week of it.
func (s *Split) scan(ctx context.Context, fn func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool)) error {
	if !s.Telemetry {
		return s.scanLines(ctx, s.filter(), fn)
	}
	for from := s.Period.Start; from.Before(s.Period.End); from = from.Add(telemetryWindow) {
		to := from.Add(telemetryWindow)
		if to.After(s.Period.End) {
			to = s.Period.End
		}
		if err := s.loadTelemetry(ctx, from, to); err != nil {
			return err
		}
		if err := s.scanLines(ctx, s.Period.Lines(from, to), fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *Split) scanLines(ctx context.Context, f gpucost.CostFilter, fn func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool)) error {
	return s.store.ScanCosts(ctx, f, func(l *gpucost.CostLine) error {
		l = s.withInventoryTags(l)
		gpu, isGPU := s.lineGPU(l)
		if s.GPUOnly && !isGPU && !s.gpuRes[l.ResourceID] {
			return nil
		}
		s.Stats.Lines++
		s.Stats.Totals.Add(l.BilledCost, l.EffectiveCost)
		emit := func(a *gpucost.Allocation) {
			s.Stats.Allocated.Add(a.BilledCost, a.EffectiveCost)
			fn(a, gpu, isGPU)
		}
		if s.OnLine != nil {
			defer s.OnLine()
		}
		if !isGPU || l.ChargeCategory != "Usage" {
			s.whole(l, emit)
			return nil
		}
		s.Stats.GPULines++
		if !s.Telemetry { // the allocator charges the line to its tags, counting its GPU-hours
			s.alloc.Allocate(l, analyze.Resource{GPUs: max(1, int(gpu.GPUs))}, emit)
			return nil
		}
		st := s.alloc.Allocate(l, s.resource(l, gpu), emit)
		if st.Matched {
			s.Stats.Matched++
		} else if !s.Stats.Unmatched[l.ResourceID] {
			s.Stats.Unmatched[l.ResourceID] = true
		}
		return nil
	})
}

// withInventoryTags returns l with the inventory's tags for its resource under its own.
func (s *Split) withInventoryTags(l *gpucost.CostLine) *gpucost.CostLine {
	if !s.invTags {
		return l
	}
	ent, ok := s.inventory[l.ResourceID]
	if !ok || len(ent.Tags) == 0 {
		return l
	}
	c := *l
	c.Tags = mergeLabels(ent.Tags, l.Tags)
	return &c
}

// whole charges a line to the owner its tags name.
func (s *Split) whole(l *gpucost.CostLine, emit func(*gpucost.Allocation)) {
	emit(&gpucost.Allocation{Start: l.ChargePeriodStart, End: l.ChargePeriodEnd, ResourceID: l.ResourceID, Line: l,
		Owner: s.owners.Of(l.Tags), Policy: gpucost.PolicyTags,
		BilledCost: l.BilledCost, EffectiveCost: l.EffectiveCost})
}

// resource names the telemetry hosts that are a billed resource: the inventory's, and any host
// named like the resource id, its last path segment (ARNs, Azure and GCP resource paths) or
// its name.
func (s *Split) resource(l *gpucost.CostLine, gpu catalog.LineGPU) analyze.Resource {
	res := analyze.Resource{Hosts: s.invHosts[l.ResourceID], GPUs: int(gpu.GPUs)}
	if ent, ok := s.inventory[l.ResourceID]; ok && ent.GPUs > 0 {
		res.GPUs = ent.GPUs
	}
	if gpu.GPUs > 0 && gpu.GPUs < 1 {
		res.GPUs = 1 // a fraction of a GPU: one GPU's capacity, shared with others
	}
	for _, name := range []string{l.ResourceID, path.Base(l.ResourceID), l.ResourceName} {
		if name != "" && s.hosts[name] && !slices.ContainsFunc(res.Hosts, func(h string) bool { return strings.EqualFold(h, name) }) {
			res.Hosts = append(res.Hosts, name)
		}
	}
	return res
}
