package recommend

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// competingView is one group where fewer GPUs, a cheaper GPU type, spot and a commitment all
// apply: 2 × p3.8xlarge experiments, held all week, using 1 V100 of 4, interruptible.
func competingView() FleetView {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	rs := oneGPU(2, "exp", "p3.8xlarge", "V100", "12.24", KindExperiment, 10, 72)
	for i := range rs {
		rs[i].GPUs, rs[i].Usage = 4, append(rs[i].Usage, GPUUsage{}, GPUUsage{}, GPUUsage{})
		rs[i].Interruptible = true
	}
	return FleetView{From: from, To: from.AddDate(0, 0, 30), Resources: rs}
}

// competingOffers adds an L4 machine with p3.8xlarge's host (32 vCPUs), so that the work may
// also move to a cheaper GPU type without first dropping its unused GPUs.
func competingOffers() []gpucost.Offer {
	return append(r1Offers(), gpucost.Offer{Provider: "aws", Region: "us-east-1", InstanceType: "g6.8xlarge", GPUModel: "L4",
		GPUCount: 1, GPUMemoryGB: 24, VCPUs: 32, MemoryGiB: 256, OnDemand: usd("2.0144"), SpotPrice: usd("0.80"),
		HasOnDemand: true, HasSpot: true, Source: "test catalog"})
}

// The plan picks one path for a group whose options exclude each other: fewer GPUs, then the
// cheaper L4 for the one GPU left, then spot; the direct move to the L4 and the commitment
// are alternatives with their reasons, every step is priced on the fleet the step before left,
// and the steps add up to the total and to the savings report's.
func TestPlanOnePathPerGroup(t *testing.T) {
	v, prices := competingView(), NewTable(competingOffers(), nil)
	p, err := NewPlan(v, prices, Options{})
	if err != nil {
		t.Fatal(err)
	}
	logPlan(t, p)
	if len(p.Groups) != 1 {
		t.Fatalf("NewPlan = %d groups, want 1", len(p.Groups))
	}
	g := p.Groups[0]
	var got []string
	for _, s := range g.Steps {
		got = append(got, s.ID)
	}
	want := []string{"experiment-p3.8xlarge/right-sizing/p3.2xlarge", "experiment-p3.8xlarge/right-sizing/g6.4xlarge",
		"experiment-p3.8xlarge/spot/spot-g6.4xlarge"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("NewPlan steps %q, want %q", got, want)
	}

	// The alternatives, each priced on the fleet its step was priced on.
	alone, err := Recommend(v, prices, Options{})
	if err != nil {
		t.Fatal(err)
	}
	direct := findRec(alone, "to g6.8xlarge")
	alts := g.Steps[0].Alternatives
	if len(alts) != 1 || !strings.Contains(alts[0].Action, "to g6.8xlarge") || alts[0].MonthlySaving != direct.MonthlySaving ||
		!strings.Contains(alts[0].Why, "saves more on its own") || !strings.Contains(alts[0].Why, "the plan through this step saves") {
		t.Errorf("right-size alternatives %+v, want the direct move to g6.8xlarge saving %s with why the path through p3.2xlarge saves more", alts, direct.MonthlySaving)
	}
	alts = g.Steps[2].Alternatives
	if len(alts) != 1 || alts[0].Kind != gpucost.RecCommit || !strings.Contains(alts[0].Why, "conflicts with spot") ||
		!strings.Contains(alts[0].Why, "saves less") {
		t.Errorf("spot alternatives %+v, want the commitment, which saves less and conflicts with spot", alts)
	}
	for _, s := range p.Steps() {
		if s.Lever == LeverCommitments {
			t.Errorf("NewPlan commits %q beside spot on the same machines", s.Recommendation.Action)
		}
		if len(s.Needs) == 0 || s.Recommendation.Confidence == "" || s.Recommendation.Risk == "" || len(s.Recommendation.Evidence) < 2 {
			t.Errorf("step %s lacks needs, confidence, risk or evidence: %+v", s.ID, s)
		}
	}
	if n := g.Steps[2].Needs[0]; !strings.Contains(n, "checkpoint every") {
		t.Errorf("spot needs %q, want the checkpoint interval", n)
	}

	// Each step is priced on the fleet the step before it left; they add up to the total.
	sum, at := gpucost.USD(0), g.Before
	for _, s := range g.Steps {
		if s.Before != at || s.Before.Sub(s.After) != s.Recommendation.MonthlySaving {
			t.Errorf("step %s: before %s after %s saving %s; want before %s and saving = before − after", s.ID, s.Before, s.After, s.Recommendation.MonthlySaving, at)
		}
		at, sum = s.After, sum.Add(s.Recommendation.MonthlySaving)
	}
	if at != g.After || g.Before.Sub(g.After) != g.Saving || sum != p.Saving || p.Before.Sub(p.After) != p.Saving || Savings(p).Saving != p.Saving {
		t.Errorf("steps sum to %s, group %s → %s (%s), plan saving %s, savings report %s: want all equal", sum, g.Before, g.After, g.Saving, p.Saving, Savings(p).Saving)
	}
	// Spot prices the two L4 machines (2 × 1.3232 × 730 = 1931.87 a month), not the p3.8xlarge.
	spot := g.Steps[2]
	if spot.Before.Fixed(2) != "1931.87" || !spot.Recommendation.MonthlySaving.Less(findRec(alone, "on spot p3.8xlarge").MonthlySaving) {
		t.Errorf("spot priced on %s saving %s; want priced on the L4s' 1931.87, saving less than spot on the p3.8xlarge", spot.Before, spot.Recommendation.MonthlySaving)
	}
	var levers gpucost.Money = gpucost.USD(0)
	for _, l := range p.Levers {
		levers = levers.Add(l.MonthlySaving)
	}
	if levers != p.Saving {
		t.Errorf("levers add up to %s, plan saves %s", levers, p.Saving)
	}
}

// A step's ID names its group, lever and target: another group in the fleet leaves it as it is.
func TestPlanStepIDsStable(t *testing.T) {
	v, prices := competingView(), NewTable(competingOffers(), nil)
	a, err := NewPlan(v, prices, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v.Resources = append(oneGPU(3, "nb", "g5.2xlarge", "A10G", "1.212", KindNotebook, 11, 30), v.Resources...)
	b, err := NewPlan(v, prices, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Groups) != 2 {
		t.Fatalf("NewPlan = %d groups, want 2", len(b.Groups))
	}
	for _, s := range a.Steps() {
		if got, ok := b.Step(s.ID); !ok || got.Recommendation.Action != s.Recommendation.Action {
			t.Errorf("step %s (%q) is %q with another group in the fleet", s.ID, s.Recommendation.Action, got.Recommendation.Action)
		}
	}
}

// R1's plan (the demo fleet's shape) cuts at least 58% and says each lever's share.
func TestPlanR1Shares(t *testing.T) {
	p, err := NewPlan(r1View(), NewTable(r1Offers(), nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var pct float64
	for _, l := range p.Levers {
		pct += l.Percent
		t.Logf("%-12s %12s %5.1f%%", l.Lever, l.MonthlySaving.Fixed(2), l.Percent)
	}
	if p.SavingPercent < 58 || pct < p.SavingPercent-0.01 || pct > p.SavingPercent+0.01 {
		t.Errorf("NewPlan(R1) cuts %.2f%%, lever shares add up to %.2f%%; want ≥ 58%% and equal", p.SavingPercent, pct)
	}
}

func findRec(recs []gpucost.Recommendation, action string) gpucost.Recommendation {
	for _, r := range recs {
		if strings.Contains(r.Action, action) {
			return r
		}
	}
	return gpucost.Recommendation{}
}
