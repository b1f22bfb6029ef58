package demo

import (
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spotrisk"
)

// TestSpotJobRates checks the demo's pools against the runs spotJobs lists, summed by hand.
func TestSpotJobRates(t *testing.T) {
	l := Load{End: time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC), Days: 30}
	byJob := map[string][]spot.Event{}
	for _, ev := range l.SpotJobEvents() {
		byJob[ev.Job] = append(byJob[ev.Job], ev)
	}
	var exps []spotrisk.Exposure
	for job, evs := range byJob {
		exps = append(exps, spotrisk.FromEvents(job, evs)...)
	}
	want := map[string]struct {
		hours float64
		k     int
	}{
		"us-east-1a g5.12xlarge": {12 + 18 + 10 + 2 + 1.4 + 1.4 + 0.4, 6},
		"us-east-1c g5.12xlarge": {12 + 12, 0},
		"us-east-1b g6e.2xlarge": {20 + 20, 1},
	}
	rates := spotrisk.Measure(exps, spotrisk.DefaultConfidence)
	if len(rates) != len(want) {
		t.Fatalf("Measure(demo) = %d pools, want %d", len(rates), len(want))
	}
	for _, r := range rates {
		w, ok := want[r.Pool.Zone+" "+r.Pool.InstanceType]
		if !ok || math.Abs(r.Hours-w.hours) > 1e-9 || r.Interruptions != w.k || math.Abs(r.PerHour-float64(w.k)/w.hours) > 1e-12 {
			t.Errorf("Measure(demo) %v = %v h, %d interruptions, %v/h; want %v h, %d", r.Pool, r.Hours, r.Interruptions, r.PerHour, w.hours, w.k)
		}
		if !r.Priced || r.Saving.Nanos <= 0 {
			t.Errorf("Measure(demo) %v: priced %v, saving %v; want a positive saving", r.Pool, r.Priced, r.Saving)
		}
	}
}
