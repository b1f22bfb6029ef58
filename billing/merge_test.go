package billing_test

import (
	"fmt"
	"maps"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
)

// mergeRows are hourly rows of a few resources over three days, some with tags or extras that
// readers of different parts would hold in maps of their own, and a monthly fee that keeps its
// period: what a file split in parts side by side holds.
func mergeRows() []gpucost.CostLine {
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	var rows []gpucost.CostLine
	for h := range 72 {
		for r := range 7 {
			cost := gpucost.USD(int64(1_000_000_007 * (r + 1)))
			l := gpucost.CostLine{Provider: "AWS", BillingAccountID: "1111", ResourceID: fmt.Sprintf("i-%d", r%5),
				SkuID: []string{"A", "B"}[r%2], PricingCategory: []string{"Standard", "Dynamic", "Committed"}[(r+h/24)%3],
				ChargePeriodStart: day.Add(time.Duration(h) * time.Hour), ChargePeriodEnd: day.Add(time.Duration(h+1) * time.Hour),
				BilledCost: cost, EffectiveCost: cost, ListCost: cost, ConsumedQuantity: 1, PricingQuantity: 2, ConsumedUnit: "Hrs"}
			if r%3 == 0 {
				l.Tags = gpucost.Labels{"team": fmt.Sprint("t", r)} // a map of its own per row, as from another reader
			}
			if r == 4 {
				l.Extra = map[string]string{"x_Project": "p"}
			}
			if r == 6 {
				l.BilledCost.Currency, l.EffectiveCost.Currency, l.ListCost.Currency = "EUR", "EUR", "EUR"
			}
			rows = append(rows, l)
		}
	}
	fee := gpucost.USD(500_000_000_000)
	rows = append(rows[:100:100], append([]gpucost.CostLine{{Provider: "AWS", ResourceID: "support", SkuID: "S",
		ChargePeriodStart: day, ChargePeriodEnd: day.AddDate(0, 1, 0), BilledCost: fee, EffectiveCost: fee}}, rows[100:]...)...)
	return rows
}

// Merging the aggregators of a file's parts, in order, gives the lines, their order, rows and
// totals of one aggregator reading the whole file, wherever it is split and into however many
// parts.
func TestAggregatorMerge(t *testing.T) {
	testMerge(t, mergeRows(), [][]int{{0}, {1}, {100}, {101}, {252}, {503}, {504}, {50, 200, 400}, {0, 0, 300}})
}

// Bills of many lines that seldom merge fill many blocks of tuples and cells in each part, which
// the merge takes over as they are.
func TestAggregatorMergeBlocks(t *testing.T) {
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	var rows []gpucost.CostLine
	for i := range 30_000 {
		r := i % 9_000
		if i%7 == 0 {
			r = i % 50 // lines many parts share
		}
		start := day.AddDate(0, 0, i/9_000)
		rows = append(rows, gpucost.CostLine{Provider: "AWS", ResourceID: fmt.Sprintf("i-%d", r), SkuID: "A",
			ChargePeriodStart: start, ChargePeriodEnd: start.Add(time.Hour), BilledCost: gpucost.USD(int64(i + 1)), ConsumedQuantity: 1})
	}
	testMerge(t, rows, [][]int{{5_000}, {4_096, 8_192}, {10_000, 20_000, 25_000}, {1, 2, 29_999}})
}

// testMerge checks that the aggregators of rows cut at each set of cuts, merged in order, give
// the lines of one aggregator of all the rows.
func testMerge(t *testing.T, rows []gpucost.CostLine, cutSets [][]int) {
	t.Helper()
	var whole billing.Aggregator
	for i := range rows {
		whole.Add(&rows[i])
	}
	want := collect(&whole)
	for _, cuts := range cutSets {
		t.Run(fmt.Sprint(cuts), func(t *testing.T) {
			parts := make([]billing.Aggregator, len(cuts)+1)
			from := 0
			for p, cut := range append(cuts, len(rows)) {
				for i := from; i < cut; i++ {
					l := rows[i]
					l.Tags = maps.Clone(l.Tags)
					parts[p].Add(&l)
				}
				from = max(from, cut)
			}
			for p := 1; p < len(parts); p++ {
				parts[0].Merge(&parts[p])
			}
			if parts[0].Rows() != len(rows) || parts[0].Len() != whole.Len() {
				t.Fatalf("Merge at %v: %d rows, %d lines, want %d, %d", cuts, parts[0].Rows(), parts[0].Len(), len(rows), whole.Len())
			}
			if got, want := fmt.Sprint(parts[0].Totals()), fmt.Sprint(whole.Totals()); got != want {
				t.Errorf("Merge at %v: totals %s, want %s", cuts, got, want)
			}
			got := collect(&parts[0])
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("Merge at %v: line %d is\n%s\nwant\n%s", cuts, i, got[i], want[i])
				}
			}
		})
	}
}

// collect returns an aggregator's lines as text, in order, with every field.
func collect(a *billing.Aggregator) []string {
	var out []string
	for l := range a.Lines() {
		out = append(out, fmt.Sprintf("%+v", *l))
	}
	return out
}

// The ranks of many tuples, sorted by number alone, are those the entries' sort gives.
func TestDimRanksCompact(t *testing.T) {
	var a billing.Aggregator
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	for i := range 5000 {
		r := (i * 7919) % 1200
		l := gpucost.CostLine{ResourceID: fmt.Sprintf("i-%d", r), SkuID: fmt.Sprint("S", i%3), PricingCategory: fmt.Sprint(i % 2),
			ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour), BilledCost: gpucost.USD(1)}
		a.Add(&l)
	}
	if got, want := billing.DimRanksCompact(&a), billing.DimRanks(&a); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dimRanksCompact = %v, want dimRanks' %v", got, want)
	}
}
