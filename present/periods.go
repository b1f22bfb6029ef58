package present

import (
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// StoredPeriods is gpucost import periods: what the store holds of each billing period and
// provider, and the span of its telemetry, which say what --month, --quarter and --since can
// report on.
func StoredPeriods(periods []gpucost.CostPeriod, telemetry gpucost.Span) Table {
	type spanView struct {
		Start *time.Time `json:"start"`
		End   *time.Time `json:"end"`
	}
	tv := spanView{}
	if !telemetry.End.IsZero() {
		tv = spanView{&telemetry.Start, &telemetry.End}
	}
	r := Table{
		Title:   "Stored bills by billing period",
		Columns: []string{"Billing period", "Provider", "Accounts", "First charge", "Last charge", "Lines", "Currency", "BilledCost", "EffectiveCost"},
		Right:   []int{5, 7, 8},
		JSON: struct {
			Periods   []gpucost.CostPeriod `json:"periods"`
			Telemetry spanView             `json:"telemetry"`
		}{append([]gpucost.CostPeriod{}, periods...), tv},
	}
	for _, p := range periods {
		last := p.LastCharge
		if last.Equal(last.Truncate(24 * time.Hour)) {
			last = last.Add(-time.Nanosecond) // the day the last charge period ends in
		}
		row := []string{p.BillingPeriodStart.Format("2006-01"), p.Provider, strings.Join(p.Accounts, " "),
			p.FirstCharge.Format(time.DateOnly), last.Format(time.DateOnly), strconv.Itoa(p.Lines), "", "", ""}
		for i, t := range p.Totals {
			if i > 0 {
				row = make([]string, len(r.Columns))
			}
			row[6], row[7], row[8] = t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2)
			r.Rows = append(r.Rows, row)
		}
		if len(p.Totals) == 0 {
			r.Rows = append(r.Rows, row)
		}
	}
	if len(periods) == 0 {
		r.Notes = append(r.Notes, "No bills imported: gpucost import billing FILE, or POST /api/v1/bills to gpucost serve.")
	} else {
		r.Notes = append(r.Notes, "Report a billing period's lines, whatever their charge dates, with --month "+
			periods[len(periods)-1].BillingPeriodStart.Format("2006-01")+" (or --quarter); --since and --until select by charge date.")
	}
	if telemetry.End.IsZero() {
		r.Notes = append(r.Notes, "No GPU telemetry stored: run gpucost agent, gpucost import telemetry or gpucost demo.")
	} else {
		r.Notes = append(r.Notes, "GPU telemetry from "+telemetry.Start.Format("2006-01-02 15:04")+" to "+telemetry.End.Format("2006-01-02 15:04")+" UTC.")
	}
	return r
}
