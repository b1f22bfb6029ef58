package main

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
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

// costFlags are the flags of the reports over stored bills.
type costFlags struct {
	period
	gpuOnly bool
	policy  string
	weight  float64
	tagKeys string

	lookback time.Duration // read this much before the period too (baselines)
}

func (f *costFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.since, "since", "30d", "how far back: 30d, 90d, 365d")
	cmd.Flags().StringVar(&f.until, "until", "", "end of the period (RFC 3339; default now)")
	cmd.Flags().BoolVar(&f.gpuOnly, "gpu-only", false, "only GPU spend: GPU instances and GPU SKUs, and the other lines of the same resources")
	cmd.Flags().StringVar(&f.policy, "policy", gpucost.PolicyUsed, "how a GPU's cost is split between its users: used (held time × utilisation), requested (held time) or weighted")
	cmd.Flags().Float64Var(&f.weight, "weight", 0.5, "with --policy weighted: the share split by held time; the rest goes by used time")
	cmd.Flags().StringVar(&f.tagKeys, "tag-keys", "", `tag keys that name owners, tried in order: "team=team,Team,user:team;project=project,Project"`)
}

// costScan walks the stored bill of a period and turns every line into allocations: GPU usage
// with telemetry split by use across its users with idle capacity apart, everything else
// charged whole to the owner its tags name.
type costScan struct {
	db       storeDB
	cat      *catalog.Catalog
	from, to time.Time
	gpuOnly  bool
	policy   string
	alloc    *analyze.Allocator

	hosts     map[string]bool                   // hosts with telemetry in the period
	inventory map[string]gpucost.InventoryEntry // by resource id
	invHosts  map[string][]string               // resource id → hosts
	invTags   bool                              // some inventory entry has tags
	gpuRes    map[string]bool                   // resources with a GPU line
	telemetry bool                              // the store has rollups in the period

	stats  scanStats
	onLine func() // called after each line's allocations, if set

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
func (s *costScan) lineGPU(l *gpucost.CostLine) (catalog.LineGPU, bool) {
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

// scanStats says what a scan covered, for the reports' reconciliation notes.
type scanStats struct {
	Lines     int                `json:"lines"`
	GPULines  int                `json:"gpu_lines"`
	Matched   int                `json:"gpu_lines_with_telemetry"`
	Unmatched map[string]bool    `json:"-"` // GPU resources without telemetry
	Totals    gpucost.CostTotals `json:"-"` // of the lines scanned
	Allocated gpucost.CostTotals `json:"-"` // of the allocations made
	Imports   int                `json:"imports"`
}

// open opens the store and reads what allocation needs: the catalog, the inventory and whether
// there is telemetry in the period.
func (f *costFlags) open(ctx context.Context, e *env) (*costScan, error) {
	if err := e.validOutput(); err != nil {
		return nil, err
	}
	from, to, err := f.resolve(e.now())
	if err != nil {
		return nil, err
	}
	// Bills are stored by day: a period starts at the midnight (UTC) of its first day.
	from = from.Add(-f.lookback).Truncate(24 * time.Hour)
	keys := analyze.DefaultTagKeys()
	if f.tagKeys != "" {
		if keys, err = analyze.ParseTagKeys(f.tagKeys); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--tag-keys: %w", err)
		}
	}
	alloc, err := analyze.NewAllocator(analyze.AllocOptions{Policy: f.policy, Weight: f.weight, TagKeys: keys})
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--policy %s: %w", f.policy, err)
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return nil, err
	}
	s := &costScan{db: db, from: from, to: to, gpuOnly: f.gpuOnly, policy: f.policy, alloc: alloc,
		owners: analyze.TagOwners{Keys: keys},
		hosts:  map[string]bool{}, inventory: map[string]gpucost.InventoryEntry{}, invHosts: map[string][]string{}, gpuRes: map[string]bool{}}
	if err := s.load(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

func (s *costScan) Close() error { return s.db.Close() }

func (s *costScan) load(ctx context.Context) (err error) {
	if s.cat, err = catalog.Load(ctx, s.db); err != nil {
		return err
	}
	inv, err := s.db.Inventory(ctx)
	if err != nil {
		return err
	}
	for _, ent := range inv {
		s.inventory[ent.ResourceID] = ent
		s.invTags = s.invTags || len(ent.Tags) > 0
		s.invHosts[ent.ResourceID] = append(s.invHosts[ent.ResourceID], ent.Host)
	}
	imports, err := s.db.CostImports(ctx)
	if err != nil {
		return err
	}
	s.stats.Imports = len(imports)
	err = s.db.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{From: s.from.Add(-time.Hour), To: s.to}, func(*gpucost.Rollup) error {
		s.telemetry = true
		return errStop
	})
	if err != nil && err != errStop {
		return err
	}
	if !s.gpuOnly {
		return nil
	}
	// A first pass finds the resources that have GPU lines, so --gpu-only keeps their other lines
	// (a GCP VM's cores and memory, billed apart from its GPUs).
	return s.db.ScanCosts(ctx, s.filter(), func(l *gpucost.CostLine) error {
		if _, ok := s.lineGPU(l); ok && l.ResourceID != "" && !s.gpuRes[l.ResourceID] {
			s.gpuRes[l.ResourceID] = true
		}
		return nil
	})
}

// errStop stops a scan early.
var errStop = errors.New("stop")

func (s *costScan) filter() gpucost.CostFilter {
	// Lines are stored by charge period start; a monthly line that started before the period
	// is left out, as every report says.
	return gpucost.CostFilter{From: s.from, To: s.to}
}

// telemetryWindow is how much telemetry the allocator holds at once: a week of a 10,000-GPU
// fleet's hourly rollups is 1.7 M, about 90 MB.
const telemetryWindow = 7 * 24 * time.Hour

// loadTelemetry gives the allocator the hourly rollups of [from, to), and an hour before so a
// day's first hour is complete whatever the rollups' alignment.
func (s *costScan) loadTelemetry(ctx context.Context, from, to time.Time) error {
	s.alloc.Reset()
	clear(s.hosts)
	return s.db.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{From: from.Add(-time.Hour), To: to}, func(r *gpucost.Rollup) error {
		s.hosts[r.Series.GPU.Host] = true
		s.alloc.AddRollup(r)
		return nil
	})
}

// each calls fn with every allocation of the period's lines, and the GPU the line pays for. It
// fails if the allocations do not add up to the lines to the nano-unit.
func (s *costScan) each(ctx context.Context, fn func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool)) error {
	s.stats.Totals, s.stats.Allocated = gpucost.CostTotals{}, gpucost.CostTotals{}
	s.stats.Unmatched = map[string]bool{}
	if err := s.scan(ctx, fn); err != nil {
		return err
	}
	if s.stats.Lines == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "no bill lines from %s to %s (%d imports in the store): import bills with gpucost import billing, or widen --since",
			s.from.Format(time.DateOnly), s.to.Format(time.DateOnly), s.stats.Imports)
	}
	if !slices.Equal(s.stats.Totals.Sorted(), s.stats.Allocated.Sorted()) {
		return gpucost.Errorf(gpucost.EInternal, "allocating: allocations sum to %v, the lines to %v", s.stats.Allocated.Sorted(), s.stats.Totals.Sorted())
	}
	return nil
}

// scan allocates the lines of the period, a week at a time where there is telemetry, so the
// allocator holds one week of it.
func (s *costScan) scan(ctx context.Context, fn func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool)) error {
	if !s.telemetry {
		return s.scanLines(ctx, s.filter(), fn)
	}
	for from := s.from; from.Before(s.to); from = from.Add(telemetryWindow) {
		to := from.Add(telemetryWindow)
		if to.After(s.to) {
			to = s.to
		}
		if err := s.loadTelemetry(ctx, from, to); err != nil {
			return err
		}
		if err := s.scanLines(ctx, gpucost.CostFilter{From: from, To: to}, fn); err != nil {
			return err
		}
	}
	return nil
}

func (s *costScan) scanLines(ctx context.Context, f gpucost.CostFilter, fn func(a *gpucost.Allocation, gpu catalog.LineGPU, isGPU bool)) error {
	return s.db.ScanCosts(ctx, f, func(l *gpucost.CostLine) error {
		l = s.withInventoryTags(l)
		gpu, isGPU := s.lineGPU(l)
		if s.gpuOnly && !isGPU && !s.gpuRes[l.ResourceID] {
			return nil
		}
		s.stats.Lines++
		s.stats.Totals.Add(l.BilledCost, l.EffectiveCost)
		emit := func(a *gpucost.Allocation) {
			s.stats.Allocated.Add(a.BilledCost, a.EffectiveCost)
			fn(a, gpu, isGPU)
		}
		if s.onLine != nil {
			defer s.onLine()
		}
		if !isGPU || l.ChargeCategory != "Usage" {
			s.whole(l, emit)
			return nil
		}
		s.stats.GPULines++
		if !s.telemetry { // the allocator charges the line to its tags, counting its GPU-hours
			s.alloc.Allocate(l, analyze.Resource{GPUs: max(1, int(gpu.GPUs))}, emit)
			return nil
		}
		st := s.alloc.Allocate(l, s.resource(l, gpu), emit)
		if st.Matched {
			s.stats.Matched++
		} else if !s.stats.Unmatched[l.ResourceID] {
			s.stats.Unmatched[l.ResourceID] = true
		}
		return nil
	})
}

// withInventoryTags returns l with the inventory's tags for its resource under its own.
func (s *costScan) withInventoryTags(l *gpucost.CostLine) *gpucost.CostLine {
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
func (s *costScan) whole(l *gpucost.CostLine, emit func(*gpucost.Allocation)) {
	emit(&gpucost.Allocation{Start: l.ChargePeriodStart, End: l.ChargePeriodEnd, ResourceID: l.ResourceID, Line: l,
		Owner: s.owners.Of(l.Tags), Policy: gpucost.PolicyTags,
		BilledCost: l.BilledCost, EffectiveCost: l.EffectiveCost})
}

// resource names the telemetry hosts that are a billed resource: the inventory's, and any host
// named like the resource id, its last path segment (ARNs, Azure and GCP resource paths) or
// its name.
func (s *costScan) resource(l *gpucost.CostLine, gpu catalog.LineGPU) analyze.Resource {
	res := analyze.Resource{Hosts: s.invHosts[l.ResourceID], GPUs: int(gpu.GPUs)}
	if ent, ok := s.inventory[l.ResourceID]; ok && ent.GPUs > 0 {
		res.GPUs = ent.GPUs
	}
	if gpu.GPUs > 0 && gpu.GPUs < 1 {
		res.GPUs = 1 // a fraction of a GPU: one GPU's capacity, shared with others
	}
	for _, name := range []string{l.ResourceID, path.Base(l.ResourceID), l.ResourceName} {
		if name != "" && s.hosts[name] && !containsString(res.Hosts, name) {
			res.Hosts = append(res.Hosts, name)
		}
	}
	return res
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

func mergeLabels(base, over gpucost.Labels) gpucost.Labels {
	out := make(gpucost.Labels, len(base)+len(over))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// snapshot resolves the flags' period (from the midnight, UTC, of its first day: bills are
// stored by day) and builds its fleet snapshot. It returns an ENotFound error when the store
// holds no bill line in the period.
func (f *costFlags) snapshot(ctx context.Context, e *env) (*fleet.Snapshot, error) {
	if err := e.validOutput(); err != nil {
		return nil, err
	}
	from, to, err := f.resolve(e.now())
	if err != nil {
		return nil, err
	}
	p, err := fleet.NewPeriod(from.Add(-f.lookback).Truncate(24*time.Hour), to)
	if err != nil {
		return nil, err
	}
	var keys map[string][]string
	if f.tagKeys != "" {
		if keys, err = analyze.ParseTagKeys(f.tagKeys); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--tag-keys: %w", err)
		}
	}
	rc, err := e.openReport(ctx, p, "aws")
	if err != nil {
		return nil, err
	}
	defer rc.close()
	s, err := fleet.Build(ctx, rc.db, rc.cat, fleet.Options{Period: p, Provider: rc.provider, TagKeys: keys})
	if err != nil {
		return nil, err
	}
	if s.Stats.Lines == 0 {
		return nil, gpucost.Errorf(gpucost.ENotFound, "no bill lines from %s to %s (%d imports in the store): import bills with gpucost import billing, or widen --since",
			p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly), s.Stats.Imports)
	}
	if _, _, ok := s.Reconcile(); !ok {
		charged, bill, _ := s.Reconcile()
		return nil, gpucost.Errorf(gpucost.EInternal, "pricing GPU-hours: the charges sum to %v, the bill lines to %v", charged, bill)
	}
	return s, nil
}
