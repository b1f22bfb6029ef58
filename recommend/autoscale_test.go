package recommend

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// r5View is reference case R5's shape: an inference pool of 4 one-GPU instances held 24/7
// ($2,880 a month), demand uneven through the day — idle 00:00–10:00, a 2-hour peak needing
// 8 machines at the 50% target, then 3, 2 and 1 — every day of the week. At a 50% target the
// autoscaled pool holds on average 2 machines: R5's "autoscale 1–8, −50%".
func r5View(interruptible bool) FleetView {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	v := FleetView{From: from, To: from.AddDate(0, 0, 30)}
	utilAt := func(h int) float64 {
		switch {
		case h < 10:
			return 0
		case h < 12:
			return 100 // 4 GPUs' worth → 8 machines at 50%
		case h < 15:
			return 35 // 1.4 → 3
		case h < 19:
			return 20 // 0.8 → 2
		default:
			return 10 // 0.4 → 1
		}
	}
	for i := 1; i <= 4; i++ {
		r := Resource{ID: fmt.Sprintf("infer-a10g-%02d", i), Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge",
			GPUModel: "NVIDIA A10G", GPUs: 1, Hourly: usd("0.986301369"), Monthly: usd("720"), Pricing: gpucost.OnDemand,
			Owner: "ml", Namespace: "predict", Kind: KindServing, Interruptible: interruptible}
		u := GPUUsage{MeanUtil: 22.5, P95Util: 100, VRAMPeakGB: 12, IdleShare: 10.0 / 24}
		for d := range 7 {
			for h := range 24 {
				r.Running[d][h] = 1
				u.Util[d][h] = utilAt(h)
				u.Idle[d][h] = 0.2
				if h < 10 {
					u.Idle[d][h] = 1
				}
			}
		}
		r.Usage = []GPUUsage{u}
		v.Resources = append(v.Resources, r)
	}
	return v
}

func r5Offers() []gpucost.Offer {
	return []gpucost.Offer{{Provider: "aws", Region: "us-east-1", InstanceType: "g5.xlarge", GPUModel: "A10G", GPUCount: 1,
		GPUMemoryGB: 24, OnDemand: usd("0.986301369"), SpotPrice: usd("0.47"), HasOnDemand: true, HasSpot: true, Source: "test catalog"}}
}

func stepOf(p Plan, lever string) (gpucost.Recommendation, bool) {
	for _, s := range p.Steps() {
		if s.Lever == lever {
			return s.Recommendation, true
		}
	}
	return gpucost.Recommendation{}, false
}

func logPlan(t *testing.T, p Plan) {
	t.Helper()
	for _, s := range p.Steps() {
		t.Logf("%-12s %12s  %s", s.Lever, s.Recommendation.MonthlySaving.Fixed(2), s.Recommendation.Action)
		for _, a := range s.Alternatives {
			t.Logf("  instead of %s (%s): %s", a.Action, a.MonthlySaving.Fixed(2), a.Why)
		}
	}
	t.Logf("before %s after %s", p.Before.Fixed(2), p.After.Fixed(2))
}

func TestAutoscaleR5(t *testing.T) {
	prices := NewTable(r5Offers(), nil)
	// Autoscaling alone (no run of idle hours long enough to scale to zero): −50%.
	static, err := NewPlan(r5View(false), prices, Options{ServingTarget: 0.5, ScaleToZeroHours: 1000})
	if err != nil {
		t.Fatal(err)
	}
	logPlan(t, static)
	as, ok := stepOf(static, LeverAutoscaling)
	if !ok {
		t.Fatalf("NewPlan(R5) has no autoscaling step")
	}
	if static.Before != usd("2880") || as.MonthlySaving != usd("1440") {
		t.Errorf("NewPlan(R5) before %s, autoscale saves %s; want 2880 and 1440 (−50%%, R5)", static.Before, as.MonthlySaving)
	}
	if !strings.Contains(as.Action, "between 1 and 8 machines") || strings.Contains(as.Action, "zero") {
		t.Errorf("autoscale action %q, want between 1 and 8 machines, no scale to zero", as.Action)
	}
	// The commitment covers the autoscaled baseline (1 machine most hours), not the static 4.
	if c, ok := stepOf(static, LeverCommitments); !ok || !strings.HasPrefix(c.Action, "commit to 1 × g5.xlarge") {
		t.Errorf("commitment after autoscaling = %q (found %v), want commit to 1 × g5.xlarge", c.Action, ok)
	}
	checkRecs(t, stepsRecs(static.Steps()))

	// Scale to zero through the 10 idle hours each night, then spot (the work is retried).
	full, err := NewPlan(r5View(true), prices, Options{ServingTarget: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	logPlan(t, full)
	zero, _ := stepOf(full, LeverAutoscaling)
	spot, ok := stepOf(full, LeverSpot)
	if !ok || !strings.Contains(zero.Action, "to zero from 00:00 to 10:00 UTC daily") {
		t.Fatalf("NewPlan(R5, interruptible) = autoscale %q, spot found %v; want scale to zero 00:00–10:00 and a spot step", zero.Action, ok)
	}
	autoscaled := full.Before.Sub(zero.MonthlySaving)
	if extra := 1 - float64(autoscaled.Nanos)/1440e9; extra < 0.2 {
		t.Errorf("scale to zero takes %.1f%% off the autoscaled $1,440, want ≥ 20%% (R5: $720 → $576)", 100*extra)
	}
	// Spot prices the autoscaled pool, not the static one: its saving is a share of what remains.
	if !spot.MonthlySaving.Less(autoscaled) {
		t.Errorf("spot saves %s, more than the autoscaled pool's %s: counted twice", spot.MonthlySaving, autoscaled)
	}
	if pct := 100 * float64(full.Before.Sub(full.After).Nanos) / float64(full.Before.Nanos); pct < 75 {
		t.Errorf("NewPlan(R5) saves %.1f%%, want ≥ 75%% (R5: autoscale + spot −75%%, scale to zero −80%%)", pct)
	}
	checkRecs(t, stepsRecs(full.Steps()))

	// Without hourly utilisation the demand is unknown: no autoscaling.
	v := r5View(false)
	for i := range v.Resources {
		v.Resources[i].Usage[0].Util = [7][24]float64{}
	}
	recs, _ := Recommend(v, prices, Options{ServingTarget: 0.5})
	for _, r := range recs {
		if r.Kind == gpucost.RecAutoscale {
			t.Errorf("Recommend(no Util) = %q, want no autoscale", r.Action)
		}
	}
}

func TestLongRuns(t *testing.T) {
	var w week
	w[time.Saturday][22], w[time.Saturday][23], w[time.Sunday][0], w[time.Sunday][1] = true, true, true, true
	w[time.Wednesday][3], w[time.Wednesday][4] = true, true
	got := longRuns(w, 3)
	if !got[time.Saturday][22] || !got[time.Sunday][1] || got[time.Wednesday][3] || got.count() != 4 {
		t.Errorf("longRuns(Sat 22–Sun 02, Wed 03–05; 3) = %d hours, want the 4 across the week's end only", got.count())
	}
	var all week
	for d := range 7 {
		for h := range 24 {
			all[d][h] = true
		}
	}
	a, b := longRuns(all, 3), longRuns(all, 200)
	if a.count() != 168 || b.count() != 0 {
		t.Errorf("longRuns(all week) wrong")
	}
}

// BenchmarkRecommend10k plans a fleet of 10,000 GPUs — the R1 and R5 shapes repeated, every GPU
// with a full hour-of-week utilisation and idle pattern, experiments movable — through every
// lever.
func BenchmarkRecommend10k(b *testing.B) {
	base := append(r1View().Resources, r5View(true).Resources...)
	for i := range base {
		r := &base[i]
		r.Movable = r.Kind == KindExperiment || r.Kind == KindTraining
		for j := range r.Usage {
			u := &r.Usage[j]
			for d := range 7 {
				for h := range 24 {
					if u.Util[d][h] == 0 && u.Idle[d][h] < 0.9 {
						u.Util[d][h] = u.MeanUtil * (0.5 + float64((h+d)%12)/12)
					}
				}
			}
		}
	}
	v := r1View()
	v.Resources = nil
	gpus := 0
	for gpus < 10000 {
		for _, r := range base {
			r.ID = fmt.Sprintf("%s-%05d", r.ID, len(v.Resources))
			r.Usage = append([]GPUUsage(nil), r.Usage...)
			v.Resources = append(v.Resources, r)
			gpus += r.GPUs
		}
	}
	prices := NewTable(append(append(r1Offers(), r5Offers()...), moveOffers()...), nil)
	p, err := NewPlan(v, prices, Options{})
	if err != nil || len(p.Steps()) == 0 {
		b.Fatalf("NewPlan(10k GPUs) = %d steps, %v", len(p.Steps()), err)
	}
	levers := map[string]int{}
	for _, s := range p.Steps() {
		levers[s.Lever]++
	}
	b.Logf("%d GPUs, %d resources: %d steps %v, −%.1f%%", gpus, len(v.Resources), len(p.Steps()), levers, Savings(p).SavingPercent)
	b.ResetTimer()
	for b.Loop() {
		if _, err := NewPlan(v, prices, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestNewLeversDeterministicAndClean(t *testing.T) {
	prices := NewTable(append(r5Offers(), moveOffers()...), nil)
	for name, view := range map[string]func() FleetView{
		"R5":    func() FleetView { return r5View(true) },
		"moves": moveView,
		"dirty": func() FleetView {
			v := r5View(false)
			u := &v.Resources[0].Usage[0]
			u.Util[1][11], u.Util[2][12], u.Util[3][13] = math.NaN(), -5, 250
			u.Idle[4][2] = math.Inf(1)
			v.Resources[1].Running[5][5] = math.NaN()
			return v
		},
	} {
		a, err1 := NewPlan(view(), prices, Options{ServingTarget: 0.5})
		b, err2 := NewPlan(view(), prices, Options{ServingTarget: 0.5})
		if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("NewPlan(%s) differs between runs (errors %v, %v)", name, err1, err2)
		}
		if a.After.Nanos < 0 || a.Before.Less(a.After) {
			t.Errorf("NewPlan(%s): before %s after %s", name, a.Before, a.After)
		}
		checkRecs(t, stepsRecs(a.Steps()))
	}
}
