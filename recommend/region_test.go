package recommend

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func moveOffers() []gpucost.Offer {
	o := func(prov, region, it string, od, spot string) gpucost.Offer {
		return gpucost.Offer{Provider: prov, Region: region, InstanceType: it, GPUModel: "V100", GPUCount: 1, GPUMemoryGB: 16,
			OnDemand: usd(od), SpotPrice: usd(spot), HasOnDemand: true, HasSpot: true, Source: "test catalog"}
	}
	return []gpucost.Offer{
		o("aws", "us-east-1", "p3.2xlarge", "3.06", "0.918"),
		o("aws", "us-west-2", "p3.2xlarge", "2.90", "0.95"),            // 5% less on-demand: under the margin
		o("gcp", "us-central1", "n1-standard-8-v100", "2.48", "0.74"),  // 19% less on-demand, 19% less spot
		o("gcp", "europe-west4", "n1-standard-8-v100", "2.60", "0.60"), // the cheapest spot
		{Provider: "aws", Region: "eu-west-1", InstanceType: "p3.8xlarge", GPUModel: "V100", GPUCount: 4, GPUMemoryGB: 16,
			OnDemand: usd("8.00"), HasOnDemand: true}, // cheaper per GPU, but 4 GPUs: not the same count
	}
}

// moveView is four one-V100 machines in aws us-east-1: movable on-demand experiments, a movable
// job already on spot, serving (never moved) and an unmovable experiment.
func moveView() FleetView {
	from := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	v := FleetView{From: from, To: from.AddDate(0, 0, 30)}
	add := func(id, kind string, pricing gpucost.PricingModel, movable bool, hourly string) {
		r := Resource{ID: id, Provider: "aws", Region: "us-east-1", InstanceType: "p3.2xlarge", GPUModel: "Tesla V100-SXM2-16GB",
			GPUs: 1, Hourly: usd("3.06"), Monthly: usd(hourly).MulFloat(HoursPerMonth), Pricing: pricing, Owner: "research",
			Namespace: kind, Kind: kind, Movable: movable}
		u := GPUUsage{MeanUtil: 60, P95Util: 90, VRAMPeakGB: 12}
		for d := range 7 {
			for h := range 24 {
				r.Running[d][h], u.Util[d][h] = 1, 60
			}
		}
		r.Usage = []GPUUsage{u}
		v.Resources = append(v.Resources, r)
	}
	for i := 1; i <= 2; i++ {
		add(fmt.Sprintf("exp-v100-%02d", i), KindExperiment, gpucost.OnDemand, true, "3.06")
	}
	add("batch-v100-01", KindBatch, gpucost.Spot, true, "0.918")
	add("serve-v100-01", KindServing, gpucost.OnDemand, true, "3.06")
	add("pinned-v100-01", KindTraining, gpucost.OnDemand, false, "3.06")
	return v
}

func TestMoveRegion(t *testing.T) {
	prices := NewTable(moveOffers(), nil)
	recs, err := Recommend(moveView(), prices, Options{OtherProviders: true})
	if err != nil {
		t.Fatal(err)
	}
	checkRecs(t, recs)
	var moves []gpucost.Recommendation
	for _, r := range recs {
		if r.Kind == gpucost.RecMoveRegion {
			moves = append(moves, r)
			t.Logf("%s %s: %s | risk: %s", r.MonthlySaving.Fixed(2), r.Confidence, r.Action, r.Risk)
		}
	}
	want := map[string]bool{
		"move exp-v100-01–02 from aws us-east-1 p3.2xlarge to gcp us-central1 n1-standard-8-v100": true,
		"move batch-v100-01 from aws us-east-1 p3.2xlarge to gcp europe-west4 n1-standard-8-v100": true,
	}
	if len(moves) != len(want) {
		t.Fatalf("Recommend = %d move-region recommendations, want %d (experiments on-demand, batch on spot; not serving, not the pinned one)", len(moves), len(want))
	}
	for _, m := range moves {
		prefix := m.Action[:strings.Index(m.Action, " (")]
		if !want[prefix] {
			t.Errorf("unexpected move %q", m.Action)
		}
		if !strings.Contains(m.Risk, "egress") || !strings.Contains(m.Risk, "quota") || !strings.Contains(m.Risk, "gcp needs its own account") {
			t.Errorf("move %q risk %q, want egress, quota and account noted", m.Action, m.Risk)
		}
		if m.Confidence != gpucost.ConfidenceMedium {
			t.Errorf("move confidence %s, want medium (the data moved is assumed)", m.Confidence)
		}
		// 1,000 GB leave aws for another provider over the internet at $0.09/GB.
		if m.OneTimeCost != usd("90") || !strings.Contains(strings.Join(m.Evidence, "\n"), "1000 GB aws to the internet at USD 0.09/GB costs USD 90.00 once, repaid in") {
			t.Errorf("move %q one-time cost %s, evidence %q; want USD 90.00 of egress with its payback", m.Action, m.OneTimeCost, m.Evidence)
		}
	}
	// Savings from the prices: on-demand 3.06 → 2.48 for two machines, spot 0.918 → 0.60 for one.
	exp := usd("3.06").MulFloat(2 * HoursPerMonth)
	wantExp := exp.Sub(exp.MulFloat(2.48 / 3.06))
	for _, m := range moves {
		if strings.HasPrefix(m.Action, "move exp") && m.MonthlySaving != wantExp {
			t.Errorf("move experiments saves %s, want %s", m.MonthlySaving, wantExp)
		}
		if strings.HasPrefix(m.Action, "move batch") && !strings.Contains(m.Action, "spot") {
			t.Errorf("move of spot work %q, want spot prices compared", m.Action)
		}
	}

	// A larger margin than any difference, or moves kept within the provider (the default, and
	// the cheaper places here are another provider's): nothing moves.
	for _, o := range []Options{{MoveMargin: 0.5, OtherProviders: true}, {}} {
		recs, _ = Recommend(moveView(), prices, o)
		for _, r := range recs {
			if r.Kind == gpucost.RecMoveRegion {
				t.Errorf("Recommend(%+v) = %q, want no move", o, r.Action)
			}
		}
	}

	// 20 TB to carry ($1,800): the experiments ($846.80 a month) repay it in 64 days, the spot
	// batch job ($232.14 a month) would take 233 days, beyond the 90-day payback, and stays.
	recs, _ = Recommend(moveView(), prices, Options{OtherProviders: true, MoveDataGB: 20000})
	var kept []string
	for _, r := range recs {
		if r.Kind == gpucost.RecMoveRegion {
			kept = append(kept, r.Action[:strings.Index(r.Action, " from")])
		}
	}
	if strings.Join(kept, ",") != "move exp-v100-01–02" {
		t.Errorf("Recommend(20 TB to move) moves %q, want only the experiments", kept)
	}

	// In a plan the commitment follows the machines to their new region.
	p, err := NewPlan(moveView(), prices, Options{OtherProviders: true})
	if err != nil {
		t.Fatal(err)
	}
	logPlan(t, p)
	found := false
	for _, s := range p.Steps() {
		found = found || s.Lever == LeverCommitments && strings.Contains(s.Recommendation.Action, "× n1-standard-8-v100 in gcp us-central1")
	}
	if !found {
		t.Errorf("NewPlan(moves) has no commitment in gcp us-central1, where the experiments moved")
	}
	if r := byID(p.Fleet, "exp-v100-02"); r.Provider != "gcp" || r.Hourly != usd("2.48") {
		t.Errorf("exp-v100-02 after the plan: %s %s %s/h, want gcp at 2.48/h", r.Provider, r.Region, r.Hourly)
	}
	checkRecs(t, stepsRecs(p.Steps()))
}

func TestMoveEgress(t *testing.T) {
	for _, c := range []struct {
		from, to string
		gb       float64
		want     string
		known    bool
	}{
		{"aws", "aws", 1000, "20", true},
		{"aws", "gcp", 1000, "90", true},
		{"gcp", "gcp", 500, "10", true},
		{"gcp", "azure", 500, "60", true},
		{"azure", "aws", 2000, "174", true},
		{"lambda", "aws", 5000, "0", true},
		{"vultr", "aws", 1000, "0", false},
	} {
		e := moveEgress(c.from, c.to, c.gb)
		if e.cost != usd(c.want) || e.known != c.known {
			t.Errorf("moveEgress(%s → %s, %v GB) = %s (known %v), want %s (known %v)", c.from, c.to, c.gb, e.cost, e.known, c.want, c.known)
		}
	}
	for _, c := range []struct {
		cost, monthly string
		want          int
	}{{"90", "846.80", 4}, {"1800", "232.14", 233}, {"0", "100", 0}, {"100", "0", 0}, {"30", "30", 30}} {
		if got := paybackDays(usd(c.cost), usd(c.monthly)); got != c.want {
			t.Errorf("paybackDays(%s, %s) = %d, want %d", c.cost, c.monthly, got, c.want)
		}
	}
}

func TestCheapestAnywhere(t *testing.T) {
	tb := NewTable(moveOffers(), nil)
	o, ok := tb.CheapestAnywhere(PriceQuery{Model: "V100", Provider: "aws", Region: "us-east-1", MinGPUs: 1})
	if !ok || o.Provider != "gcp" || o.Region != "us-central1" {
		t.Errorf("CheapestAnywhere(V100 on-demand) = %s %s %s, want gcp us-central1", o.Provider, o.Region, o.InstanceType)
	}
	o, ok = tb.CheapestAnywhere(PriceQuery{Model: "V100", MinGPUs: 1, Spot: true})
	if !ok || o.Region != "europe-west4" {
		t.Errorf("CheapestAnywhere(V100 spot) = %s %s, want gcp europe-west4", o.Provider, o.Region)
	}
	if _, ok := tb.CheapestAnywhere(PriceQuery{Model: "H100", MinGPUs: 1}); ok {
		t.Errorf("CheapestAnywhere(H100) found an offer in a V100-only table")
	}
}

// byID returns the resource with the id, nil when there is none.
func byID(f []Resource, id string) *Resource {
	for i := range f {
		if f[i].ID == id {
			return &f[i]
		}
	}
	return nil
}
