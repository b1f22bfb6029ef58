package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// NoLines returns the ENotFound error of a period with no bill lines. Where st can tell
// (gpucost.PeriodStore), it names the billing periods the store holds and the flags that select
// them; imports is how many imports the store holds.
func NoLines(ctx context.Context, st any, p Period, imports int) error {
	return noneStored(ctx, st, "no bill lines "+p.describe(), p, imports)
}

// NoGPUMachines returns the ENotFound error of a period whose bill lines name no GPU machine,
// naming the billing periods the store holds as NoLines does.
func (s *Split) NoGPUMachines(ctx context.Context) error {
	return noneStored(ctx, s.store, "no GPU machines in the bill lines "+s.Period.describe(), s.Period, -1)
}

// noneStored returns the ENotFound error what, naming the billing periods the store holds and
// the flags that select them where st can tell; imports, when not negative, is how many imports
// the store holds.
func noneStored(ctx context.Context, st any, what string, p Period, imports int) error {
	held := what
	if imports >= 0 {
		held += fmt.Sprintf(" (%d imports in the store)", imports)
	}
	ps, ok := st.(gpucost.PeriodStore)
	if !ok {
		return gpucost.Errorf(gpucost.ENotFound, "%s: import bills with gpucost import billing, or widen --since", held)
	}
	periods, err := ps.CostPeriods(ctx)
	if err != nil {
		return gpucost.Errorf(gpucost.ENotFound, "%s; listing the stored periods failed: %v; import bills with gpucost import billing, or widen --since", held, err)
	}
	if len(periods) == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "%s: the store holds no bill lines: import bills with gpucost import billing (try gpucost demo)", held)
	}
	months := storedMonths(periods)
	var try string
	for i := len(months) - 1; i >= 0 && try == ""; i-- {
		if !p.Billed || months[i].label != p.Label() {
			try = "--month " + months[i].label // the latest month but the one asked for
		}
	}
	if !p.Billed {
		first, last := months[0].first, months[0].last
		for _, m := range months {
			if m.first.Before(first) {
				first = m.first
			}
			if m.last.After(last) {
				last = m.last
			}
		}
		try += fmt.Sprintf(", or --since %s --until %s", first.Format(time.DateOnly), lastDay(last).Format(time.DateOnly))
	}
	if try == "" {
		return gpucost.Errorf(gpucost.ENotFound, "%s; the store holds bills for %s only", what, listMonths(months))
	}
	return gpucost.Errorf(gpucost.ENotFound, "%s; the store holds bills for %s: try %s", what, listMonths(months), try)
}

// NoRollups returns the ENotFound error of a period with no GPU telemetry in the store named
// name. Where st can tell (gpucost.PeriodStore), it says when the stored telemetry starts and
// ends.
func NoRollups(ctx context.Context, st any, name string, p Period) error {
	what := fmt.Sprintf("no GPU telemetry in %s between %s and %s", name, p.Start.Format(time.RFC3339), p.End.Format(time.RFC3339))
	fix := "run gpucost agent, gpucost import telemetry or gpucost demo"
	ps, ok := st.(gpucost.PeriodStore)
	if !ok {
		return gpucost.Errorf(gpucost.ENotFound, "%s: %s", what, fix)
	}
	span, err := ps.TelemetrySpan(ctx)
	switch {
	case err != nil:
		return gpucost.Errorf(gpucost.ENotFound, "%s (reading the span of the stored telemetry failed: %v): %s", what, err, fix)
	case span.End.IsZero():
		return gpucost.Errorf(gpucost.ENotFound, "%s: the store holds none; %s", what, fix)
	case span.Start.Before(p.End) && span.End.After(p.Start):
		// The store holds telemetry in the window, but no hourly rollup starts in it.
		return gpucost.Errorf(gpucost.ENotFound, "%s: reports read hourly rollups, each counted in the window its hour starts in, "+
			"and no hour of the telemetry stored (%s to %s) starts in this one: start the window on the hour, e.g. --since %s",
			what, span.Start.Format(time.RFC3339), span.End.Format(time.RFC3339), hourSince(p))
	}
	return gpucost.Errorf(gpucost.ENotFound, "%s; the store holds telemetry from %s to %s: try --since %s --until %s",
		what, span.Start.Format(time.RFC3339), span.End.Format(time.RFC3339),
		span.Start.Format(time.DateOnly), lastDay(span.End).Format(time.DateOnly))
}

// describe says which lines the period selects, for messages.
func (p Period) describe() string {
	l := p.Label()
	switch {
	case p.Billed:
		return "billed in " + l
	case strings.Contains(l, " to "):
		return "charged from " + l
	}
	return "charged on " + l
}

// lastDay returns the day an end (exclusive) falls in, the day before when it is a midnight.
func lastDay(end time.Time) time.Time {
	if end.Equal(end.Truncate(24 * time.Hour)) {
		return end.Add(-time.Nanosecond)
	}
	return end
}

// storedMonth is what the store holds of the billing periods starting in one month.
type storedMonth struct {
	label       string // YYYY-MM of the billing period start
	first, last time.Time
	accounts    []string // "AWS 123456789012", by provider
}

// storedMonths sums periods, which are in order of billing period, by month of billing period.
func storedMonths(periods []gpucost.CostPeriod) []storedMonth {
	var out []storedMonth
	for _, p := range periods {
		label := p.BillingPeriodStart.UTC().Format("2006-01")
		if len(out) == 0 || out[len(out)-1].label != label {
			out = append(out, storedMonth{label: label, first: p.FirstCharge, last: p.LastCharge})
		}
		m := &out[len(out)-1]
		if p.FirstCharge.Before(m.first) {
			m.first = p.FirstCharge
		}
		if p.LastCharge.After(m.last) {
			m.last = p.LastCharge
		}
		who := p.Provider
		if n := len(p.Accounts); n > 0 && n <= 2 {
			who += " " + strings.Join(p.Accounts, " ")
		} else if n > 2 {
			who += fmt.Sprintf(" %s and %d more accounts", p.Accounts[0], n-1)
		}
		m.accounts = append(m.accounts, who)
	}
	return out
}

// listMonths names the months for a message: each with the dates charged and the providers'
// accounts, the latest four where there are more.
func listMonths(months []storedMonth) string {
	shown := months
	var head string
	if len(months) > 4 {
		shown = months[len(months)-4:]
		head = fmt.Sprintf("%d billing periods from %s to %s, the latest ", len(months), months[0].label, months[len(months)-1].label)
	}
	parts := make([]string, len(shown))
	for i, m := range shown {
		days := m.first.Format(time.DateOnly)
		if last := lastDay(m.last).Format(time.DateOnly); last != days {
			days += " to " + last
		}
		parts[i] = fmt.Sprintf("%s (charged %s, %s)", m.label, days, strings.Join(slices.Compact(m.accounts), "; "))
	}
	if len(parts) == 1 {
		return head + parts[0]
	}
	return head + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// hourSince returns a --since value whose window starts at the hour p starts in.
func hourSince(p Period) string {
	start := p.Start.Truncate(time.Hour)
	if start.Equal(p.Start.Truncate(24 * time.Hour)) {
		return start.Format(time.DateOnly)
	}
	return start.Format(time.RFC3339)
}
