package fleet

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// fakeStore holds lines, hour rollups and inventory in memory.
type fakeStore struct {
	lines   []gpucost.CostLine
	rollups []gpucost.Rollup
	inv     []gpucost.InventoryEntry
}

func (f *fakeStore) ScanCosts(_ context.Context, flt gpucost.CostFilter, fn func(*gpucost.CostLine) error) error {
	for i := range f.lines {
		if l := &f.lines[i]; !l.ChargePeriodStart.Before(flt.From) && l.ChargePeriodStart.Before(flt.To) {
			if err := fn(l); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeStore) CostImports(context.Context) ([]gpucost.CostImport, error) {
	return []gpucost.CostImport{{ID: 1}}, nil
}

func (f *fakeStore) ScanRollups(_ context.Context, width time.Duration, flt gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error {
	for i := range f.rollups {
		if r := &f.rollups[i]; r.Width == width && !r.Start.Before(flt.From) && r.Start.Before(flt.To) {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *fakeStore) Inventory(context.Context) ([]gpucost.InventoryEntry, error) { return f.inv, nil }

// fakeCatalog knows one instance type, gpu.x1 (one H100), and prices every GPU-hour at $10.
type fakeCatalog struct{}

func (fakeCatalog) LineGPU(l *gpucost.CostLine) (catalog.LineGPU, bool) {
	if l.InstanceType != "gpu.x1" {
		return catalog.LineGPU{}, false
	}
	return catalog.LineGPU{Model: "H100-SXM", GPUs: 1, InstanceType: "gpu.x1"}, true
}

func (fakeCatalog) PricePerGPUHour(string, string) (gpucost.Money, gpucost.Offer, bool) {
	return gpucost.USD(10e9), gpucost.Offer{Provider: "aws", InstanceType: "gpu.x1", Region: "us-east-1"}, true
}

func (fakeCatalog) Offers() []gpucost.Offer { return nil }

var day1 = time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)

// hours adds n full hour rollups of one series from start at util percent.
func (f *fakeStore) hours(host string, labels gpucost.Labels, start time.Time, n int, util float64) {
	s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-" + host, Host: host, Model: "NVIDIA H100 80GB HBM3"}, Labels: labels}
	for i := range n {
		f.rollups = append(f.rollups, gpucost.Rollup{Series: s, Start: start.Add(time.Duration(i) * time.Hour), Width: time.Hour,
			Samples: 60, Coverage: 1<<60 - 1, UtilSum: 60 * util})
	}
}

// line adds a day's bill line of one gpu.x1 machine.
func (f *fakeStore) line(resource string, start time.Time, hours float64, cost int64, tags gpucost.Labels) {
	f.lines = append(f.lines, gpucost.CostLine{Provider: "AWS", ResourceID: resource, InstanceType: "gpu.x1", ChargeCategory: "Usage",
		ChargePeriodStart: start, ChargePeriodEnd: start.Add(24 * time.Hour), ConsumedQuantity: hours, ConsumedUnit: "Hours",
		BilledCost: gpucost.USD(cost), EffectiveCost: gpucost.USD(cost), Tags: tags})
}

// fleetOf is a fleet of three machines on 2026-11-01: a is billed and reports telemetry, b
// reports telemetry without a bill line, c is billed without telemetry; and a volume.
func fleetOf() *fakeStore {
	f := &fakeStore{}
	f.line("a", day1, 24, 240e9, gpucost.Labels{"team": "ml"})
	f.line("c", day1, 24, 120e9, gpucost.Labels{"team": "ops"})
	f.lines = append(f.lines, gpucost.CostLine{Provider: "AWS", ResourceID: "vol-1", ChargeCategory: "Usage", ChargePeriodStart: day1,
		ChargePeriodEnd: day1.Add(24 * time.Hour), BilledCost: gpucost.USD(5e9), EffectiveCost: gpucost.USD(5e9), Tags: gpucost.Labels{"team": "ml"}})
	f.hours("a", gpucost.Labels{"namespace": "train", "job": "j1"}, day1, 24, 25)
	f.hours("b", gpucost.Labels{"namespace": "research", "team": "res"}, day1, 10, 50)
	return f
}

func build(t *testing.T, f *fakeStore, p Period) *Snapshot {
	t.Helper()
	s, err := Build(context.Background(), f, fakeCatalog{}, Options{Period: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func byGroup(t *testing.T, s *Snapshot, by string, keep func(*Charge) bool) map[string]Figures {
	t.Helper()
	d, err := ParseDimension(by)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Figures{}
	for _, f := range s.Group(d, keep) {
		out[f.Group] = f
	}
	return out
}

func TestFigures(t *testing.T) {
	s := build(t, fleetOf(), Period{Start: day1, End: day1.Add(24 * time.Hour)})
	ns := byGroup(t, s, "namespace", GPUOnly)
	for _, c := range []struct {
		group                string
		gpuH, usedH, idleH   float64
		gpuCost, idleCost    int64
		source               Source
		perGPUH, perUsedGPUH int64
		idlePct, utilisation float64
	}{
		// a: $240 for 24 GPU-hours = $10/h; 6 h used of 24 held.
		{"train", 24, 6, 18, 240e9, 180e9, SourceBill, 10e9, 40e9, 75, 25},
		// b: no bill line: the catalog's $10/h for 10 h at 50%.
		{"research", 10, 5, 5, 100e9, 50e9, SourceCatalog, 10e9, 20e9, 50, 50},
		// c: billed, no telemetry: neither used nor idle.
		{"(no telemetry)", 24, 0, 0, 120e9, 0, SourceBill, 5e9, 0, 0, 0},
	} {
		f, ok := ns[c.group]
		if !ok {
			t.Errorf("Group(namespace) lacks %s: %v", c.group, ns)
			continue
		}
		if f.GPUHours() != c.gpuH || f.UsedGPUHours() != c.usedH || f.IdleGPUHours() != c.idleH {
			t.Errorf("%s: GPU-h %v used %v idle %v; want %v %v %v", c.group, f.GPUHours(), f.UsedGPUHours(), f.IdleGPUHours(), c.gpuH, c.usedH, c.idleH)
		}
		if f.GPUCost().Nanos != c.gpuCost || f.IdleCost.Nanos != c.idleCost || f.Source != c.source {
			t.Errorf("%s: GPU cost %v idle %v from %q; want %d %d from %q", c.group, f.GPUCost(), f.IdleCost, f.Source, c.gpuCost, c.idleCost, c.source)
		}
		if f.PerGPUHour().Nanos != c.perGPUH || f.PerUsedGPUHour().Nanos != c.perUsedGPUH {
			t.Errorf("%s: $/GPU-h %v $/used GPU-h %v; want %d %d", c.group, f.PerGPUHour(), f.PerUsedGPUHour(), c.perGPUH, c.perUsedGPUH)
		}
		if math.Abs(f.IdlePercent()-c.idlePct) > 1e-9 || math.Abs(f.Utilisation()-c.utilisation) > 1e-9 {
			t.Errorf("%s: idle %v%% utilisation %v%%; want %v %v", c.group, f.IdlePercent(), f.Utilisation(), c.idlePct, c.utilisation)
		}
		if got := f.UsedCost.Nanos + f.IdleCost.Nanos + f.NoTelemetryCost.Nanos; got != f.GPUCost().Nanos {
			t.Errorf("%s: used + idle + no telemetry = %d; GPU cost %v", c.group, got, f.GPUCost())
		}
	}
	fleet := s.Fleet(GPUOnly)
	if len(fleet) != 1 || fleet[0].GPUCost().Nanos != 460e9 || fleet[0].Source != SourceMixed {
		t.Errorf("Fleet(GPUOnly) = %+v; want one USD group of $460 from mixed prices", fleet)
	}
	if charged, bill, ok := s.Reconcile(); !ok || len(bill) != 1 || bill[0].Nanos != 365e9 {
		t.Errorf("Reconcile() = %v, %v, %v; want the bill's $365 (a, c and the volume)", charged, bill, ok)
	}
	// Teams: the series' label, else the bill's tag; idle stays with the team that held the GPU.
	teams := byGroup(t, s, "team", nil)
	if f := teams["ml"]; f.IdleCost.Nanos != 180e9 || f.OtherCost.Nanos != 5e9 || f.TotalCost().Nanos != 245e9 {
		t.Errorf("team ml = %+v; want $180 idle, the $5 volume, $245 in all", f)
	}
	if f := teams["res"]; f.GPUCost().Nanos != 100e9 {
		t.Errorf("team res = %v; want the catalog-priced $100", f.GPUCost())
	}
	if _, ok := byGroup(t, s, "job", GPUOnly)["(no job label)"]; !ok {
		t.Errorf("Group(job): b reports no job label; want a (no job label) row")
	}
}

// TestFiguresSplitExactly: odd amounts split between series to the nano-unit, however the hours fall.
func TestFiguresSplitExactly(t *testing.T) {
	f := &fakeStore{}
	f.line("a", day1, 24, 100000000001, nil)
	f.hours("a", gpucost.Labels{"namespace": "x"}, day1, 7, 33)
	f.hours("a", gpucost.Labels{"namespace": "y"}, day1.Add(7*time.Hour), 17, 71)
	s := build(t, f, Period{Start: day1, End: day1.Add(24 * time.Hour)})
	var sum int64
	for _, g := range byGroup(t, s, "namespace", nil) {
		sum += g.GPUCost().Nanos
		if g.UsedCost.Nanos+g.IdleCost.Nanos != g.GPUCost().Nanos {
			t.Errorf("%s: used %v + idle %v ≠ GPU cost %v", g.Group, g.UsedCost, g.IdleCost, g.GPUCost())
		}
	}
	if sum != 100000000001 {
		t.Errorf("the groups sum to %d nanos; want the line's 100000000001", sum)
	}
}

// TestLineBeforePeriodPrices: a period starting at noon prices its hours by the day's line,
// which is not the period's to count.
func TestLineBeforePeriodPrices(t *testing.T) {
	f := &fakeStore{}
	f.line("a", day1, 24, 240e9, nil)
	f.hours("a", nil, day1, 24, 0)
	s := build(t, f, Period{Start: day1.Add(12 * time.Hour), End: day1.Add(24 * time.Hour)})
	fl := s.Fleet(nil)
	if len(fl) != 1 || fl[0].GPUCost().Nanos != 120e9 || fl[0].Source != SourceBill || fl[0].GPUHours() != 12 {
		t.Errorf("Fleet = %+v; want 12 GPU-hours at the line's $10, priced by the bill", fl)
	}
	if _, bill, ok := s.Reconcile(); !ok || len(bill) != 0 {
		t.Errorf("Reconcile() = %v, %v; want no bill lines in the period", bill, ok)
	}
}

func TestParseDimension(t *testing.T) {
	for _, c := range []struct{ in, want string }{{"team", "team"}, {"gpu-model", "model"}, {"label:Team", "label:team"}, {"tag:cost-center", "tag:cost-center"}} {
		d, err := ParseDimension(c.in)
		if err != nil || d.String() != c.want {
			t.Errorf("ParseDimension(%q) = %v, %v; want %s", c.in, d, err, c.want)
		}
	}
	if _, err := ParseDimension("colour"); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("ParseDimension(colour) error %v; want EInvalid", err)
	}
}

// A group without a value for the dimension says what is missing: the label where telemetry
// covers the cost, telemetry where none does, the owner tag for tag dimensions.
func TestDimensionKey(t *testing.T) {
	series := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-1", Host: "h"}}
	used := &Charge{Kind: GPUTime, Series: series, Line: &Line{LineResource: &LineResource{}}}
	withJob := &Charge{Kind: GPUTime, Series: series, Owner: gpucost.Owner{Job: "train-7b"}}
	noTel := &Charge{Kind: NoTelemetry, Line: &Line{LineResource: &LineResource{}}}
	capacity := &Charge{Kind: GPUTime, idleCapacity: true, Line: &Line{LineResource: &LineResource{}}}
	catalogPriced := &Charge{Kind: GPUTime, Series: series}
	for _, tc := range []struct {
		by   string
		c    *Charge
		want string
	}{
		{"job", withJob, "train-7b"},
		{"job", used, "(no job label)"},
		{"namespace", used, "(no namespace label)"},
		{"label:team", used, "(no team label)"},
		{"job", noTel, "(no telemetry)"},
		{"host", noTel, "(no telemetry)"},
		{"namespace", capacity, "(idle capacity)"},
		{"team", used, "(untagged)"},
		{"tag:env", noTel, "(untagged)"},
		{"provider", noTel, "(none)"},
		{"provider", catalogPriced, "(not billed)"},
		{"host", catalogPriced, "h"},
		{"gpu", &Charge{Kind: GPUTime, Series: &gpucost.Series{}}, "(none)"},
	} {
		d, err := ParseDimension(tc.by)
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Key(tc.c); got != tc.want {
			t.Errorf("Dimension(%s).Key(kind %d) = %q, want %q", tc.by, tc.c.Kind, got, tc.want)
		}
	}
}

// Untagged lists the resources no owner claims: b's GPU time (its series names team res, but
// not project) and every line when asked for project.
func TestUntagged(t *testing.T) {
	s := build(t, fleetOf(), Period{Start: day1, End: day1.Add(24 * time.Hour)})
	list, all, none := s.Untagged("team", nil)
	if len(list) != 0 || all.Nanos != 465e9 || none.Nanos != 0 {
		t.Errorf("Untagged(team) = %d resources, %v of %v; want none of $465", len(list), none, all)
	}
	list, _, none = s.Untagged("project", nil)
	if len(list) != 4 || none.Nanos != 465e9 || list[0].ResourceID != "a" || list[0].SKUs[0].SKU != "(no SKU)" {
		t.Errorf("Untagged(project) = %+v, %v; want a, c, b and the volume, $465", list, none)
	}
}

// A bill names a machine in capitals, its telemetry in lower case: the line still prices it.
func TestHostCase(t *testing.T) {
	f := &fakeStore{}
	f.line("GPU-Node-1", day1, 24, 240e9, nil)
	f.hours("gpu-node-1", nil, day1, 24, 50)
	fl := build(t, f, Period{Start: day1, End: day1.Add(24 * time.Hour)}).Fleet(nil)
	if len(fl) != 1 || fl[0].Source != SourceBill || fl[0].GPUCost().Nanos != 240e9 || fl[0].NoTelemetryGPUHours() != 0 {
		t.Errorf("Fleet = %+v; want the line's $240 on the telemetry's 24 hours", fl)
	}
}
