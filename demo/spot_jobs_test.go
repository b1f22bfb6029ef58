package demo

import (
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost/catalog"
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

// TestSpotInterruptionAlert checks the interruption rule on the demo at its End: in the last 6
// hours llm-finetune's pool ran 2 + 1.4 + 1.4 + 0.4 = 5.2 instance-hours and took 3 notices,
// 3 / 5.2 = 0.577 an hour, 3.46 expected per instance over 6 hours ≥ 25%. It names eval-sweep's
// pool (no interruption in 24 h: Garwood's upper bound 7.3778 / 48 = 0.154/h) and, from the
// advisor, g5.12xlarge in us-west-2 (<5%) to move to.
func TestSpotInterruptionAlert(t *testing.T) {
	l := Load{End: time.Date(2026, 11, 27, 13, 0, 0, 0, time.UTC), Days: 30}
	jobs := map[string][]spot.Event{}
	for _, ev := range l.SpotJobEvents() {
		jobs[ev.Job] = append(jobs[ev.Job], ev)
	}
	f, err := os.Open("../catalog/testdata/spot-advisor-data.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	adv, err := catalog.ParseSpotAdvisor(f, "fixture")
	if err != nil {
		t.Fatal(err)
	}
	alerts := spotrisk.CheckInterruptions(jobs, l.End, spotrisk.DefaultInterruptionRule, adv)
	if len(alerts) != 1 {
		t.Fatalf("CheckInterruptions(demo) = %d alerts, want 1: %+v", len(alerts), alerts)
	}
	a := alerts[0]
	if a.Pool.Zone != "us-east-1a" || a.Interruptions != 3 || math.Abs(a.Hours-5.2) > 1e-9 || math.Abs(a.PerHour-3/5.2) > 1e-12 || !slices.Equal(a.Jobs, []string{"llm-finetune"}) {
		t.Errorf("CheckInterruptions(demo) = %v: %d in %v h at %v, jobs %v; want us-east-1a: 3 in 5.2 h, llm-finetune", a.Pool, a.Interruptions, a.Hours, a.PerHour, a.Jobs)
	}
	var moves []string
	for _, m := range a.MoveTo {
		moves = append(moves, m.Pool.Region+"/"+m.Pool.Zone)
	}
	if want := []string{"us-west-2/", "us-east-1/us-east-1c"}; !slices.Equal(moves, want) {
		t.Errorf("CheckInterruptions(demo) moves to %v, want %v", moves, want)
	}
	// The same window under a rule that needs 4 interruptions does not fire.
	strict := spotrisk.DefaultInterruptionRule
	strict.MinInterruptions = 4
	if got := spotrisk.CheckInterruptions(jobs, l.End, strict, adv); len(got) != 0 {
		t.Errorf("CheckInterruptions(demo, at least 4) = %+v, want none", got)
	}
}
