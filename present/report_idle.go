package present

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
)

// IdleReport is report idle's answer: the fleet's idle figures and the zero-util periods.
type IdleReport struct {
	Fleet    []fleet.Figures    `json:"fleet"` // per currency
	ZeroUtil analyze.IdleReport `json:"zero_util"`
	Notes    []string           `json:"-"` // how the GPU-hours were priced (PriceNotes)
}

// Idle is report idle's table: the fleet's idle GPU time in the title and at most limit (all
// where 0) zero-util periods, longest first as rep holds them, with each GPU's daily pattern,
// and a last row of the periods past the limit. The Cost column adds up to the title's cost of
// the zero-util periods (analyze.IdleReport.PeriodCents).
func Idle(rep IdleReport, limit int) Table {
	z := rep.ZeroUtil
	periods := z.Periods
	if limit > 0 && len(periods) > limit {
		periods = periods[:limit]
	}
	var head []string
	for _, f := range rep.Fleet {
		head = append(head, fmt.Sprintf("%s GPU-hours idle of %s (%.1f%% of the cost), %s %s of %s",
			Hours(f.IdleGPUHours()), Hours(f.GPUHours()), f.IdlePercent(), f.Currency, f.IdleCost.Fixed(2), f.GPUCost().Fixed(2)))
	}
	t := Table{
		Title: fmt.Sprintf("Idle GPU time: %s.\nZero-util periods of at least %s: %d, %.1f GPU-hours, %s",
			strings.Join(head, "; "), z.MinIdle, len(z.Periods), z.GPUHours, z.Cost.Dollars()),
		Columns: []string{"GPU", "Host", "Model", "Labels", "Start", "End", "Duration", "GPU-h", "Cost", "Daily pattern"},
		// On a narrow terminal the host, start, duration and cost stay.
		Priority: []int{0, 8, 5, 0, 6, 2, 9, 4, 10, 3},
		Right:    []int{6, 7, 8},
		JSON:     rep,
	}
	patterns := map[string]string{}
	for _, p := range z.Patterns {
		if from, to, ok := p.DailyWindow(0.9); ok {
			patterns[p.Series.Key()] = fmt.Sprintf("idle daily %02d:00–%02d:00", from, to)
		}
	}
	cents := z.PeriodCents()
	for i, p := range periods {
		end := p.End.Format("2006-01-02 15:04")
		if p.Open {
			end += " (still idle)"
		}
		t.Rows = append(t.Rows, []string{p.Series.GPU.UUID, p.Series.GPU.Host, p.Series.GPU.Model, p.Series.Labels.String(),
			p.Start.Format("2006-01-02 15:04"), end, p.Duration.String(), Hours(p.GPUHours), cents[i].Dollars(),
			patterns[p.Series.Key()]})
	}
	if n := len(z.Periods) - len(periods); n > 0 {
		t.Rows = append(t.Rows, otherPeriods(z.Periods[len(periods):], cents[len(periods):], z.Currency))
		t.Notes = append(t.Notes, fmt.Sprintf("Showing %d of %d periods, the longest; --limit 0 for all.", len(periods), len(z.Periods)))
	}
	t.Notes = append(t.Notes, "Idle is GPU-hours − used GPU-hours (held time × utilisation); a zero-util period is a run of minutes below the store's idle threshold, a different measure.")
	t.Notes = append(t.Notes, rep.Notes...)
	return t
}

// otherPeriods is the row of the periods a limit leaves out: how many, their GPU-hours and the
// sum of their printed costs (cents, in currency as analyze.IdleReport prices every period), so
// that the Cost column still adds up to the title's.
func otherPeriods(rest []analyze.IdlePeriod, cents []gpucost.Money, currency string) []string {
	var hours float64
	cost := gpucost.Money{Currency: currency}
	for i, p := range rest {
		hours += p.GPUHours
		if p.Priced {
			cost = cost.Add(cents[i])
		}
	}
	label := fmt.Sprintf("%d other periods", len(rest))
	if len(rest) == 1 {
		label = "1 other period"
	}
	return []string{label, "", "", "", "", "", "", Hours(hours), cost.Dollars(), ""}
}
