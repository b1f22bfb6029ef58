package budget

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
)

func TestMatches(t *testing.T) {
	gpu := &gpucost.CostLine{Provider: "AWS", ServiceName: "Amazon Elastic Compute Cloud", InstanceType: "p4d.24xlarge",
		Tags: gpucost.Labels{"user:team": "research", "Project": "llm", "env": "prod", "kubernetes_namespace": "train"}}
	disk := &gpucost.CostLine{Provider: "Google Cloud", ServiceName: "Compute Engine", ChargeDescription: "SSD backed PD Capacity",
		Tags: gpucost.Labels{"team": "research"}}
	for _, tc := range []struct {
		name  string
		scope Scope
		want  [2]bool // gpu, disk
	}{
		{"empty", Scope{}, [2]bool{true, true}},
		{"team from user:team", Scope{Team: "research"}, [2]bool{true, true}},
		{"project", Scope{Project: "llm"}, [2]bool{true, false}},
		{"tags", Scope{Tags: map[string]string{"env": "prod"}}, [2]bool{true, false}},
		{"tag value differs", Scope{Tags: map[string]string{"env": "dev"}}, [2]bool{false, false}},
		{"namespace", Scope{Namespace: "train"}, [2]bool{true, false}},
		{"provider alias", Scope{Provider: "gcp"}, [2]bool{false, true}},
		{"provider any case", Scope{Provider: "aws"}, [2]bool{true, false}},
		{"service", Scope{Service: "compute engine"}, [2]bool{false, true}},
		{"gpu only", Scope{GPUOnly: true}, [2]bool{true, false}},
		{"all of them", Scope{Team: "research", Project: "llm", GPUOnly: true, Provider: "AWS", Namespace: "train"}, [2]bool{true, false}},
	} {
		if got := [2]bool{Matches(tc.scope, gpu), Matches(tc.scope, disk)}; got != tc.want {
			t.Errorf("Matches(%s) on the GPU and disk lines = %v, want %v", tc.name, got, tc.want)
		}
	}
	m := &Matcher{TagKeys: map[string][]string{"team": {"squad"}}, IsGPU: func(*gpucost.CostLine) bool { return true }}
	if m.Matches(Scope{Team: "research"}, gpu) || !m.Matches(Scope{GPUOnly: true}, disk) {
		t.Error("Matcher ignores its TagKeys or IsGPU")
	}
}

func TestTally(t *testing.T) {
	d0 := day("2026-11-03")
	lines := []*gpucost.CostLine{
		{ChargePeriodStart: d0.Add(time.Hour), EffectiveCost: gpucost.USD(1e9), BilledCost: gpucost.USD(3e9), Tags: gpucost.Labels{"team": "a"}},
		{ChargePeriodStart: d0.Add(23 * time.Hour), EffectiveCost: gpucost.USD(2e9), BilledCost: gpucost.USD(2e9), Tags: gpucost.Labels{"team": "a"}},
		{ChargePeriodStart: d0.AddDate(0, 0, 1), EffectiveCost: gpucost.USD(4e9), Tags: gpucost.Labels{"team": "b"}},
		{ChargePeriodStart: d0, EffectiveCost: gpucost.Money{Nanos: 9e9, Currency: "EUR"}, Tags: gpucost.Labels{"team": "a"}},
	}
	tally := NewTally([]Budget{
		{Scope: Scope{Team: "a"}, Amount: gpucost.USD(1), Cost: Effective},
		{Scope: Scope{Team: "a"}, Amount: gpucost.USD(1), Cost: Billed},
		{Amount: gpucost.Money{Nanos: 1, Currency: "EUR"}},
	}, nil)
	for _, l := range lines {
		tally.Add(l)
	}
	want := [][]DayCost{
		{{d0, gpucost.USD(3e9)}},
		{{d0, gpucost.USD(5e9)}},
		{{d0, gpucost.Money{Nanos: 9e9, Currency: "EUR"}}},
	}
	for i, w := range want {
		if got := tally.Daily(i); !slices.Equal(got, w) {
			t.Errorf("Tally.Daily(%d) = %v, want %v", i, got, w)
		}
	}
	if !slices.Equal(tally.OtherCurrency, []int{1, 0, 3}) {
		t.Errorf("OtherCurrency = %v, want [1 0 3]", tally.OtherCurrency)
	}
	got := DailyCosts(Scope{Team: "b"}, "USD", slices.Values(lines))
	if len(got) != 1 || got[0].Cost != gpucost.USD(4e9) || !got[0].Day.Equal(d0.AddDate(0, 0, 1)) {
		t.Errorf("DailyCosts(team b) = %v", got)
	}
}

// TestTallyFOCUSSample sums the real FOCUS 1.0 sample bill (AWS, Microsoft and Oracle rows) per
// provider budget: every line in scope is counted once, in its currency, and the
// provider budgets add up to the whole bill.
func TestTallyFOCUSSample(t *testing.T) {
	const sample = "../../shared/datasets/focus/focus_sample.csv"
	if _, err := os.Stat(sample); err != nil {
		t.Skipf("the shared datasets are not beside the repository (%v): clone them to ../shared", err)
	}
	providers := []string{"aws", "azure", "oracle"}
	var budgets []Budget
	for _, p := range providers {
		budgets = append(budgets, Budget{Name: p, Scope: Scope{Provider: p}, Amount: gpucost.USD(1), Cost: Billed})
	}
	budgets = append(budgets, Budget{Name: "all", Amount: gpucost.USD(1), Cost: Billed})
	tally := NewTally(budgets, nil)
	var n int
	if _, err := focus.ReadFile(sample, func(l *gpucost.CostLine) error {
		tally.Add(l)
		n++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	sum := func(i int) int64 {
		var s int64
		for _, d := range tally.Daily(i) {
			s += d.Cost.Nanos
		}
		return s
	}
	var parts int64
	for i, p := range providers {
		if sum(i) == 0 {
			t.Errorf("the %s budget counted nothing of the FOCUS sample", p)
		}
		parts += sum(i)
	}
	if all := sum(len(providers)); all != parts || n != 1000 {
		t.Errorf("provider budgets sum to %d nanos, the whole bill %d (%d lines)", parts, all, n)
	}
}
