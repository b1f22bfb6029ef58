package telemetry

import (
	"time"

	"github.com/gpucost/gpucost"
)

// DefaultMinuteRetention is how long minute rollups are kept by default: two weeks, enough for
// alert rules and recent idle periods at minute resolution. Hour rollups are kept for ever.
const DefaultMinuteRetention = 14 * 24 * time.Hour

// Retention says how long rollups of each width are kept; zero keeps them for ever.
type Retention struct {
	Minutes, Hours time.Duration
}

// DefaultRetention keeps minute rollups for DefaultMinuteRetention and hour rollups for ever.
var DefaultRetention = Retention{Minutes: DefaultMinuteRetention}

// Cutoff returns the time before which rollups of the given width have expired at now: a rollup
// expires when it ends at or before the cutoff. ok is false when such rollups are kept for ever.
func (p Retention) Cutoff(width time.Duration, now time.Time) (cutoff time.Time, ok bool) {
	keep := p.Hours
	if width == time.Minute {
		keep = p.Minutes
	}
	if keep <= 0 {
		return time.Time{}, false
	}
	return now.Add(-keep), true
}

// Expired reports whether r has expired at now: it ended at or before its width's cutoff.
func (p Retention) Expired(r *gpucost.Rollup, now time.Time) bool {
	cutoff, ok := p.Cutoff(r.Width, now)
	return ok && !r.Start.Add(r.Width).After(cutoff)
}
