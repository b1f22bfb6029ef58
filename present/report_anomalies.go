package present

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost/analyze"
)

// Anomalies is report anomalies' table: each anomalous day of a scope grouped by by, with the
// resources and SKUs that drove it, and how opts judged the days.
func Anomalies(by string, rep analyze.AnomalyReport, opts analyze.AnomalyOptions) Table {
	t := Table{
		Title:   fmt.Sprintf("Cost anomalies by %s, %s – %s", by, opts.From.Format(time.DateOnly), opts.To.Format(time.DateOnly)),
		Columns: []string{"Day", "Scope", "Currency", "Cost", "Baseline", "Excess", "Score", "Rules", "Drivers"},
		Right:   []int{3, 4, 5, 6},
		JSON:    rep,
	}
	for _, a := range rep.Anomalies {
		var drivers []string
		for _, d := range a.Drivers {
			drivers = append(drivers, fmt.Sprintf("%s %s +%s", d.ResourceID, d.SkuID, d.Delta.Fixed(2)))
		}
		t.Rows = append(t.Rows, []string{a.Day.Format(time.DateOnly), a.Scope, a.Currency, a.Cost.Fixed(2), a.Baseline.Fixed(2),
			a.Excess.Fixed(2), fmt.Sprintf("%.1f", a.Score), strings.Join(a.Rules, "+"), strings.Join(drivers, "; ")})
	}
	baseline := fmt.Sprintf("the trailing %d days", opts.Window)
	if opts.SameWeekday {
		baseline = "the same weekday of the last 8 weeks"
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d anomalies in %d scopes over %d days; baseline: median of %s, threshold median + %.1f·MAD or the %.0fth percentile.",
		len(rep.Anomalies), rep.Scopes, rep.Days, baseline, opts.K, opts.Quantile*100))
	if opts.Weekly > 0 && !opts.SameWeekday {
		t.Notes = append(t.Notes, fmt.Sprintf("Weekly seasonality: %d scope-days above the trailing baseline were usual for their weekday (the week before, or the last %d weeks) and are not reported.",
			rep.Weekly, opts.Weekly))
	}
	return t
}
