package budget

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// BenchmarkForecast projects a month from eight weeks of daily cost.
func BenchmarkForecast(b *testing.B) {
	daily := seasonal(day("2026-09-01"), day("2026-11-11"), 0.1, 1)
	start, end := day("2026-11-01"), day("2026-12-01")
	for b.Loop() {
		Forecast(daily, start, end, day("2026-11-11"))
	}
}

// BenchmarkTallyAdd sums cost lines into ten budgets with team, tag and GPU scopes.
func BenchmarkTallyAdd(b *testing.B) {
	var budgets []Budget
	for i := range 10 {
		budgets = append(budgets, Budget{Name: fmt.Sprint("b", i), Amount: gpucost.USD(1), Scope: Scope{Team: fmt.Sprint("team", i%5), GPUOnly: i%2 == 0, Tags: map[string]string{"env": "prod"}}})
	}
	tally := NewTally(budgets, nil)
	lines := make([]gpucost.CostLine, 64)
	for i := range lines {
		lines[i] = gpucost.CostLine{Provider: "AWS", InstanceType: []string{"p4d.24xlarge", "m5.large"}[i%2], EffectiveCost: gpucost.USD(1e9),
			ChargePeriodStart: day("2026-11-01").Add(time.Duration(i) * time.Hour), Tags: gpucost.Labels{"team": fmt.Sprint("team", i%7), "env": "prod"}}
	}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		tally.Add(&lines[i%len(lines)])
	}
}

func BenchmarkLoad(b *testing.B) {
	data, err := os.ReadFile("testdata/budgets.yaml")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Load("budgets.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}
