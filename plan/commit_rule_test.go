package plan

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpucost/gpucost"
)

// allRules are the buying rules the tests compare.
var allRules = []BuyRule{RuleTrailing, RuleRecent, RuleWeighted, RuleLevel, RuleAuto}

// TestBacktestRules back-tests every buying rule on the demo shape (4-week lookback, weekly
// purchases) and the Alibaba openb trace (1-week lookback, daily purchases), logs the captured
// share of the hindsight optimum and guards the measured levels (BuyRule's doc lists them).
// Only auto reaches the 95% on both shapes at every discount.
func TestBacktestRules(t *testing.T) {
	type shape struct {
		name             string
		usage            []float64
		lookback, period int
		floor            map[BuyRule]float64 // lowest captured share accepted at any discount
	}
	shapes := []shape{
		{"demo", demoUsage(16, 1), 672, 168, map[BuyRule]float64{RuleTrailing: 0.99, RuleRecent: 0.99, RuleWeighted: 0.99, RuleLevel: 0.83, RuleAuto: 0.99}},
		{"alibaba", alibabaUsage(t), 168, 24, map[BuyRule]float64{RuleTrailing: 0.88, RuleRecent: 0.93, RuleWeighted: 0.92, RuleLevel: 0.95, RuleAuto: 0.95}},
	}
	for _, s := range shapes {
		for _, rule := range allRules {
			for _, d := range []float64{0.28, 0.4, 0.57} {
				r, err := Backtest(BacktestInput{Usage: s.usage, OnDemand: usd(t, "1"), Discount: d,
					Lookback: s.lookback, Period: s.period, Rule: rule})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%-7s %-8s d=%.2f: captured %.2f%% (worst window %.2f%%)", s.name, rule, d, 100*r.Captured, 100*r.WorstCaptured)
				if r.Captured < s.floor[rule] {
					t.Errorf("Backtest(%s, %s, d=%v) captured %.4f, want ≥ %v", s.name, rule, d, r.Captured, s.floor[rule])
				}
			}
		}
	}
}

// TestBuyRulesHonest: no rule's purchase depends on the hours it is scored on; changing them
// leaves every window's commitment unchanged.
func TestBuyRulesHonest(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	usage := demoUsage(8, 5)
	for _, rule := range allRules {
		for _, step := range []float64{0, 1} {
			in := BacktestInput{Usage: usage, OnDemand: usd(t, "1"), Discount: 0.4, Step: step, Lookback: 336, Period: 168, Rule: rule}
			base, err := Backtest(in)
			if err != nil {
				t.Fatal(err)
			}
			for i, w := range base.Windows {
				changed := append([]float64(nil), usage...)
				for h := w.Start; h < len(changed); h++ {
					changed[h] = rng.Float64() * 200
				}
				in.Usage = changed
				r, err := Backtest(in)
				if err != nil {
					t.Fatal(err)
				}
				if r.Windows[i].Commitment != w.Commitment {
					t.Fatalf("rule %s: window %d bought %v, and %v once the scored hours changed", rule, i, w.Commitment, r.Windows[i].Commitment)
				}
			}
			in.Usage = usage
		}
	}
}

// TestWeightedCommitment: with equal weights (a very long half-life) the weighted rule is the
// plain quantile, and its level minimises the weighted cost over a grid.
func TestWeightedCommitment(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	for trial := range 100 {
		past := make([]float64, 1+rng.IntN(80))
		for i := range past {
			past[i] = math.Round(rng.Float64() * 30)
		}
		d := 0.05 + 0.9*rng.Float64()
		if got, want := weightedCommitment(past, d, 0, 1e12), OptimalCommitment(past, d, 0); got != want {
			t.Fatalf("trial %d: equal weights give %v, quantile %v", trial, got, want)
		}
		half := 1 + 20*rng.Float64()
		hours := make([]weighted, len(past))
		for i, u := range past {
			hours[i] = weighted{u, math.Exp2(-float64(len(past)-1-i) / half)}
		}
		for _, step := range []float64{0, 1} {
			c := weightedCommitment(past, d, step, half)
			for l := 0.0; l <= 31; l += 0.25 {
				if step == 0 || l == math.Trunc(l) {
					if weightedCost(hours, l, d) < weightedCost(hours, c, d)-1e-9 {
						t.Fatalf("trial %d: weighted level %v (step %v) costs more than %v", trial, c, step, l)
					}
				}
			}
		}
	}
	if _, err := Backtest(BacktestInput{Usage: []float64{1, 2}, OnDemand: usd(t, "1"), Discount: 0.4, Lookback: 1, Period: 1, Rule: "psychic"}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Backtest(rule psychic) error = %v, want EInvalid", err)
	}
}
