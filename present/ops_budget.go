package present

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/budget/alert"
	"github.com/gpucost/gpucost/enforce"
)

// BudgetSpendNotes says what the reader should know about the spend budgets were evaluated
// from: that there was no store file (noStore), or lines left out for their currency.
func BudgetSpendNotes(sp *budget.Spend, noStore bool) []string {
	var notes []string
	if noStore {
		notes = append(notes, "No store file: nothing is spent yet (import bills with gpucost import billing, or give --db).")
	}
	for i, n := range sp.OtherCurrency {
		if n > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d lines in scope are in a currency other than %s and were left out.",
				sp.Budgets[i].Name, n, sp.Budgets[i].Amount.Currency))
		}
	}
	return notes
}

// BudgetStatus is "budget status": where each budget stands, with a burn-down sparkline for
// people; notes are BudgetSpendNotes. Left is the printed amount less the printed spend, so
// that it is their difference as printed; the JSON carries the exact budget.Status.
func BudgetStatus(st []budget.Status, notes []string) Table {
	t := Table{
		Title: "Budgets",
		Columns: []string{"Budget", "Period", "Amount", "Spent", "%", "Forecast", "p10–p90", "Forecast %", "Left",
			"Days left", "Burn/day", "Allowed/day", "Crossed", "Burn-down"},
		Right:     []int{2, 3, 4, 5, 7, 8, 9, 10, 11},
		TableOnly: []int{13},
		JSON:      st,
		Notes:     notes,
	}
	for _, s := range st {
		var crossed []string
		for _, c := range s.Crossed {
			crossed = append(crossed, c.Threshold.String())
		}
		band := "not enough data"
		if s.Forecast.Banded() {
			band = s.Forecast.Low.Dollars() + "–" + s.Forecast.High.Dollars()
		}
		t.Rows = append(t.Rows, []string{s.Budget, s.Period, s.Amount.Dollars(), s.Spent.Dollars(), fmt.Sprintf("%.0f%%", s.Percent),
			s.Forecast.Projected.Dollars(), band,
			fmt.Sprintf("%.0f%%", s.ForecastPercent), printedCents(s.Amount).Sub(printedCents(s.Spent)).Dollars(), fmt.Sprint(s.DaysLeft), s.BurnRate.Dollars(),
			s.AllowedRate.Dollars(), strings.Join(crossed, ", "), Sparkline(s.BurnDown(), 31)})
	}
	for _, s := range st {
		if s.DataDays < len(s.Daily) {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: burn rate over %d days with data of the %d elapsed in %s.",
				s.Budget, s.DataDays, len(s.Daily), s.Period))
		}
		if !s.Forecast.Banded() && s.Forecast.HistoryDays > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: no p10–p90 range: %d days of history, the range needs %d.",
				s.Budget, s.Forecast.HistoryDays, budget.MinBandDays))
		}
		if s.Forecast.Method != budget.MethodSeasonal {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: forecast by %s (%d days of history; weekday seasonality needs 14).",
				s.Budget, s.Forecast.Method, s.Forecast.HistoryDays))
		}
	}
	return t
}

// BudgetAlerts is "budget check": each alert and target with what happened to it, the budgets
// that crossed nothing, and the count of each result; notes are BudgetSpendNotes.
func BudgetAlerts(statuses []budget.Status, alerts []*alert.Outcome, dryRun bool, notes []string) Table {
	t := Table{
		Title:   "Budget alerts",
		Columns: []string{"Budget", "Period", "Threshold", "Reached", "Target", "Result", "Attempts", "Error"},
		Right:   []int{3, 6},
		JSON:    alerts,
		Notes:   notes,
	}
	if dryRun {
		t.Title += " (dry run: nothing sent or recorded)"
	}
	if alerts == nil {
		t.JSON = []*alert.Outcome{}
	}
	for _, a := range alerts {
		attempts := ""
		if a.Attempts > 0 {
			attempts = fmt.Sprint(a.Attempts)
		}
		threshold := a.Threshold
		if len(a.Also) > 0 {
			threshold += " (also " + strings.Join(a.Also, ", ") + ")"
		}
		t.Rows = append(t.Rows, []string{a.Budget, a.Period, threshold, fmt.Sprintf("%.0f%%", a.Percent), a.Target,
			a.Result, attempts, a.Error})
	}
	for _, s := range statuses {
		if len(s.Crossed) == 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: no threshold crossed in %s (%.0f%% spent, forecast %.0f%%).",
				s.Budget, s.Period, s.Percent, s.ForecastPercent))
		}
	}
	var counts []string
	for _, res := range []string{alert.Sent, alert.WouldSend, alert.Delivered, alert.Failed, alert.NoTarget} {
		if n := alert.Count(alerts, res); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, res))
		}
	}
	if len(counts) > 0 {
		t.Notes = append(t.Notes, "Alerts: "+strings.Join(counts, ", ")+".")
	}
	return t
}

// BudgetDelivery is one attempt as "budget deliveries --output json" prints it.
type BudgetDelivery struct {
	At        time.Time `json:"at"`
	Key       string    `json:"key"`
	Kind      string    `json:"kind"`
	Target    string    `json:"target"`
	Attempt   int       `json:"attempt"`
	OK        bool      `json:"ok"`
	Final     bool      `json:"final"`
	Status    int       `json:"status"`
	DurationS float64   `json:"duration_s"`
	Error     string    `json:"error,omitempty"`
}

// BudgetDeliveries is "budget deliveries": the delivery log's attempts, oldest first; noStore
// says there is no store file yet, so nothing was ever sent.
func BudgetDeliveries(ds []gpucost.Delivery, noStore bool) Table {
	t := Table{
		Title:   "Alert deliveries",
		Columns: []string{"Time", "Alert key", "Target", "Attempt", "Result", "Status", "Took", "Error"},
		Right:   []int{3, 5, 6},
	}
	rows := make([]BudgetDelivery, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, BudgetDelivery{At: d.At, Key: d.Key, Kind: d.Kind, Target: d.Target, Attempt: d.Attempt, OK: d.OK,
			Final: d.Final, Status: d.Status, DurationS: d.Duration.Seconds(), Error: d.Error})
		status := ""
		if d.Status != 0 {
			status = fmt.Sprint(d.Status)
		}
		t.Rows = append(t.Rows, []string{d.At.UTC().Format(time.RFC3339), d.Key, d.Target, fmt.Sprint(d.Attempt),
			deliveryOutcome(d), status, d.Duration.Round(time.Millisecond).String(), d.Error})
	}
	t.JSON = rows
	switch {
	case noStore:
		t.Notes = append(t.Notes, "No store file: no alert has been sent yet (gpucost budget check sends them).")
	case len(ds) == 0:
		t.Notes = append(t.Notes, "No delivery matches.")
	}
	return t
}

// deliveryOutcome says how a delivery attempt ended.
func deliveryOutcome(d gpucost.Delivery) string {
	switch {
	case d.OK:
		return "delivered"
	case d.Final:
		return "failed"
	default:
		return "failed, retried"
	}
}

// estimateJSON is what estimate --output json prints.
type estimateJSON struct {
	Job       string            `json:"job"`
	Kind      string            `json:"kind"`
	Instance  string            `json:"instance_type"`
	Instances int               `json:"instances"`
	Hours     float64           `json:"hours"`
	Pricing   string            `json:"pricing"`
	PerHour   gpucost.Money     `json:"per_hour"`
	Cost      gpucost.Money     `json:"cost"`
	Basis     string            `json:"basis"`
	Notes     []string          `json:"notes"`
	Budgets   []budget.JobCheck `json:"budgets"`
	Breaks    bool              `json:"breaks_budget"`
	Blocks    []enforce.Block   `json:"policy_blocks"` // with --policies: the policies that would stop it (null without)
}

// Estimate is "estimate": the job's price and basis in the title and notes, and a row per
// budget it falls in with what is left after it (leftAfter). withBudgets says a budgets file
// was given; notes are BudgetSpendNotes.
func Estimate(est budget.Estimate, checks []budget.JobCheck, withBudgets bool, notes []string) Table {
	j := est.Job
	inst := est.Offer.InstanceType
	if inst == "" || j.Kind == budget.KindSageMaker {
		inst = j.InstanceType + j.GPU
	}
	name := j.Name
	if name == "" {
		name = "(unnamed)"
	}
	js := estimateJSON{Job: name, Kind: j.Kind, Instance: inst, Instances: est.Instances, Hours: j.Hours, Pricing: j.Pricing,
		PerHour: est.PerHour, Cost: est.Cost, Basis: est.Basis, Notes: est.Notes, Budgets: checks}
	t := Table{
		Title:   fmt.Sprintf("%s: %d × %s, %s h, %s — %s (%s/h)", name, est.Instances, inst, strconv.FormatFloat(j.Hours, 'f', -1, 64), j.Pricing, est.Cost.Dollars(), est.PerHour.Dollars()),
		Columns: []string{"Budget", "Period", "Amount", "Spent", "Forecast", "Job in period", "Left after", "Verdict"},
		Right:   []int{2, 3, 4, 5, 6},
	}
	t.Notes = append(t.Notes, "Price: "+est.Basis+".")
	for _, n := range est.Notes {
		t.Notes = append(t.Notes, "Note: "+n+".")
	}
	for _, c := range checks {
		verdict := "fits"
		if c.Breaks {
			verdict, js.Breaks = "BREAKS", true
		}
		t.Rows = append(t.Rows, []string{c.Budget, c.Period, c.Amount.Dollars(), c.Spent.Dollars(), c.Forecast.Dollars(),
			c.JobCost.Dollars(), leftAfter(c).Dollars(), verdict})
		if c.JobCost != est.Cost {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %s of the job's %s falls in %s; the rest in later periods.", c.Budget, c.JobCost.Dollars(), est.Cost.Dollars(), c.Period))
		}
	}
	switch {
	case !withBudgets:
		t.Notes = append(t.Notes, "No --budgets file: the job is not checked against any budget.")
	case len(checks) == 0:
		t.Notes = append(t.Notes, "No budget's scope covers this job.")
	}
	t.Notes = append(t.Notes, notes...)
	t.JSON = js
	return t
}

// leftAfter is c.LeftAfter as the estimate table prints it: the printed amount less the printed
// spend or forecast the job adds to (c.Base, one of the two) less the printed job cost, so that
// the row's figures subtract as printed. The verdict stays the exact c.Breaks.
func leftAfter(c budget.JobCheck) gpucost.Money {
	return printedCents(c.Amount).Sub(printedCents(c.Base)).Sub(printedCents(c.JobCost))
}

// EstimatePolicies adds to an Estimate table the policies that would stop the job, and notes
// on the running instances counted against them.
func EstimatePolicies(t Table, blocks []enforce.Block, notes []string) Table {
	for _, b := range blocks {
		t.Notes = append(t.Notes, "BLOCKED: "+b.Reason+".")
	}
	t.Notes = append(t.Notes, notes...)
	if js, ok := t.JSON.(estimateJSON); ok {
		js.Blocks = blocks
		if js.Blocks == nil {
			js.Blocks = []enforce.Block{}
		}
		t.JSON = js
	}
	return t
}
