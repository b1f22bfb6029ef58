package main

import (
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

// parseAgo parses a look-back such as "7d", "36h", "90m" or "2w" given as --flag: Go durations
// plus days and weeks.
func parseAgo(flag, s string) (time.Duration, error) {
	d, err := fleet.ParseAgo(s)
	if err != nil {
		return 0, gpucost.Errorf(gpucost.EInvalid, "--%s %w", flag, err)
	}
	return d, nil
}

// period is the [From, To) a report covers, as its flags give it (fleet.Window: --since and
// --until, or --month or --quarter), or the times the API's query gave.
type period struct {
	since, until, month, quarter string
	defaultSince                 string       // the look-back without --since, --month or --quarter
	at                           fleet.Period // set by the API's views: the flags are then unused
}

// register adds the period's flags to cmd: --since (defaultSince without it), --until, --month
// and --quarter. docs/architecture.md "Figures" says what each selects.
func (p *period) register(cmd *cobra.Command, defaultSince string) {
	p.defaultSince = defaultSince
	f := cmd.Flags()
	f.StringVar(&p.since, "since", "", "the start: a duration back from the end (30d, 2w, 36h, 90m), a date (2025-10-01) or an RFC 3339 time (default "+defaultSince+")")
	f.StringVar(&p.until, "until", "", "the end: a date, whose whole day is included (2025-10-31), or an RFC 3339 time (default now)")
	f.StringVar(&p.month, "month", "", "a calendar month instead of --since and --until, such as 2025-10: bill lines by billing period, telemetry by time")
	f.StringVar(&p.quarter, "quarter", "", "a calendar quarter instead of --since and --until, such as 2025Q4 or 2025-Q4: bill lines by billing period, telemetry by time")
}

// window returns the period at now: the API's, or the flags'. Dates count in UTC.
func (p period) window(now time.Time) (fleet.Period, error) {
	if !p.at.End.IsZero() {
		return p.at, nil
	}
	w := fleet.Window{Since: p.since, Until: p.until, Month: p.month, Quarter: p.quarter, DefaultSince: p.defaultSince}
	if w.DefaultSince == "" {
		w.DefaultSince = "30d" // a period built in code without register
	}
	return w.Resolve(now)
}

// resolve returns the period's bounds at now.
func (p period) resolve(now time.Time) (from, to time.Time, err error) {
	w, err := p.window(now)
	return w.Start, w.End, err
}

// registerSince adds --since to a log listing (audit, enforce log, budget deliveries), the
// things listed named by what: it takes the look-backs and dates that period's --since does.
func registerSince(cmd *cobra.Command, since *string, what string) {
	cmd.Flags().StringVar(since, "since", "", what+" from then on only: a duration back from now (7d, 24h), a date (2025-10-01) or an RFC 3339 time (default: all)")
}

// lookBack returns the start of a --since such as 7d or 2025-10-01, or the zero time when since
// is empty: the log listings (audit, enforce log, budget deliveries) take all then.
func (e *env) lookBack(since string) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	return fleet.ParseSince(since, e.now())
}
