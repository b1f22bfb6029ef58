package fleet

import (
	"time"

	"github.com/gpucost/gpucost"
)

// Period is the half-open interval [Start, End) a query covers, in UTC.
type Period struct {
	Start, End time.Time

	// Billed selects bill lines by the start of their billing period in [Start, End) instead
	// of their charge period (--month, --quarter), so that a month's figures equal its
	// invoice: a line charged on the next month's first but billed in the month counts in it.
	Billed bool
}

// Lines returns the filter of the bill lines to read for the part [from, to) of the period:
// those whose charge period starts in it or, for a Billed period, those billed in the period
// whose charge period starts in it, where the part at either end of the period is open there.
func (p Period) Lines(from, to time.Time) gpucost.CostFilter {
	if !p.Billed {
		return gpucost.CostFilter{From: from, To: to}
	}
	f := gpucost.CostFilter{From: from, To: to, BilledFrom: p.Start, BilledTo: p.End}
	if !from.After(p.Start) {
		f.From = time.Time{}
	}
	if !to.Before(p.End) {
		f.To = time.Time{}
	}
	return f
}

// NewPeriod returns [start, end) in UTC. It returns an EInvalid error when the period is shorter
// than a minute.
func NewPeriod(start, end time.Time) (Period, error) {
	p := Period{Start: start.UTC(), End: end.UTC()}
	if p.End.Sub(p.Start) < time.Minute {
		return Period{}, gpucost.Errorf(gpucost.EInvalid, "the period %s to %s is shorter than a minute: widen since, or from and to",
			p.Start.Format(time.RFC3339), p.End.Format(time.RFC3339))
	}
	return p, nil
}

// Contains reports whether t lies in [Start, End).
func (p Period) Contains(t time.Time) bool { return !t.Before(p.Start) && t.Before(p.End) }

// Hours returns the period's length in hours.
func (p Period) Hours() float64 { return p.End.Sub(p.Start).Hours() }

// Days returns the UTC midnights of the days the period touches, from Start's day.
func (p Period) Days() []time.Time {
	first := p.Start.UTC().Truncate(24 * time.Hour)
	var days []time.Time
	for d := first; d.Before(p.End); d = d.AddDate(0, 0, 1) {
		days = append(days, d)
	}
	return days
}

// dayIndex returns the index in Days of the day holding t, or -1 outside the period's days.
func (p Period) dayIndex(t time.Time) int {
	first := p.Start.UTC().Truncate(24 * time.Hour)
	if t.Before(first) || !t.Before(p.End) {
		return -1
	}
	return int(t.Sub(first) / (24 * time.Hour))
}

// HoursPerMonth is the month Monthly scales to: 730 hours, a year's 8,760 over 12, as cloud
// price lists count it.
const HoursPerMonth = 730

// Monthly scales an amount over the period to a 730-hour month, rounded to the nano-unit.
func (p Period) Monthly(m gpucost.Money) gpucost.Money {
	span := p.End.Sub(p.Start)
	if span <= 0 {
		return gpucost.Money{Currency: m.Currency}
	}
	return scale(m, HoursPerMonth*int64(time.Hour), int64(span))
}
