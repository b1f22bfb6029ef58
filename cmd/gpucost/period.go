package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// parseAgo parses a look-back such as "7d", "36h", "90m" or "2w": Go durations plus days and
// weeks.
func parseAgo(flag, s string) (time.Duration, error) {
	bad := gpucost.Errorf(gpucost.EInvalid, "--%s %q: use a duration such as 30d, 7d, 24h or 90m", flag, s)
	for unit, d := range map[string]time.Duration{"d": 24 * time.Hour, "w": 7 * 24 * time.Hour} {
		if n, ok := strings.CutSuffix(s, unit); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v <= 0 {
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

// period is the [From, To) a report covers: --since ago until --until (default now), or the
// times the API's query gave.
type period struct {
	since, until string
	at           fleet.Period // set by the API's views: since and until are then unused
}

// resolve returns the period's bounds, whole minutes, in UTC.
func (p period) resolve(now time.Time) (from, to time.Time, err error) {
	if !p.at.End.IsZero() {
		return p.at.Start, p.at.End, nil
	}
	to = now
	if p.until != "" {
		if to, err = time.Parse(time.RFC3339, p.until); err != nil {
			return from, to, gpucost.Errorf(gpucost.EInvalid, "--until %q: use RFC 3339, such as 2026-11-01T00:00:00Z", p.until)
		}
	}
	ago, err := parseAgo("since", p.since)
	if err != nil {
		return from, to, err
	}
	to = to.UTC().Truncate(time.Minute)
	return to.Add(-ago), to, nil
}

// lookBack returns the start of a --since look-back such as 7d before now, or the zero time
// when since is empty: the log listings (audit, enforce log, budget deliveries) take all then.
func (e *env) lookBack(since string) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	d, err := parseAgo("since", since)
	if err != nil {
		return time.Time{}, err
	}
	return e.now().Add(-d), nil
}
