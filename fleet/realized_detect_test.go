package fleet

import (
	"context"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/recommend"
)

// twoTypes knows gpu.x1 and gpu.y1, one GPU each.
type twoTypes struct{ fakeCatalog }

func (twoTypes) LineGPU(l *gpucost.CostLine) (catalog.LineGPU, bool) {
	if l.InstanceType != "gpu.x1" && l.InstanceType != "gpu.y1" {
		return catalog.LineGPU{}, false
	}
	return catalog.LineGPU{Model: "H100-SXM", GPUs: 1, InstanceType: l.InstanceType}, true
}

// changingFleet is 20 days from day1: namespace research moves from machine a (gpu.x1) to a2
// (gpu.y1) on day 11; namespace serving's machine b goes to spot on day 13; namespace train
// stays as it was.
func changingFleet() *fakeStore {
	f := &fakeStore{}
	for d := range 20 {
		start := day1.AddDate(0, 0, d)
		if d < 10 {
			f.line("a", start, 24, 240e9, nil)
		} else {
			f.line("a2", start, 24, 80e9, nil)
			f.lines[len(f.lines)-1].InstanceType = "gpu.y1"
		}
		f.line("b", start, 24, 300e9, nil)
		if d >= 12 {
			f.lines[len(f.lines)-1].PricingCategory = "Dynamic"
		}
		f.line("t", start, 24, 200e9, nil)
	}
	f.hours("a", gpucost.Labels{"namespace": "research"}, day1, 10*24, 50)
	f.hours("a2", gpucost.Labels{"namespace": "research"}, day1.AddDate(0, 0, 10), 10*24, 50)
	f.hours("b", gpucost.Labels{"namespace": "serving"}, day1, 20*24, 30)
	f.hours("t", gpucost.Labels{"namespace": "train"}, day1, 20*24, 90)
	return f
}

func TestDetectChanges(t *testing.T) {
	snap, err := Build(context.Background(), changingFleet(), twoTypes{}, Options{Period: Period{Start: day1, End: day1.AddDate(0, 0, 20)}})
	if err != nil {
		t.Fatal(err)
	}
	got := snap.DetectChanges()
	want := []DetectedChange{
		{Namespace: "research", Provider: "aws", Kind: ChangeInstanceType, From: "gpu.x1", To: "gpu.y1", At: day1.AddDate(0, 0, 10),
			How: "detected: instance type changed gpu.x1→gpu.y1"},
		{Namespace: "serving", Provider: "aws", Kind: ChangeSpot, From: "on-demand", To: "spot", At: day1.AddDate(0, 0, 12),
			How: "detected: pricing became spot"},
	}
	if len(got) != len(want) {
		t.Fatalf("DetectChanges() = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("DetectChanges()[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}

	// The plan before the change names the steps the changes made.
	v := recommend.FleetView{Resources: []recommend.Resource{
		{ID: "a", Provider: "aws", InstanceType: "gpu.x1", Namespace: "research"},
		{ID: "b", Provider: "aws", InstanceType: "gpu.x1", Namespace: "serving"},
	}}
	p := recommend.Plan{Groups: []recommend.PlanGroup{
		{ID: "research-gpu.x1", Resources: []string{"a"}, Steps: []recommend.PlanStep{
			{ID: "research-gpu.x1/right-sizing/gpu.z1", Lever: recommend.LeverRightSizing},
			{ID: "research-gpu.x1/right-sizing/gpu.y1", Lever: recommend.LeverRightSizing}}},
		{ID: "serving-gpu.x1", Resources: []string{"b"}, Steps: []recommend.PlanStep{
			{ID: "serving-gpu.x1/autoscaling/autoscale", Lever: recommend.LeverAutoscaling},
			{ID: "serving-gpu.x1/spot/spot", Lever: recommend.LeverSpot}}},
	}}
	for i, wantID := range []string{"research-gpu.x1/right-sizing/gpu.y1", "serving-gpu.x1/spot/spot"} {
		if s, ok := got[i].Step(p, v); !ok || s.ID != wantID {
			t.Errorf("%s change: Step() = %q, %v; want %q", got[i].Namespace, s.ID, ok, wantID)
		}
	}
	other := got[0]
	other.To = "gpu.w1"
	if s, ok := other.Step(p, v); ok {
		t.Errorf("a change to gpu.w1: Step() = %q, want none", s.ID)
	}
}
