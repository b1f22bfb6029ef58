package billing_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
)

// The radix sort of the lines gives the order comparing them gives: lines in shuffled order,
// hourly and daily, some spanning days (a tuple's lines starting together, their ends apart),
// read in parts and merged (holes between them).
func TestOrderRadix(t *testing.T) {
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	for seed := range uint64(8) {
		g := rand.New(rand.NewPCG(seed, 7))
		parts := make([]billing.Aggregator, 1+g.IntN(3))
		for i := range 3000 + g.IntN(3000) {
			from := day.Add(time.Duration(g.IntN(24*20)) * time.Hour)
			to := from.Add(time.Hour)
			if g.IntN(10) == 0 {
				from = from.Truncate(24 * time.Hour)
				to = from.Add(time.Duration(1+g.IntN(3)) * 24 * time.Hour)
			}
			l := gpucost.CostLine{ResourceID: fmt.Sprint("i-", g.IntN(300)), SkuID: fmt.Sprint("S", g.IntN(3)),
				PricingCategory: fmt.Sprint(g.IntN(2)), ChargePeriodStart: from, ChargePeriodEnd: to, BilledCost: gpucost.USD(int64(i))}
			parts[i*len(parts)/6000%len(parts)].Add(&l)
		}
		a := &parts[0]
		for i := range parts[1:] {
			a.Merge(&parts[i+1])
		}
		want := billing.OrderCells(a, true)
		if got := billing.OrderCells(a, false); !slices.Equal(got, want) {
			t.Fatalf("seed %d: %d lines in radix order %v…, want %v…", seed, len(got), got[:min(20, len(got))], want[:min(20, len(want))])
		}
	}
}
