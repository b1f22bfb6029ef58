package spotrisk

import (
	"slices"
	"time"
)

// EpisodeStart returns the first interruption of the episode a pool's interruptions at (any
// order) are in at now: going back from the latest at or before now, each interruption no more
// than window before the next. While a pool keeps firing, every interruption that makes it fire
// lies within window of now, so the episode's start stays put from check to check (and across
// restarts): it names the episode in the alert's Key. Interruptions further apart than window
// begin a new episode. It returns the zero time when none is at or before now.
func EpisodeStart(at []time.Time, now time.Time, window time.Duration) time.Time {
	ts := slices.DeleteFunc(slices.Clone(at), func(t time.Time) bool { return t.After(now) })
	if len(ts) == 0 {
		return time.Time{}
	}
	slices.SortFunc(ts, time.Time.Compare)
	start := ts[len(ts)-1]
	for i := len(ts) - 2; i >= 0 && start.Sub(ts[i]) <= window; i-- {
		start = ts[i]
	}
	return start
}
