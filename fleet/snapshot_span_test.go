package fleet

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestOverlappingLinesPriceTheirHours checks that each hour goes to the latest-starting line
// that holds it, however the rollups come: a month's line of machine a holds days 1–3, a
// day's line of the same machine day 2, and the rollups of two series come in runs, one of
// them split in two and its second run out of time order.
func TestOverlappingLinesPriceTheirHours(t *testing.T) {
	f := &fakeStore{}
	f.lines = append(f.lines, gpucost.CostLine{Provider: "AWS", ResourceID: "a", InstanceType: "gpu.x1", ChargeCategory: "Usage",
		ChargePeriodStart: day1, ChargePeriodEnd: day1.AddDate(0, 0, 30), ConsumedQuantity: 720, ConsumedUnit: "Hours",
		BilledCost: gpucost.USD(7200e9), EffectiveCost: gpucost.USD(7200e9)})
	f.line("a", day1.AddDate(0, 0, 1), 24, 480e9, nil)
	x := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-x", Host: "a", Model: "NVIDIA H100 80GB HBM3"}, Labels: gpucost.Labels{"namespace": "x"}}
	y := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-y", Host: "a", Model: "NVIDIA H100 80GB HBM3"}, Labels: gpucost.Labels{"namespace": "y"}}
	add := func(s *gpucost.Series, from, n int) {
		for h := from; h < from+n; h++ {
			f.rollups = append(f.rollups, gpucost.Rollup{Series: s, Start: day1.Add(time.Duration(h) * time.Hour), Width: time.Hour,
				Samples: 60, Coverage: 1<<60 - 1, UtilSum: 60 * 50})
		}
	}
	add(x, 0, 40) // day 1 and the first 16 hours of day 2
	add(y, 0, 72)
	add(x, 60, 12) // day 3's first 12 hours
	add(x, 40, 20) // the rest of day 2 and day 3's, late
	s := build(t, f, Period{Start: day1, End: day1.AddDate(0, 0, 3)})

	type key struct {
		ns   string
		line time.Time
	}
	got := map[key]float64{}
	for _, c := range s.Charges {
		if c.Kind == GPUTime && c.Line != nil {
			got[key{c.Series.Labels["namespace"], c.Line.Start()}] += unitHours(c.held)
		}
	}
	want := map[key]float64{{"x", day1}: 48, {"x", day1.AddDate(0, 0, 1)}: 24, {"y", day1}: 48, {"y", day1.AddDate(0, 0, 1)}: 24}
	if len(got) != len(want) {
		t.Errorf("charges by namespace and line = %v, want %v", got, want)
	}
	for k, h := range want {
		if got[k] != h {
			t.Errorf("GPU-hours of %s in the line from %s = %v, want %v", k.ns, k.line.Format(time.DateOnly), got[k], h)
		}
	}
	n := 0
	for _, c := range s.Charges {
		if c.Kind == GPUTime {
			n++
		}
	}
	if n != 4 {
		t.Errorf("%d GPUTime charges, want 4: one per series and line", n)
	}
	if charged, bill, ok := s.Reconcile(); !ok {
		t.Errorf("Reconcile() = %v, %v, false; want the charges to add up to the bill", charged, bill)
	}
}
