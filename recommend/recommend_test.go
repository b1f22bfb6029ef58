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

func usd(s string) gpucost.Money {
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		panic(err)
	}
	return m
}

// r1Offers are AWS us-east-1 prices as the bundled catalog lists them (SkyPilot, 2025), with
// each instance's vCPUs and host memory.
func r1Offers() []gpucost.Offer {
	o := func(it, model string, gpus, mem, vcpus, hostGiB float64, od, spot string) gpucost.Offer {
		return gpucost.Offer{Provider: "aws", Region: "us-east-1", InstanceType: it, GPUModel: model, GPUCount: gpus,
			GPUMemoryGB: mem, VCPUs: vcpus, MemoryGiB: hostGiB, OnDemand: usd(od), SpotPrice: usd(spot),
			HasOnDemand: true, HasSpot: spot != "0", Source: "test catalog"}
	}
	return []gpucost.Offer{
		o("p4d.24xlarge", "A100", 8, 40, 96, 1152, "32.7726", "13.1"),
		o("p3.2xlarge", "V100", 1, 16, 8, 61, "3.06", "0.918"),
		o("p3.8xlarge", "V100", 4, 16, 32, 244, "12.24", "3.672"),
		o("p3.16xlarge", "V100", 8, 16, 64, 488, "24.48", "7.344"),
		o("g5.xlarge", "A10G", 1, 24, 4, 16, "1.006", "0.47"),
		o("g5.2xlarge", "A10G", 1, 24, 8, 32, "1.212", "0.50"),
		o("g5.4xlarge", "A10G", 1, 24, 16, 64, "1.624", "0.65"),
		o("g4dn.xlarge", "T4", 1, 16, 4, 16, "0.526", "0.21"),
		o("g4dn.2xlarge", "T4", 1, 16, 8, 32, "0.752", "0.29"),
		o("g6.xlarge", "L4", 1, 24, 4, 16, "0.8048", "0.41"),
		o("g6.2xlarge", "L4", 1, 24, 8, 32, "0.9776", "0.44"),
		o("g6.4xlarge", "L4", 1, 24, 16, 64, "1.3232", "0.55"),
		o("p5.48xlarge", "H100", 8, 80, 192, 2048, "98.32", "0"),
	}
}

// r1View is the demo fleet's shape (reference case R1): 5 × p4d serving 40 A100s at 20%,
// 6 × p3.8xlarge experiments using 1 V100 of 4 for 5 hours in 7, a weekly evaluation p4d held
// 24 h working 8, 8 notebooks idle nights and weekends, one p5 training at 93%, all on-demand.
func r1View() FleetView {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	v := FleetView{From: from, To: from.AddDate(0, 0, 30)}
	add := func(n int, host, it, model string, gpus int, hourly, kind string, interruptible bool,
		running func(d time.Weekday, h int) float64, usage func(g int) GPUUsage) {
		for i := 1; i <= n; i++ {
			r := Resource{ID: fmt.Sprintf("%s-%02d", host, i), Provider: "aws", Region: "us-east-1", InstanceType: it,
				GPUModel: model, GPUs: gpus, Hourly: usd(hourly), Pricing: gpucost.OnDemand, Owner: kind + "-team",
				Namespace: kind, Kind: kind, Interruptible: interruptible}
			var held float64
			for d := range 7 {
				for h := range 24 {
					r.Running[d][h] = running(time.Weekday(d), h)
					held += r.Running[d][h]
				}
			}
			// The bill: the hours held, at the on-demand price.
			r.Monthly = r.Hourly.MulFloat(held * HoursPerMonth / 168)
			for g := range gpus {
				r.Usage = append(r.Usage, usage(g))
			}
			v.Resources = append(v.Resources, r)
		}
	}
	always := func(time.Weekday, int) float64 { return 1 }
	flat := func(mean, p95, vram, idle float64) GPUUsage {
		u := GPUUsage{MeanUtil: mean, P95Util: p95, VRAMPeakGB: vram, IdleShare: idle}
		for d := range 7 {
			for h := range 24 {
				u.Idle[d][h] = idle
			}
		}
		return u
	}
	add(5, "serving-a100", "p4d.24xlarge", "NVIDIA A100-SXM4-40GB", 8, "32.7726", KindServing, false, always,
		func(int) GPUUsage { return flat(20, 35, 24.8, 0) })
	add(6, "research-v100", "p3.8xlarge", "Tesla V100-SXM2-16GB", 4, "12.24", KindExperiment, true, always,
		func(g int) GPUUsage {
			if g > 0 {
				return flat(0, 0, 0.003, 1)
			}
			return flat(51, 85, 10.2, 2.0/7)
		})
	add(1, "eval-a100", "p4d.24xlarge", "NVIDIA A100-SXM4-40GB", 8, "32.7726", KindEval, false,
		func(d time.Weekday, h int) float64 { return b2f(d == time.Monday) },
		func(int) GPUUsage {
			u := flat(28.7, 90, 33, 0)
			for h := 8; h < 24; h++ {
				u.Idle[time.Monday][h] = 1
			}
			return u
		})
	add(8, "notebook-a10g", "g5.2xlarge", "NVIDIA A10G", 1, "1.212", KindNotebook, false, always,
		func(int) GPUUsage {
			u := flat(8, 60, 14, 1)
			for d := time.Monday; d <= time.Friday; d++ {
				for h := 9; h < 18; h++ {
					u.Idle[d][h] = 0.55
				}
			}
			return u
		})
	add(1, "train-h100", "p5.48xlarge", "NVIDIA H100 80GB HBM3", 8, "98.32", KindTraining, false, always,
		func(int) GPUUsage { return flat(93, 97, 78, 0) })
	return v
}

func TestPlanR1(t *testing.T) {
	p, err := NewPlan(r1View(), NewTable(r1Offers(), nil), Options{})
	if err != nil {
		t.Fatalf("NewPlan(R1) error: %v", err)
	}
	rep := Savings(p)
	for _, s := range p.Steps() {
		t.Logf("%-12s %-13s %12s  %s", s.Lever, s.Recommendation.Kind, s.Recommendation.MonthlySaving.Fixed(2), s.Recommendation.Action)
	}
	t.Logf("before %s after %s: −%.1f%%", rep.Before.Fixed(2), rep.After.Fixed(2), rep.SavingPercent)
	if rep.SavingPercent < 58 {
		t.Errorf("NewPlan(R1) saves %.1f%%, want ≥ 58%% (reference case R1)", rep.SavingPercent)
	}
	sum := gpucost.USD(0)
	for _, l := range rep.Levers {
		sum = sum.Add(l.MonthlySaving)
	}
	if sum != rep.Saving || rep.Before.Sub(rep.After) != rep.Saving {
		t.Errorf("levers sum to %s, before − after = %s, report saving %s: want all equal", sum, rep.Before.Sub(rep.After), rep.Saving)
	}
	want := map[string]string{
		"stop notebook-a10g-01–08 from 18:00 to 09:00 UTC weekdays and all weekend":             LeverIdle,
		"move notebook-a10g-01–08 from g5.2xlarge (1 × NVIDIA A10G) to g6.2xlarge (1 × L4)":     LeverRightSizing,
		"move research-v100-01–06 from p3.8xlarge (4 GPUs) to p3.2xlarge (1 GPUs): each uses 1": LeverRightSizing,
		"release eval-a100-01 when its job ends":                                                LeverRightSizing,
		"run serving-a100-01–05's 40 replicas as 19 on 3 × p4d.24xlarge":                        LeverRightSizing,
		"run research-v100-01–06 on spot p3.2xlarge":                                            LeverSpot,
		"commit to 3 × p4d.24xlarge":                                                            LeverCommitments,
		"commit to 1 × p5.48xlarge":                                                             LeverCommitments,
	}
	for action, lever := range want {
		found := false
		for _, s := range p.Steps() {
			found = found || strings.HasPrefix(s.Recommendation.Action, action) && s.Lever == lever
		}
		if !found {
			t.Errorf("NewPlan(R1) has no %s step %q", lever, action)
		}
	}
	checkRecs(t, stepsRecs(p.Steps()))
}

func stepsRecs(steps []PlanStep) []gpucost.Recommendation {
	var out []gpucost.Recommendation
	for _, s := range steps {
		out = append(out, s.Recommendation)
	}
	return out
}

// checkRecs checks what every recommendation must have: a positive saving, words, evidence.
func checkRecs(t *testing.T, recs []gpucost.Recommendation) {
	t.Helper()
	for _, r := range recs {
		if r.MonthlySaving.Nanos <= 0 || r.Action == "" || len(r.Evidence) < 2 || r.Confidence == "" || r.Risk == "" || len(r.Resources) == 0 {
			t.Errorf("recommendation %+v lacks a positive saving, action, evidence, confidence, risk or resources", r)
		}
		for _, s := range append([]string{r.Action, r.ConfidenceWhy}, r.Evidence...) {
			if strings.Contains(s, "NaN") || strings.Contains(s, "Inf") {
				t.Errorf("recommendation %q says %q", r.Action, s)
			}
		}
	}
}

func TestRecommendRanked(t *testing.T) {
	recs, err := Recommend(r1View(), NewTable(r1Offers(), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRecs(t, recs)
	kinds := map[gpucost.RecommendationKind]bool{}
	for i, r := range recs {
		kinds[r.Kind] = true
		if i > 0 && recs[i-1].MonthlySaving.Less(r.MonthlySaving) {
			t.Errorf("Recommend: %q (%s) ranked after %q (%s)", r.Action, r.MonthlySaving, recs[i-1].Action, recs[i-1].MonthlySaving)
		}
	}
	for _, k := range []gpucost.RecommendationKind{gpucost.RecIdleSchedule, gpucost.RecRightSize, gpucost.RecSpot, gpucost.RecCommit} {
		if !kinds[k] {
			t.Errorf("Recommend(R1) found no %s recommendation", k)
		}
	}
	// Standalone, spot prices the unchanged p3.8xlarge fleet: more than after right-sizing.
	min := usd("3000")
	few, _ := Recommend(r1View(), NewTable(r1Offers(), nil), Options{MinSaving: min})
	for _, r := range few {
		if r.MonthlySaving.Less(min) {
			t.Errorf("Recommend(MinSaving %s) kept %q saving %s", min, r.Action, r.MonthlySaving)
		}
	}
	if len(few) >= len(recs) {
		t.Errorf("MinSaving %s kept %d of %d recommendations, want fewer", min, len(few), len(recs))
	}
}

func TestDeterministic(t *testing.T) {
	a, err1 := NewPlan(r1View(), NewTable(r1Offers(), nil), Options{})
	b, err2 := NewPlan(r1View(), NewTable(r1Offers(), nil), Options{})
	if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
		t.Errorf("NewPlan(R1) differs between runs (errors %v, %v)", err1, err2)
	}
	ra, _ := Recommend(r1View(), NewTable(r1Offers(), nil), Options{})
	rb, _ := Recommend(r1View(), NewTable(r1Offers(), nil), Options{})
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("Recommend(R1) differs between runs")
	}
}

func TestShareMIG(t *testing.T) {
	v := r1View()
	var pool []Resource
	for _, r := range v.Resources {
		if r.Kind == KindServing {
			r.GPUModel = "A100-80GB"
			for i := range r.Usage {
				r.Usage[i].VRAMPeakGB, r.Usage[i].P95Util = 8, 20
			}
			pool = append(pool, r)
		}
	}
	v.Resources = pool
	offers := []gpucost.Offer{{Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", GPUModel: "A100-80GB",
		GPUCount: 8, GPUMemoryGB: 80, OnDemand: usd("32.7726"), HasOnDemand: true}}
	recs, err := Recommend(v, NewTable(offers, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	checkRecs(t, recs)
	found := false
	for _, r := range recs {
		found = found || r.Kind == gpucost.RecShareMIG
	}
	if !found {
		t.Errorf("Recommend(40 replicas at 8 GB, p95 20%% on A100-80GB) = %v, want a share-mig recommendation", recs)
	}
}

func TestDegenerateInputs(t *testing.T) {
	v := r1View()
	v.Resources[0].Monthly = gpucost.USD(0)
	v.Resources[6].Hourly = gpucost.USD(0)
	v.Resources[12].Usage, v.Resources[12].GPUs = nil, 0
	v.Resources[13].Running = [7][24]float64{}
	v.Resources[14].Usage[0].P95Util = math.NaN()
	v.To = v.From
	p, err := NewPlan(v, NewTable(r1Offers(), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep := Savings(p)
	if rep.After.Nanos < 0 || rep.Saving.Nanos < 0 || math.IsNaN(rep.SavingPercent) {
		t.Errorf("Savings = %+v: negative or NaN", rep)
	}
	checkRecs(t, stepsRecs(p.Steps()))
	for _, bad := range []Options{{CommitDiscount: 1}, {InterruptionRate: 2}, {ServingTarget: 1.5}} {
		if _, err := NewPlan(v, NewTable(r1Offers(), nil), bad); err == nil {
			t.Errorf("NewPlan(options %+v) = nil error, want one", bad)
		}
	}
	v.Resources = append(v.Resources, v.Resources[1])
	if _, err := NewPlan(v, NewTable(r1Offers(), nil), Options{}); err == nil {
		t.Errorf("NewPlan(duplicate resource) = nil error, want one")
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{[]string{"notebook-a10g-03", "notebook-a10g-01", "notebook-a10g-02"}, "notebook-a10g-01–03"},
		{[]string{"a-01", "a-03", "b"}, "a-01, a-03, b"},
		{[]string{"x"}, "x"},
	} {
		if got := Names(c.in); got != c.want {
			t.Errorf("Names(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSchedule(t *testing.T) {
	var off [7][24]bool
	off[time.Saturday][10], off[time.Saturday][11] = true, true
	if got, want := Schedule(off, ""), "Saturday 10:00–12:00 UTC"; got != want {
		t.Errorf("Schedule(Saturday 10–12) = %q, want %q", got, want)
	}
}

func BenchmarkPlan10kGPUs(b *testing.B) {
	base := r1View()
	var v FleetView
	v.From, v.To = base.From, base.To
	for len(v.Resources)*8 < 10000 {
		for _, r := range base.Resources {
			r.ID = fmt.Sprintf("%s-%05d", r.ID, len(v.Resources))
			v.Resources = append(v.Resources, r)
		}
	}
	prices := NewTable(r1Offers(), nil)
	b.ResetTimer()
	for b.Loop() {
		if _, err := NewPlan(v, prices, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
