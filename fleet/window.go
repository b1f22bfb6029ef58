package fleet

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Window is a report's period as people write it: a look-back or start (Since) and an end
// (Until), or a calendar month or quarter. Resolve turns it into a Period; docs/architecture.md
// "Figures" says what each form selects.
type Window struct {
	Since   string // a duration back from the end (30d, 2w, 36h, 90m), a date (2025-10-01) or an RFC 3339 time
	Until   string // a date, whose whole day is included, or an RFC 3339 time; empty for now
	Month   string // YYYY-MM: the calendar month, in UTC
	Quarter string // YYYYQn or YYYY-Qn: the calendar quarter, in UTC

	// DefaultSince is the look-back used when Since, Month and Quarter are all empty; with it
	// empty too, Resolve returns the zero Period (everything).
	DefaultSince string
}

// sinceForms, untilForms, monthForm and quarterForm are what a refusal says each flag accepts.
const (
	sinceForms  = "use a duration (30d, 2w, 36h, 90m), a date (2025-10-01) or an RFC 3339 time (2025-10-01T00:00:00Z)"
	untilForms  = "use a date (2025-10-31, the whole day included) or an RFC 3339 time (2025-11-01T00:00:00Z)"
	monthForm   = "use a month as YYYY-MM, such as 2025-10"
	quarterForm = "use a quarter as YYYYQn or YYYY-Qn, such as 2025Q4"
)

// Resolve returns the window's period at now. Since and Until count in UTC unless an RFC 3339
// time gives an offset. A duration counts back from the end, which is Until or now, cut to the
// minute. A month or quarter is Billed: bill reports select its lines by billing period; its end
// is now while it runs. Month and Quarter exclude each other and Since and Until.
func (w Window) Resolve(now time.Time) (Period, error) {
	switch {
	case w.Month != "" && w.Quarter != "":
		return Period{}, gpucost.Errorf(gpucost.EInvalid, "--month %s and --quarter %s name two periods: give one", w.Month, w.Quarter)
	case w.Month != "" || w.Quarter != "":
		flag, v := "--month", w.Month
		if w.Quarter != "" {
			flag, v = "--quarter", w.Quarter
		}
		if w.Since != "" || w.Until != "" {
			return Period{}, gpucost.Errorf(gpucost.EInvalid, "%s %s is a whole period: drop --since and --until, or drop %s", flag, v, flag)
		}
		var (
			p   Period
			err error
		)
		if w.Month != "" {
			p, err = ParseMonth(w.Month)
		} else {
			p, err = ParseQuarter(w.Quarter)
		}
		if err != nil {
			return Period{}, err
		}
		if !now.Before(p.End) {
			return p, nil
		}
		if !now.After(p.Start) {
			return Period{}, gpucost.Errorf(gpucost.EInvalid, "%s %s has not started (it is %s): give a period that has", flag, v, now.UTC().Format(time.DateOnly))
		}
		p.End = now.UTC().Truncate(time.Minute)
		return p, nil
	}
	end := now.UTC().Truncate(time.Minute)
	if w.Until != "" {
		t, err := parseUntil(w.Until)
		if err != nil {
			return Period{}, err
		}
		end = t
	}
	since := w.Since
	if since == "" {
		since = w.DefaultSince
	}
	if since == "" {
		if w.Until == "" {
			return Period{}, nil
		}
		return Period{End: end}, nil
	}
	start, err := ParseSince(since, end)
	if err != nil {
		return Period{}, err
	}
	if !start.Before(end) {
		return Period{}, gpucost.Errorf(gpucost.EInvalid, "--since %s starts at %s, not before the end %s: give an earlier --since or a later --until",
			since, start.Format(time.RFC3339), end.Format(time.RFC3339))
	}
	return Period{Start: start, End: end}, nil
}

// Billed reports whether the window names calendar months (Month or Quarter), whose bill lines
// are selected by billing period.
func (w Window) Billed() bool { return w.Month != "" || w.Quarter != "" }

// ParseSince parses --since: a duration back from end, a date's midnight in UTC, or an RFC 3339
// time.
func ParseSince(s string, end time.Time) (time.Time, error) {
	if d, err := ParseAgo(s); err == nil {
		return end.Add(-d), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	return time.Time{}, gpucost.Errorf(gpucost.EInvalid, "--since %q: %s", s, sinceForms)
}

// parseUntil parses --until: a date, meaning the end of that day (the next midnight, UTC), or
// an RFC 3339 time, cut to the minute.
func parseUntil(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.AddDate(0, 0, 1), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC().Truncate(time.Minute), nil
	}
	return time.Time{}, gpucost.Errorf(gpucost.EInvalid, "--until %q: %s", s, untilForms)
}

// ParseAgo parses a look-back such as "7d", "36h", "90m" or "2w": a positive Go duration, or a
// number of days or weeks. The error says which forms it takes.
func ParseAgo(s string) (time.Duration, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, "%q: use a duration such as 30d, 2w, 24h or 90m", s)
	for unit, d := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			v, err := strconv.ParseFloat(n, 64)
			// 100 years at most: more overflows a Duration.
			if err != nil || !(v > 0) || v*float64(d) > 100*365*24*float64(time.Hour) {
				return 0, bad
			}
			return time.Duration(v * float64(d)), nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, bad
	}
	return d, nil
}

// ParseMonth parses YYYY-MM into the Billed period [the month's first, the next month's first)
// in UTC.
func ParseMonth(s string) (Period, error) {
	t, err := time.Parse("2006-01", s)
	if err != nil {
		return Period{}, gpucost.Errorf(gpucost.EInvalid, "--month %q: %s", s, monthForm)
	}
	return Period{Start: t, End: t.AddDate(0, 1, 0), Billed: true}, nil
}

// ParseQuarter parses YYYYQn or YYYY-Qn (q in either case, n 1 to 4) into the Billed period
// [the quarter's first day, the next quarter's first) in UTC.
func ParseQuarter(s string) (Period, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, "--quarter %q: %s", s, quarterForm)
	y, q, ok := strings.Cut(strings.ToUpper(s), "Q")
	y = strings.TrimSuffix(y, "-")
	if !ok || len(y) != 4 || len(q) != 1 || q[0] < '1' || q[0] > '4' {
		return Period{}, bad
	}
	t, err := time.Parse("2006", y)
	if err != nil {
		return Period{}, bad
	}
	start := t.AddDate(0, 3*int(q[0]-'1'), 0)
	return Period{Start: start, End: start.AddDate(0, 3, 0), Billed: true}, nil
}

// Label names the period for people: the month (2025-10) or quarter (2025Q4) of a Billed period
// that is one, else its dates, the last day included when it ends at midnight.
func (p Period) Label() string {
	if p.Billed && p.Start.Day() == 1 && p.Start.Hour() == 0 {
		switch months(p.Start, p.End) {
		case 1:
			return p.Start.Format("2006-01")
		case 3:
			if (p.Start.Month()-1)%3 == 0 {
				return fmt.Sprintf("%dQ%d", p.Start.Year(), (p.Start.Month()-1)/3+1)
			}
		}
	}
	last := p.End
	if last.Equal(last.Truncate(24 * time.Hour)) {
		last = last.AddDate(0, 0, -1)
		if !last.After(p.Start) {
			return p.Start.Format(time.DateOnly)
		}
		return p.Start.Format(time.DateOnly) + " to " + last.Format(time.DateOnly)
	}
	return p.Start.Format(time.DateOnly) + " to " + p.End.Format("2006-01-02 15:04")
}

// months returns how many whole months [start, end) spans when end is a month's first, else 0.
func months(start, end time.Time) int {
	for n := 1; n <= 3; n++ {
		if start.AddDate(0, n, 0).Equal(end) {
			return n
		}
	}
	return 0
}
