package fleet

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

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

// replicas bills namespace ns's machines ns-0 … ns-(n(d)−1), gpu.x1 at $100 for a whole day,
// on each day d of days from day1, hours(d) hours long, and adds their telemetry over those
// hours, machine m at util(m) percent.
func replicas(f *fakeStore, ns string, days int, n, hours func(d int) int, util func(m int) float64) {
	for d := range days {
		start := day1.AddDate(0, 0, d)
		for m := range n(d) {
			host := fmt.Sprintf("%s-%d", ns, m)
			h := hours(d)
			f.line(host, start, float64(h), int64(h)*100e9/24, nil)
			f.hours(host, gpucost.Labels{"namespace": ns}, start, h, util(m))
		}
	}
}

func fullDays(int) int { return 24 }
func busy(int) float64 { return 60 }
func detected(f *fakeStore, days int) []DetectedChange {
	snap, err := Build(context.Background(), f, twoTypes{}, Options{Period: Period{Start: day1, End: day1.AddDate(0, 0, days)}})
	if err != nil {
		panic(err)
	}
	return snap.DetectChanges()
}

// The serving namespace runs 4 machines, then 3 from day 11; the released one did no work.
// The fall is detected, names the plan's release step of the group the machines were in, and
// the realized saving is measured to the cent.
func TestDetectFewerGPUs(t *testing.T) {
	f := &fakeStore{}
	replicas(f, "serving", 21, func(d int) int { return 4 - b2i(d >= 10) }, fullDays, func(m int) float64 { return 60 * float64(b2i(m < 3)) })
	got := detected(f, 21)
	at := day1.AddDate(0, 0, 10)
	want := DetectedChange{Namespace: "serving", Provider: "aws", Kind: ChangeFewerGPUs, From: "4", To: "3", At: at, InstanceTypes: "gpu.x1",
		How: "detected: fewer GPUs billed, 4→3 a day on average"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("DetectChanges() = %+v, want [%+v]", got, want)
	}

	v := recommend.FleetView{Resources: []recommend.Resource{
		{ID: "serving-0", Provider: "aws", InstanceType: "gpu.x1", Namespace: "serving"},
		{ID: "z", Provider: "aws", InstanceType: "gpu.z1", Namespace: "serving"},
	}}
	p := recommend.Plan{Groups: []recommend.PlanGroup{
		{ID: "serving-gpu.z1", Resources: []string{"z"}, Steps: []recommend.PlanStep{
			{ID: "serving-gpu.z1/right-sizing/release-on-exit", Lever: recommend.LeverRightSizing}}},
		{ID: "serving-gpu.x1", Resources: []string{"serving-0"}, Steps: []recommend.PlanStep{
			{ID: "serving-gpu.x1/right-sizing/gpu.y1", Lever: recommend.LeverRightSizing},
			{ID: "serving-gpu.x1/autoscaling/autoscale", Lever: recommend.LeverAutoscaling},
			{ID: "serving-gpu.x1/commitments/commit-gpu.x1", Lever: recommend.LeverCommitments}}},
	}}
	if s, ok := got[0].Step(p, v); !ok || s.ID != "serving-gpu.x1/autoscaling/autoscale" {
		t.Errorf("Step() = %q, %v; want serving-gpu.x1/autoscaling/autoscale", s.ID, ok)
	}

	// By hand: 10 days before at $400 a day over 3 machines × 24 h × 60% = 43.2 used GPU-hours
	// a day, so $9.259… a used GPU-hour; each of the 11 days after does the same work for $300:
	// ($400 − $300) × 730/24 = $3,041.67 a month, every day alike.
	end := day1.AddDate(0, 0, 21)
	step := appliedAt("serving-gpu.x1/autoscaling/autoscale", "serving", nil, at, 3000e9)
	r := realizedSnapshot(t, f, []gpucost.AppliedStep{step}, end).Realized([]gpucost.AppliedStep{step}, end).Steps[0]
	if r.Status != RealizedMeasured || r.Basis != PerUsedGPUHour || r.BeforeDays != 10 || r.Days != 11 {
		t.Fatalf("Realized() = %s %s, %d before days, %d after; want measured per used GPU-hour, 10, 11 (%s)", r.Status, r.Basis, r.BeforeDays, r.Days, r.Note)
	}
	for _, c := range []struct {
		name string
		got  gpucost.Money
		want string
	}{
		{"Realized", r.Realized, "3041.67"}, {"Low", r.Low, "3041.67"}, {"High", r.High, "3041.67"},
		{"BeforeCost", r.BeforeCost, "4000.00"}, {"AfterCost", r.AfterCost, "3300.00"}, {"BeforeRate", r.BeforeRate, "9.26"}, {"AfterRate", r.AfterRate, "6.94"},
	} {
		if cents(c.got) != c.want {
			t.Errorf("%s = %s, want %s", c.name, cents(c.got), c.want)
		}
	}
}

// From day 13 a savings plan covers 16 of the research machine's 24 hours a day: its lines
// that day are a Standard one and a Committed one, $150 together instead of $240.
func TestDetectCommitment(t *testing.T) {
	const sp = "arn:aws:savingsplans::123456789012:savingsplan/sp-1"
	f := &fakeStore{}
	for d := range 21 {
		start := day1.AddDate(0, 0, d)
		if d < 12 {
			f.line("r", start, 24, 240e9, nil)
			continue
		}
		f.line("r", start, 8, 80e9, nil)
		f.line("r", start, 16, 70e9, nil)
		l := &f.lines[len(f.lines)-1]
		l.PricingCategory, l.CommitmentDiscountID = "Committed", sp
	}
	f.hours("r", gpucost.Labels{"namespace": "research"}, day1, 21*24, 50)
	got := detected(f, 21)
	at := day1.AddDate(0, 0, 12)
	want := DetectedChange{Namespace: "research", Provider: "aws", Kind: ChangeCommitment, From: "none", To: sp, At: at, InstanceTypes: "gpu.x1",
		How: "detected: a commitment appeared on gpu.x1 (sp-1)"}
	if len(got) != 1 || got[0] != want {
		t.Fatalf("DetectChanges() = %+v, want [%+v]", got, want)
	}

	v := recommend.FleetView{Resources: []recommend.Resource{{ID: "r", Provider: "aws", InstanceType: "gpu.x1", Namespace: "research"}}}
	p := recommend.Plan{Groups: []recommend.PlanGroup{{ID: "research-gpu.x1", Resources: []string{"r"}, Steps: []recommend.PlanStep{
		{ID: "research-gpu.x1/right-sizing/release-on-exit", Lever: recommend.LeverRightSizing},
		{ID: "research-gpu.x1/commitments/commit-gpu.x1", Lever: recommend.LeverCommitments}}}}}
	if s, ok := got[0].Step(p, v); !ok || s.ID != "research-gpu.x1/commitments/commit-gpu.x1" {
		t.Errorf("Step() = %q, %v; want research-gpu.x1/commitments/commit-gpu.x1", s.ID, ok)
	}

	// By hand: 12 days before at $240 over 12 used GPU-hours a day, $20 a used GPU-hour; each of
	// the 9 days after does the same work for $150: ($240 − $150) × 730/24 = $2,737.50 a month.
	end := day1.AddDate(0, 0, 21)
	step := appliedAt("research-gpu.x1/commitments/commit-gpu.x1", "research", nil, at, 2500e9)
	r := realizedSnapshot(t, f, []gpucost.AppliedStep{step}, end).Realized([]gpucost.AppliedStep{step}, end).Steps[0]
	if r.Status != RealizedMeasured || r.BeforeDays != 12 || r.Days != 9 || cents(r.Realized) != "2737.50" || cents(r.High) != "2737.50" ||
		cents(r.BeforeRate) != "20.00" || cents(r.AfterRate) != "12.50" {
		t.Errorf("Realized() = %s, %d days before, %d after, %s [.., %s], rates %s → %s; want measured, 12, 9, 2737.50 [.., 2737.50], 20.00 → 12.50 (%s)",
			r.Status, r.BeforeDays, r.Days, cents(r.Realized), cents(r.High), cents(r.BeforeRate), cents(r.AfterRate), r.Note)
	}
}

// What is not a fall or a new commitment. day1 is a Sunday.
func TestDetectNoChange(t *testing.T) {
	weekend := func(d int) bool { w := day1.AddDate(0, 0, d).Weekday(); return w == time.Saturday || w == time.Sunday }
	for _, c := range []struct {
		name string
		days int
		fill func(f *fakeStore)
		want []string // kinds
	}{
		{"a quiet weekend and the bill ending on a short Monday", 23, func(f *fakeStore) {
			replicas(f, "batch", 23, func(d int) int { return 4 - 2*b2i(weekend(d)) }, func(d int) int { return 24 - 16*b2i(d == 22) }, busy)
		}, nil},
		{"the bill ending partway through a day", 15, func(f *fakeStore) {
			replicas(f, "batch", 15, func(int) int { return 4 }, func(d int) int { return 24 - 18*b2i(d == 14) }, busy)
		}, nil},
		{"three half days at the end are a fall: the bill says no more", 15, func(f *fakeStore) {
			replicas(f, "batch", 15, func(int) int { return 4 }, func(d int) int { return 24 - 12*b2i(d >= 12) }, busy)
		}, []string{ChangeFewerGPUs}},
		{"a dip that recovers", 21, func(f *fakeStore) {
			replicas(f, "batch", 21, func(d int) int { return 4 - 2*b2i(d >= 8 && d <= 10) }, fullDays, busy)
		}, nil},
		{"a weekly job that ran once before it was released when its work ends", 21, func(f *fakeStore) {
			replicas(f, "train", 21, func(int) int { return 1 }, fullDays, busy)
			replicas(f, "eval", 16, func(d int) int { return b2i(d%7 == 1) }, func(d int) int { return 24 - 16*b2i(d > 1) }, busy)
		}, []string{ChangeFewerGPUs}},
		{"a fall that recovers at the end", 21, func(f *fakeStore) {
			replicas(f, "batch", 21, func(d int) int { return 4 - 2*b2i(d >= 8 && d < 18) }, fullDays, busy)
		}, nil},
		{"a fall with less than a week before it", 15, func(f *fakeStore) {
			replicas(f, "batch", 15, func(d int) int { return 4 - 2*b2i(d >= 5) }, fullDays, busy)
		}, nil},
		{"the workload's bill stops while others' go on", 21, func(f *fakeStore) {
			replicas(f, "batch", 14, func(int) int { return 4 }, fullDays, busy)
			replicas(f, "train", 21, func(int) int { return 1 }, fullDays, busy)
		}, nil},
		{"a move to a type with fewer GPUs is a change of type", 21, func(f *fakeStore) {
			replicas(f, "batch", 10, func(int) int { return 2 }, fullDays, busy)
			for d := 10; d < 21; d++ {
				f.line("y", day1.AddDate(0, 0, d), 24, 50e9, nil)
				f.lines[len(f.lines)-1].InstanceType = "gpu.y1"
			}
			f.hours("y", gpucost.Labels{"namespace": "batch"}, day1.AddDate(0, 0, 10), 11*24, 90)
		}, []string{ChangeInstanceType}},
		{"a commitment from the first day", 21, func(f *fakeStore) {
			replicas(f, "batch", 21, func(int) int { return 1 }, fullDays, busy)
			for i := range f.lines {
				f.lines[i].PricingCategory = "Committed"
			}
		}, nil},
		{"a commitment that ended", 21, func(f *fakeStore) {
			replicas(f, "batch", 21, func(int) int { return 1 }, fullDays, busy)
			for i := 5; i < 15; i++ {
				f.lines[i].CommitmentDiscountID = "ri-1"
			}
		}, nil},
	} {
		f := &fakeStore{}
		c.fill(f)
		var kinds []string
		for _, ch := range detected(f, c.days) {
			kinds = append(kinds, ch.Kind)
		}
		if !slices.Equal(kinds, c.want) {
			t.Errorf("%s: DetectChanges() = %v, want %v", c.name, kinds, c.want)
		}
	}
}
