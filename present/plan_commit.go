package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
)

// commitUnitNote says what plan commit's units are.
const commitUnitNote = "A unit is one GPU with --from-store (GPU-hours per hour), one unit of the usage column with --usage."

// Commit is plan commit's table: the hindsight-optimal commitment's figures, one a row; the
// Saving row is the printed all on-demand less the printed cost with the commitment.
func Commit(c plan.CommitResult) Table {
	r := Table{
		Title:   fmt.Sprintf("Commitment for %d hours of usage at %.0f%% off, %s term, %s upfront", c.Hours, 100*c.Discount, c.Term, c.Payment),
		Columns: []string{"Figure", "Value"},
		Right:   []int{1},
		JSON:    c,
	}
	add := func(k, v string) { r.Rows = append(r.Rows, []string{k, v}) }
	add("Commit per hour (units)", fmt.Sprintf("%.2f", c.Commitment))
	add("Commitment's on-demand value per hour", c.CommitmentOnDemand.Dollars())
	add("Commitment cost per hour", c.CommitmentCost.Dollars())
	add("Utilisation of the commitment", fmt.Sprintf("%.1f%%", 100*c.Utilisation))
	add("Usage covered", fmt.Sprintf("%.1f%%", 100*c.Coverage))
	add("All on-demand", c.OnDemandCost.Dollars())
	add("With the commitment", c.PlanCost.Dollars())
	add("Saving", printedCents(c.OnDemandCost).Sub(printedCents(c.PlanCost)).Dollars())
	add("Saving of all on-demand", fmt.Sprintf("%.1f%%", c.SavingPercent))
	add("Saving per month", c.MonthlySaving.Dollars())
	add("Upfront", c.Upfront.Dollars())
	add("Monthly fee", c.MonthlyFee.Dollars())
	if c.BreakEvenMonth > 0 {
		add("Break-even month", fmt.Sprint(c.BreakEvenMonth))
	}
	if c.Note != "" {
		r.Notes = append(r.Notes, c.Note)
	}
	return r
}

// Backtest is plan commit --backtest's table: each scored window's purchase against the
// hindsight optimum. lookback and period are the flags' durations, for the title. The windows'
// savings are rounded by largest remainder (gpucost.Apportion) so that they add up to the
// totals in the note.
func Backtest(res plan.BacktestResult, lookback, period time.Duration, discount float64) Table {
	r := Table{
		Title:   fmt.Sprintf("Back-test: buy on the last %s, score the next %s, discount %.0f%%", lookback, period, 100*discount),
		Columns: []string{"From hour", "Bought units/h", "Optimal units/h", "Saving $", "Optimal saving $", "Captured", "Utilisation"},
		Right:   []int{0, 1, 2, 3, 4, 5, 6},
		JSON:    res,
	}
	saving, optimal := make([]gpucost.Money, len(res.Windows)), make([]gpucost.Money, len(res.Windows))
	for i, w := range res.Windows {
		saving[i], optimal[i] = w.Saving, w.OptimalSaving
	}
	saving, optimal = gpucost.Apportion(saving, 2), gpucost.Apportion(optimal, 2)
	totalSaving, totalOptimal := gpucost.Money{Currency: res.Saving.Currency}, gpucost.Money{Currency: res.OptimalSaving.Currency}
	for i, w := range res.Windows {
		r.Rows = append(r.Rows, []string{fmt.Sprint(w.Start), fmt.Sprintf("%.2f", w.Commitment), fmt.Sprintf("%.2f", w.Optimal),
			saving[i].Fixed(2), optimal[i].Fixed(2), fmt.Sprintf("%.1f%%", 100*w.Captured), fmt.Sprintf("%.1f%%", 100*w.Utilisation)})
		totalSaving, totalOptimal = totalSaving.Add(saving[i]), totalOptimal.Add(optimal[i])
	}
	r.Notes = append(r.Notes, fmt.Sprintf("Over %d scored hours: saved %s of a hindsight-optimal %s (%.1f%%; worst window %.1f%%).",
		res.ScoredHours, totalSaving.Dollars(), totalOptimal.Dollars(), 100*res.Captured, 100*res.WorstCaptured))
	r.Notes = append(r.Notes, commitUnitNote)
	return r
}

// Layers is plan commit --layer's table: the cost-minimising mix of several instruments, and
// the usage above the layers on-demand, whose costs add up to the plan cost in the title
// (gpucost.Apportion); the saving in the title is the printed on-demand cost less the printed
// plan cost, and the mix's saving against the best single instrument likewise.
func Layers(res plan.LayerResult) Table {
	costs := make([]gpucost.Money, 0, len(res.Layers)+1)
	for _, l := range res.Layers {
		costs = append(costs, l.Cost)
	}
	costs = gpucost.Apportion(append(costs, res.OverflowCost), 2)
	planCost := gpucost.Money{Currency: res.PlanCost.Currency}
	for _, c := range costs {
		planCost = planCost.Add(c)
	}
	r := Table{
		Title: fmt.Sprintf("Layered commitments over %d hours: %s instead of %s on-demand (%s saved, %.1f%%)",
			res.Hours, planCost.Dollars(), res.OnDemandCost.Dollars(), printedCents(res.OnDemandCost).Sub(planCost).Dollars(), res.SavingPercent),
		Columns: []string{"Instrument", "Discount", "From units/h", "Units/h", "Cost", "Utilisation"},
		Right:   []int{1, 2, 3, 4, 5},
		JSON:    res,
	}
	for i, l := range res.Layers {
		r.Rows = append(r.Rows, []string{l.Name, fmt.Sprintf("%.0f%%", 100*l.Discount), fmt.Sprintf("%.2f", l.From),
			fmt.Sprintf("%.2f", l.Units), costs[i].Dollars(), fmt.Sprintf("%.1f%%", 100*l.Utilisation)})
	}
	r.Rows = append(r.Rows, []string{"on-demand above the layers", "0%", fmt.Sprintf("%.2f", res.Committed), "", costs[len(res.Layers)].Dollars(), ""})
	r.Notes = append(r.Notes, fmt.Sprintf("The best single instrument, %s, would cost %s: the mix saves %s more.",
		res.BestSingle, res.BestSingleCost.Dollars(), printedCents(res.BestSingleCost).Sub(planCost).Dollars()))
	r.Notes = append(r.Notes, commitUnitNote)
	return r
}

// ROI is plan commit roi's table: on-demand against 1-year and 3-year reservations (reference
// case R2).
func ROI(res plan.ROIResult) Table {
	r := Table{
		Title:   fmt.Sprintf("%d instances × %d h a month", res.Instances, res.HoursPerMonth),
		Columns: []string{"Option", "$/h", "Monthly", "Yearly", "Monthly saving", "Yearly saving", "Term saving", "Saving"},
		Right:   []int{1, 2, 3, 4, 5, 6, 7},
		JSON:    res,
	}
	for _, row := range res.Rows {
		r.Rows = append(r.Rows, []string{row.Option, row.Hourly.Dollars(), row.Monthly.Dollars(), row.Yearly.Dollars(),
			row.MonthlySaving.Dollars(), row.YearlySaving.Dollars(), row.TermSaving.Dollars(), fmt.Sprintf("%.1f%%", row.SavingPercent)})
	}
	return r
}
