package present

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// TestEstimateLeftAfterAddsUp: a budget of $1.00 with a forecast of $0.335 and a job of $0.335
// prints $1.00 − $0.34 − $0.34, so Left after prints $0.32, its exact $0.33 less the two cents
// rounding added; the refusal line says the same. The JSON keeps the exact left.
func TestEstimateLeftAfterAddsUp(t *testing.T) {
	third := amounts335(t, 1)[0]
	c := budget.JobCheck{Budget: "team", Period: "2026-11", Amount: usd(t, "1"), Spent: usd(t, "0.2"), Forecast: third, Base: third,
		JobCost: third, LeftAfter: usd(t, "0.33")}
	est := budget.Estimate{Job: budget.Job{Name: "train", Hours: 1, Pricing: "on-demand"}, Instances: 1, PerHour: third, Cost: third}
	tab := Estimate(est, []budget.JobCheck{c}, true, nil)
	row := tab.Rows[0]
	amount, forecast, job, left := parseDollarsCell(t, row[2]), parseDollarsCell(t, row[4]), parseDollarsCell(t, row[5]), parseDollarsCell(t, row[6])
	if got := amount.Sub(forecast).Sub(job); left != got || row[6] != "$0.32" {
		t.Errorf("Estimate row = %q: left after %s, want amount − forecast − job cost as printed, %s ($0.32)", row, row[6], got.Dollars())
	}
	c.Base, c.LeftAfter = c.Spent, usd(t, "0.465") // --against actual: the job adds to the spend
	if row := Estimate(est, []budget.JobCheck{c}, true, nil).Rows[0]; row[6] != "$0.46" {
		t.Errorf("Estimate(against the spend) row = %q: left after %s, want $1.00 − $0.20 − $0.34 = $0.46", row, row[6])
	}
	c.Amount, c.Base, c.LeftAfter, c.Breaks = usd(t, "0.5"), third, usd(t, "-0.17"), true
	lines, broken := EstimateRefusals(nil, []budget.JobCheck{c})
	if !broken || len(lines) != 1 || !strings.HasSuffix(lines[0], ": -$0.18 left after it") {
		t.Errorf("EstimateRefusals(broken) = %q, %v; want -$0.18 left, $0.50 − $0.34 − $0.34 as printed", lines, broken)
	}
	if js := tab.JSON.(estimateJSON); js.Budgets[0].LeftAfter != usd(t, "0.33") {
		t.Errorf("Estimate JSON left after = %s, want the exact 0.33", js.Budgets[0].LeftAfter.Decimal())
	}
}

// TestBudgetStatusLeftAddsUp: $1.00 with $0.335 spent prints Left $0.66, $1.00 − $0.34, where
// the exact $0.665 prints $0.67.
func TestBudgetStatusLeftAddsUp(t *testing.T) {
	s := budget.Status{Budget: "team", Period: "2026-11", Amount: usd(t, "1"), Spent: amounts335(t, 1)[0], Remaining: usd(t, "0.665"),
		Forecast: budget.Projection{Projected: usd(t, "0.5")}, BurnRate: gpucost.USD(0), AllowedRate: gpucost.USD(0)}
	row := BudgetStatus([]budget.Status{s}, nil).Rows[0]
	if row[2] != "$1.00" || row[3] != "$0.34" || row[8] != "$0.66" {
		t.Errorf("BudgetStatus row = %q; want amount $1.00, spent $0.34, left $0.66", row)
	}
}
