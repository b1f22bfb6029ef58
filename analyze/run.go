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
//
// Runs shorter than min minutes may end without a call of emit: both users drop them (the
// shortest idle period counted, Options.MinIdle), and an hour's inner runs are skipped at once
// where none is that long, without walking them (docs/architecture.md "Speed of the reports").
type idleRun struct {
	next    int64 // the end of the last rollup fed; noMinute before the first
	start   int64 // the start of the open run, when minutes > 0
	minutes int
	min     int                                           // runs shorter than this may go unreported
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
// (n minutes in all, n ≤ 60, no bit at or above n set): the run open at its start goes on by
// the idle minutes the rollup starts with, the idle minutes it ends with open a run, and the
// runs between are emitted where one is at least min minutes long.
func (t *idleRun) feed(at int64, mask uint64, n int) {
	if at != t.next {
		t.end(false)
	}
	t.next = at + int64(n)
	mask &= 1<<uint(n) - 1
	head := bits.TrailingZeros64(^mask) // idle minutes from the rollup's start; ≤ n as bit n is 0
	if head > 0 {
		if t.minutes == 0 {
			t.start = at
		}
		t.minutes += head
		if head == n {
			return
		}
	}
	t.end(false)
	tail := bits.LeadingZeros64(^(mask << uint(64-n))) // idle minutes to the rollup's end, < n
	inner := mask >> uint(head) << uint(head)
	if tail > 0 {
		inner &^= (1<<uint(tail) - 1) << uint(n-tail)
	}
	if inner != 0 && hasRun(inner, t.min) {
		t.emitRuns(at, inner)
	}
	if tail > 0 {
		t.start, t.minutes = at+int64(n-tail), tail
	}
}

// emitRuns emits each run of set bits in mask, none touching the rollup's first or last
// minute, as a run starting at Unix minute at plus its first bit.
func (t *idleRun) emitRuns(at int64, mask uint64) {
	for mask != 0 {
		pos := bits.TrailingZeros64(mask)
		k := bits.TrailingZeros64(^(mask >> uint(pos)))
		t.start, t.minutes = at+int64(pos), k
		t.end(false)
		mask &^= (1<<uint(k) - 1) << uint(pos)
	}
}

// hasRun reports whether mask holds k set bits in a row (k ≤ 1: any set bit): each step keeps
// the bits that start a run of twice the length, then of the rest.
func hasRun(mask uint64, k int) bool {
	l := 1
	for 2*l <= k && mask != 0 {
		mask &= mask >> uint(l)
		l *= 2
	}
	if k > l {
		mask &= mask >> uint(k-l)
	}
	return mask != 0
}

// end ends the open run, if any, emitting it where it is at least min minutes long; open says
// the run lasted to the end of the data.
func (t *idleRun) end(open bool) {
	if t.minutes > 0 && t.minutes >= t.min {
		t.emit(minuteTime(t.start), t.minutes, open)
	}
	t.minutes = 0
}

// reset ends the open run and forgets the series: the next rollup starts afresh.
func (t *idleRun) reset() {
	t.end(true)
	t.next = noMinute
}
