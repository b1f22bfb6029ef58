package fleet

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// realizedFleet is 20 days from day1 of three machines: a (namespace research, telemetry at
// 50%, $240 a day, then from day 15 on spot: $100, $90, $110, $100, $95, $105), b (namespace
// serving, $300 a day throughout) and c (no telemetry: $120 a day, then $60 from day 15).
func realizedFleet() *fakeStore {
	f := &fakeStore{}
	after := []int64{100, 90, 110, 100, 95, 105}
	for d := range 20 {
		start := day1.AddDate(0, 0, d)
		costA, costC := int64(240), int64(120)
		if d >= 14 {
			costA, costC = after[d-14], 60
		}
		f.line("a", start, 24, costA*1e9, nil)
		f.line("b", start, 24, 300e9, nil)
		f.line("c", start, 24, costC*1e9, nil)
	}
	f.hours("a", gpucost.Labels{"namespace": "research"}, day1, 20*24, 50)
	f.hours("b", gpucost.Labels{"namespace": "serving"}, day1, 20*24, 30)
	return f
}

func realizedSnapshot(t *testing.T, f *fakeStore, steps []gpucost.AppliedStep, end time.Time) *Snapshot {
	t.Helper()
	p, ok := RealizedWindow(steps, end)
	if !ok {
		t.Fatalf("RealizedWindow(%d steps, %v) found no window", len(steps), end)
	}
	snap, err := Build(context.Background(), f, fakeCatalog{}, Options{Period: p})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func appliedAt(id, ns string, resources []string, at time.Time, predicted int64) gpucost.AppliedStep {
	return gpucost.AppliedStep{ID: id, Group: id, Lever: "spot", Predicted: gpucost.USD(predicted), Provider: "aws",
		Namespace: ns, Resources: resources, At: at, How: gpucost.AppliedManual}
}

// cents rounds to the cent, as people read a figure.
func cents(m gpucost.Money) string { return m.Round(2).Fixed(2) }

func TestRealizedSavingPerUsedGPUHour(t *testing.T) {
	at := day1.AddDate(0, 0, 14) // midnight: day 15 is the first after
	end := day1.AddDate(0, 0, 20)
	step := appliedAt("research-gpu.x1/spot/spot", "research", []string{"a"}, at, 4000e9)
	rep := realizedSnapshot(t, realizedFleet(), []gpucost.AppliedStep{step}, end).Realized([]gpucost.AppliedStep{step}, end)
	if len(rep.Steps) != 1 {
		t.Fatalf("Realized() = %d steps, want 1", len(rep.Steps))
	}
	r := rep.Steps[0]
	// By hand: before, 14 days × $240 over 14 × 24 h × 50% = 168 used GPU-hours: $20 a used
	// GPU-hour. Each after day saves ($20 × 12 h − its cost) × 730/24 a month: (240 − cost) ×
	// 30.41666…; their mean is (240 − 100) × 30.41666… = $4,258.33. The days' savings differ
	// from it by 0, +10, −10, 0, +5, −5 × 30.41666…: s = √(250/5) × 30.41666…, and the 90%
	// interval is ± t(0.95, 5 df) · s/√6 = 2.015 × 87.8050… = $176.93: [$4,081.41, $4,435.26].
	perMonth := 730.0 / 24
	want := 140 * perMonth
	half := 2.015 * math.Sqrt(50) * perMonth / math.Sqrt(6)
	if r.Status != RealizedMeasured || r.Basis != PerUsedGPUHour || r.Days != 6 || r.AfterDays != 6 || r.BeforeDays != 14 {
		t.Fatalf("Realized() = %s %s, %d after days (%d with lines), %d before; want measured per used GPU-hour, 6, 6, 14 (%s)",
			r.Status, r.Basis, r.Days, r.AfterDays, r.BeforeDays, r.Note)
	}
	for _, c := range []struct {
		name string
		got  gpucost.Money
		want string
	}{
		{"Realized", r.Realized, "4258.33"}, {"Low", r.Low, "4081.41"}, {"High", r.High, "4435.26"},
		{"BeforeCost", r.BeforeCost, "3360.00"}, {"AfterCost", r.AfterCost, "600.00"},
		{"BeforeRate", r.BeforeRate, "20.00"}, {"AfterRate", r.AfterRate, "8.33"},
		{"total Realized", rep.Realized, "4258.33"}, {"total Low", rep.Low, "4081.41"}, {"total Predicted", rep.Predicted, "4000.00"},
	} {
		if cents(c.got) != c.want {
			t.Errorf("%s = %s, want %s", c.name, cents(c.got), c.want)
		}
	}
	if got := float64(r.Realized.Nanos) / 1e9; math.Abs(got-want) > 1e-6 {
		t.Errorf("Realized = %.9f, want %.9f", got, want)
	}
	if got := float64(r.High.Sub(r.Realized).Nanos) / 1e9; math.Abs(got-half) > 0.01 {
		t.Errorf("interval half-width = %.4f, want %.4f", got, half)
	}
	if r.BeforeUsedHours != 168 || r.AfterUsedHours != 72 {
		t.Errorf("used GPU-hours before %v, after %v; want 168, 72", r.BeforeUsedHours, r.AfterUsedHours)
	}
}

func TestRealizedSavingPerDayWithoutTelemetry(t *testing.T) {
	at := day1.AddDate(0, 0, 14).Add(9 * time.Hour) // 09:00 on day 15: measured from day 16
	end := day1.AddDate(0, 0, 20)
	step := appliedAt("fleet-gpu.x1/right-sizing/release", "", []string{"c"}, at, 1800e9)
	rep := realizedSnapshot(t, realizedFleet(), []gpucost.AppliedStep{step}, end).Realized([]gpucost.AppliedStep{step}, end)
	r := rep.Steps[0]
	// By hand: $120 a day before, $60 after: (120 − 60) × 730/24 = $1,825.00, every day the same.
	if r.Status != RealizedMeasured || r.Basis != PerDay || r.Days != 5 || r.BeforeDays != 14 {
		t.Fatalf("Realized() = %s %s over %d days, %d before; want measured per day, 5, 14 (%s)", r.Status, r.Basis, r.Days, r.BeforeDays, r.Note)
	}
	if cents(r.Realized) != "1825.00" || cents(r.Low) != "1825.00" || cents(r.High) != "1825.00" {
		t.Errorf("Realized = %s [%s, %s], want 1825.00 [1825.00, 1825.00]", cents(r.Realized), cents(r.Low), cents(r.High))
	}
}

func TestRealizedMeasuring(t *testing.T) {
	at := day1.AddDate(0, 0, 18)
	end := day1.AddDate(0, 0, 20)
	step := appliedAt("research-gpu.x1/spot/spot", "research", []string{"a"}, at, 4000e9)
	rep := realizedSnapshot(t, realizedFleet(), []gpucost.AppliedStep{step}, end).Realized([]gpucost.AppliedStep{step}, end)
	r := rep.Steps[0]
	if r.Status != RealizedMeasuring || r.Note != "measuring: 2 days so far" || !r.Realized.IsZero() {
		t.Errorf("Realized() = %s %q %s, want measuring, \"measuring: 2 days so far\", zero", r.Status, r.Note, r.Realized)
	}
	if rep.Measured != 0 || !rep.Realized.IsZero() {
		t.Errorf("total = %d measured, %s; want none", rep.Measured, rep.Realized)
	}
}

// A second step on the same workload ends the first one's after window.
func TestRealizedNextStepEndsWindow(t *testing.T) {
	end := day1.AddDate(0, 0, 20)
	first := appliedAt("research-gpu.x1/right-sizing/x", "research", []string{"a"}, day1.AddDate(0, 0, 10), 100e9)
	second := appliedAt("research-gpu.x1/spot/spot", "research", []string{"a"}, day1.AddDate(0, 0, 14), 4000e9)
	steps := []gpucost.AppliedStep{first, second}
	rep := realizedSnapshot(t, realizedFleet(), steps, end).Realized(steps, end)
	if r := rep.Steps[0]; r.Days != 4 || r.Status != RealizedMeasured || cents(r.Realized) != "0.00" {
		t.Errorf("first step: %d days, %s, %s; want 4 days (to the second step), measured, 0.00", r.Days, r.Status, cents(r.Realized))
	}
	if rep.Measured != 2 || cents(rep.Predicted) != "4100.00" || cents(rep.Realized) != "4258.33" {
		t.Errorf("total: %d measured, predicted %s, realized %s; want 2, 4100.00, 4258.33", rep.Measured, cents(rep.Predicted), cents(rep.Realized))
	}
}
