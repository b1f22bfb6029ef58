package analyze

import (
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
)

// idleRun follows one series' current run of idle minutes across its rollups. A run is a stretch
// of minutes that are both covered and idle; it is broken by a minute that is not idle, a minute
// without samples, or a rollup that does not start where the previous one ended. Times are Unix
// minutes, which keeps the per-rollup work to integer arithmetic.
type idleRun struct {
	next    int64 // the end of the last rollup fed; noMinute before the first
	start   int64 // the start of the open run, when minutes > 0
	minutes int
	emit    func(start time.Time, minutes int, open bool) // called for each run that ends
}

// noMinute marks the absence of a Unix minute.
const noMinute = -1 << 63

// unixMinute returns t's minute since the Unix epoch.
func unixMinute(t time.Time) int64 {
	return floorDiv(t.Unix(), 60)
}

// slots returns a rollup's minutes as bit masks: the covered ones and the idle ones among them,
// and how many minutes the rollup spans (60 for an hour, 1 for a minute).
func slots(r *gpucost.Rollup) (covered, idle uint64, n int) {
	if r.Width == time.Hour {
		const all = 1<<60 - 1
		covered = r.Coverage & all
		return covered, r.IdleMask & covered, 60
	}
	if r.Samples > 0 {
		covered = 1
	}
	return covered, r.IdleMask & covered, 1
}

// feed advances the run over a rollup starting at Unix minute at, whose idle minutes are mask
// (n minutes in all).
func (t *idleRun) feed(at int64, mask uint64, n int) {
	if at != t.next {
		t.end(false)
	}
	t.next = at + int64(n)
	pos := 0
	if t.minutes > 0 {
		k := min(bits.TrailingZeros64(^mask), n) // idle minutes from the rollup's start
		t.minutes += k
		if k == n {
			return
		}
		t.end(false)
		pos = k
	}
	for pos < n {
		rest := mask >> uint(pos)
		if rest == 0 {
			return
		}
		pos += bits.TrailingZeros64(rest)
		k := min(bits.TrailingZeros64(^(mask >> uint(pos))), n-pos)
		t.start = at + int64(pos)
		t.minutes = k
		if pos+k < n {
			t.end(false)
		}
		pos += k
	}
}

// end ends the open run, if any; open says the run lasted to the end of the data.
func (t *idleRun) end(open bool) {
	if t.minutes > 0 {
		t.emit(minuteTime(t.start), t.minutes, open)
	}
	t.minutes = 0
}

// reset ends the open run and forgets the series: the next rollup starts afresh.
func (t *idleRun) reset() {
	t.end(true)
	t.next = noMinute
}
