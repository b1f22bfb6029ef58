package recommend

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// oneGPU is a fleet of n single-GPU machines held all week, each GPU at the given load.
func oneGPU(n int, host, it, model, hourly, kind string, vramGB, p95 float64) []Resource {
	var out []Resource
	for i := 1; i <= n; i++ {
		r := Resource{ID: host + "-0" + string(rune('0'+i)), Provider: "aws", Region: "us-east-1", InstanceType: it,
			GPUModel: model, GPUs: 1, Hourly: usd(hourly), Pricing: gpucost.OnDemand, Namespace: kind, Kind: kind,
			Usage: []GPUUsage{{MeanUtil: p95 / 2, P95Util: p95, VRAMPeakGB: vramGB}}}
		for d := range 7 {
			for h := range 24 {
				r.Running[d][h] = 1
			}
		}
		r.Monthly = r.Hourly.MulFloat(HoursPerMonth)
		out = append(out, r)
	}
	return out
}

func retypeSteps(t *testing.T, v FleetView, offers []gpucost.Offer) (Plan, []PlanStep) {
	t.Helper()
	p, err := NewPlan(v, NewTable(offers, nil), Options{})
	if err != nil {
		t.Fatalf("Plan: %v", err)
	}
	checkRecs(t, stepsRecs(p.Steps()))
	var out []PlanStep
	for _, s := range p.Steps() {
		if strings.Contains(s.Recommendation.Action, "cheaper GPU") {
			out = append(out, s)
		}
	}
	return p, out
}

func TestCheaperType(t *testing.T) {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name            string
		it, model, hour string
		kind            string
		vram, p95       float64
		want            string // the action's start; "" for no move
		saving          string // both machines per month, to the cent
	}{
		// 11 GB + 20% = 13.2 GB ≤ 16 GB; 30% × 70 TFLOPS × 1.2 = 25.2 ≤ 65: the T4 with the same host.
		{"notebook A10G 11 GB → T4", "g5.xlarge", "A10G", "1.006", KindNotebook, 11, 30,
			"move nb-01–02 from g5.xlarge (1 × A10G) to g4dn.xlarge (1 × T4)", "700.80"}, // 2 × (1.006 − 0.526) × 730
		// 14 GB + 20% = 16.8 GB > 16 GB: no T4; the L4 with the same host.
		{"notebook A10G 14 GB → L4", "g5.xlarge", "A10G", "1.006", KindNotebook, 14, 30,
			"move nb-01–02 from g5.xlarge (1 × A10G) to g6.xlarge (1 × L4)", "293.75"}, // 2 × (1.006 − 0.8048) × 730
		// 72% × 125 × 1.2 = 108 ≤ 121 (L4), > 70 (A10G); p3.2xlarge has 8 vCPU, 61 GiB: g6.4xlarge.
		{"experiment V100 10 GB at 72% → L4", "p3.2xlarge", "V100", "3.06", KindExperiment, 10, 72,
			"move nb-01–02 from p3.2xlarge (1 × V100) to g6.4xlarge (1 × L4)", "2535.73"}, // 2 × (3.06 − 1.3232) × 730
		// 85% × 125 × 1.2 = 127.5 > 121: nothing cheaper has the compute.
		{"experiment V100 at 85% stays", "p3.2xlarge", "V100", "3.06", KindExperiment, 10, 85, "", ""},
		// 21 GB + 20% = 25.2 GB > 24 GB: nothing cheaper has the memory.
		{"A10G 21 GB stays", "g5.xlarge", "A10G", "1.006", KindNotebook, 21, 10, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := FleetView{From: from, To: from.AddDate(0, 0, 30), Resources: oneGPU(2, "nb", c.it, c.model, c.hour, c.kind, c.vram, c.p95)}
			p, steps := retypeSteps(t, v, r1Offers())
			if c.want == "" {
				if len(steps) != 0 {
					t.Errorf("Plan moved to a cheaper GPU: %q", steps[0].Recommendation.Action)
				}
				return
			}
			if len(steps) != 1 || !strings.HasPrefix(steps[0].Recommendation.Action, c.want) || steps[0].Lever != LeverRightSizing {
				t.Fatalf("Plan steps %v, want one right-sizing %q", stepsRecs(p.Steps()), c.want)
			}
			got := steps[0].Recommendation.MonthlySaving
			if got.Fixed(2) != c.saving {
				t.Errorf("saving %s, want %s", got.Fixed(2), c.saving)
			}
		})
	}
}

// After "fewer GPUs" the cheaper type prices the smaller machine: the two steps add up to the
// move from p3.8xlarge to g6.4xlarge, counted once.
func TestCheaperTypeAfterFewerGPUs(t *testing.T) {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	r := oneGPU(1, "exp", "p3.8xlarge", "V100", "12.24", KindExperiment, 10, 72)[0]
	r.GPUs, r.Usage = 4, append(r.Usage, GPUUsage{}, GPUUsage{}, GPUUsage{})
	r.Monthly = r.Hourly.MulFloat(HoursPerMonth)
	p, steps := retypeSteps(t, FleetView{From: from, To: from.AddDate(0, 0, 30), Resources: []Resource{r}}, r1Offers())
	if len(p.Steps()) < 2 || len(steps) != 1 || !strings.HasPrefix(p.Steps()[0].Recommendation.Action, "move exp-01 from p3.8xlarge (4 GPUs) to p3.2xlarge") {
		t.Fatalf("Plan steps %v, want fewer GPUs then a cheaper type", stepsRecs(p.Steps()))
	}
	// (12.24 − 3.06) × 730 = 6701.40, then (3.06 − 1.3232) × 730 = 1267.86.
	if a, b := p.Steps()[0].Recommendation.MonthlySaving.Fixed(2), steps[0].Recommendation.MonthlySaving.Fixed(2); a != "6701.40" || b != "1267.86" {
		t.Errorf("savings %s then %s, want 6701.40 then 1267.86", a, b)
	}
	// Together: (12.24 − 1.3232) × 730 = 7969.26, and the machine is a g6.4xlarge at 1.3232/h.
	if got := Savings(p).Levers[0]; got.Lever != LeverRightSizing || got.MonthlySaving.Fixed(2) != "7969.26" ||
		p.Fleet[0].InstanceType != "g6.4xlarge" || p.Fleet[0].Hourly != usd("1.3232") {
		t.Errorf("right-sizing %s %s, fleet %s at %s/h; want right-sizing 7969.26 to g6.4xlarge at 1.3232/h",
			got.Lever, got.MonthlySaving.Fixed(2), p.Fleet[0].InstanceType, p.Fleet[0].Hourly)
	}
}

// Work pinned to its region stays there when only another region has a GPU that fits; movable
// work goes; committed machines and serving pools the plan already reduced stay as they are.
func TestCheaperTypeWhere(t *testing.T) {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	var offers []gpucost.Offer
	for _, o := range r1Offers() {
		if o.GPUModel == "L4" {
			o.Region = "us-west-2"
		}
		offers = append(offers, o)
	}
	for _, movable := range []bool{false, true} {
		rs := oneGPU(1, "exp", "p3.2xlarge", "V100", "3.06", KindExperiment, 10, 72)
		rs[0].Movable = movable
		committed := oneGPU(1, "com", "g5.xlarge", "A10G", "1.006", KindNotebook, 11, 30)[0]
		committed.Pricing = Committed
		rs = append(rs, committed)
		_, steps := retypeSteps(t, FleetView{From: from, To: from.AddDate(0, 0, 30), Resources: rs}, offers)
		want := 0
		if movable {
			want = 1
		}
		if len(steps) != want || movable && !strings.Contains(steps[0].Recommendation.Action, "to g6.4xlarge in us-west-2 (1 × L4)") {
			t.Errorf("movable %v: cheaper-type steps %v, want %d to g6.4xlarge in us-west-2", movable, stepsRecs(steps), want)
		}
	}
	p, steps := retypeSteps(t, r1View(), r1Offers())
	for _, s := range steps {
		if strings.Contains(s.Recommendation.Action, "serving") {
			t.Errorf("NewPlan(R1) retypes a serving pool it reduced: %q", s.Recommendation.Action)
		}
	}
	// R1's notebooks move to the L4 with g5.2xlarge's host before their idle schedule (a GPU
	// type comes before schedules in a plan): 8 × (1.212 − 0.9776) × 730 = 1368.90.
	if len(steps) != 1 || steps[0].Recommendation.MonthlySaving.Fixed(2) != "1368.90" {
		t.Errorf("NewPlan(R1) cheaper-type steps %v, want the notebooks' saving 1368.90", stepsRecs(steps))
	}
	if got := Savings(p).SavingPercent; got < 58 {
		t.Errorf("NewPlan(R1) saves %.1f%%, want ≥ 58%%", got)
	}
}
