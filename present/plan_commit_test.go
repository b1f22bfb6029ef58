package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// TestBacktestAddsUp: three windows saving $0.335 each print $1.01 ($1.005) in the note; the
// Saving and Optimal saving columns add up to it, where rounding each printed 0.34 three times.
func TestBacktestAddsUp(t *testing.T) {
	res := plan.BacktestResult{ScoredHours: 72, Saving: usd(t, "1.005"), OptimalSaving: usd(t, "1.005"), Captured: 1, WorstCaptured: 1}
	for i, c := range amounts335(t, 3) {
		res.Windows = append(res.Windows, plan.BacktestWindow{Start: 24 * i, Commitment: 1, Optimal: 1, Saving: c, OptimalSaving: c, Captured: 1, Utilisation: 1})
	}
	tab := Backtest(res, 24*time.Hour, 24*time.Hour, 0.4)
	if want := "Over 72 scored hours: saved $1.01 of a hindsight-optimal $1.01"; !strings.HasPrefix(tab.Notes[0], want) {
		t.Errorf("Backtest note = %q, want it to start %q", tab.Notes[0], want)
	}
	for _, col := range []int{3, 4} {
		sum := gpucost.USD(0)
		for _, r := range tab.Rows {
			sum = sum.Add(parseDollarsCell(t, "$"+r[col]))
		}
		if sum.Fixed(2) != "1.01" {
			t.Errorf("Backtest column %q = %q, adds up to %s, want 1.01", tab.Columns[col], columnCells(tab.Rows, col), sum.Fixed(2))
		}
	}
}

// TestLayersAddUp: two layers of $0.335 and $0.334 of usage above them on-demand cost $1.00
// ($1.004) in the title; the Cost column, the on-demand row included, adds up to it, where
// rounding each printed $1.01, and the savings in the title and the note are the printed
// costs' differences: $2.01 − $1.00 and $1.51 − $1.00, where the exact $1.001 and $0.502 print
// $1.00 and $0.50.
func TestLayersAddUp(t *testing.T) {
	third := amounts335(t, 1)[0]
	res := plan.LayerResult{Hours: 10, Committed: 2, OnDemandCost: usd(t, "2.005"), OverflowCost: usd(t, "0.334"), PlanCost: usd(t, "1.004"),
		Saving: usd(t, "1.001"), SavingPercent: 49.9, BestSingle: "1y", BestSingleCost: usd(t, "1.506"), SavingVsBestOnly: usd(t, "0.502"),
		Layers: []plan.LayerAmount{{Name: "3y", Discount: 0.57, Units: 1, Cost: third, Utilisation: 1},
			{Name: "1y", Discount: 0.4, From: 1, Units: 1, Cost: third, Utilisation: 1}}}
	tab := Layers(res)
	if want := ": $1.00 instead of $2.01 on-demand ($1.01 saved, 49.9%)"; !strings.HasSuffix(tab.Title, want) {
		t.Errorf("Layers title = %q, want it to end %q", tab.Title, want)
	}
	if len(tab.Rows) != 3 || tab.Rows[2][0] != "on-demand above the layers" {
		t.Fatalf("Layers rows = %q, want the two layers and the on-demand above them", tab.Rows)
	}
	if got := sumDollarsColumn(t, tab.Rows, 4); got.Dollars() != "$1.00" {
		t.Errorf("Layers Cost column = %q, adds up to %s, want the title's $1.00", columnCells(tab.Rows, 4), got.Dollars())
	}
	if want := "would cost $1.51: the mix saves $0.51 more."; !strings.HasSuffix(tab.Notes[0], want) {
		t.Errorf("Layers note = %q, want it to end %q", tab.Notes[0], want)
	}
}

// TestCommitSavingAddsUp: all on-demand $2.005 and $1.004 with the commitment print $2.01 and
// $1.00; the Saving row prints their difference, $1.01, where the exact $1.001 prints $1.00.
func TestCommitSavingAddsUp(t *testing.T) {
	tab := Commit(plan.CommitResult{OnDemandCost: usd(t, "2.005"), PlanCost: usd(t, "1.004"), Saving: usd(t, "1.001")})
	got := map[string]string{}
	for _, r := range tab.Rows {
		got[r[0]] = r[1]
	}
	if got["All on-demand"] != "$2.01" || got["With the commitment"] != "$1.00" || got["Saving"] != "$1.01" {
		t.Errorf("Commit rows = %q; want $2.01 − $1.00 = $1.01 saving", tab.Rows)
	}
}
