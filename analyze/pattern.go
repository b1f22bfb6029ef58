package analyze

import (
	"math"
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
)

// IdlePattern counts one series' idle and covered minutes by weekday and hour of the day (in
// Options.Location), so a recurring habit such as "idle every night 19:00–08:00" can be stated.
type IdlePattern struct {
	Series  *gpucost.Series `json:"series"`
	Idle    [7][24]uint32   `json:"idle"`    // [time.Weekday][hour]: idle minutes
	Covered [7][24]uint32   `json:"covered"` // minutes with samples
}

// add counts a rollup's minutes; local is its start in local Unix minutes (see localClock).
func (p *IdlePattern) add(local int64, covered, idle uint64, n int) {
	if n == 1 {
		p.count(local, covered, idle)
		return
	}
	// An hour rollup straddles two local hours where the zone's offset is not whole hours.
	split := uint(n) - uint(floorMod(local, 60))
	low := uint64(1)<<split - 1
	p.count(local, covered&low, idle&low)
	if split < uint(n) {
		p.count(local+int64(split), covered>>split, idle>>split)
	}
}

// count adds minutes to the cell of local Unix minute m.
func (p *IdlePattern) count(m int64, covered, idle uint64) {
	day := floorMod(floorDiv(m, 1440)+4, 7) // 1 January 1970 was a Thursday
	h := floorMod(m, 1440) / 60
	p.Covered[day][h] += uint32(bits.OnesCount64(covered))
	p.Idle[day][h] += uint32(bits.OnesCount64(idle))
}

func floorMod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// localClock turns Unix minutes into local ones ("Unix minutes" of the wall clock) in a
// location, looking the offset up again only when a minute leaves the span the last offset
// held for (between daylight-saving transitions), which keeps Idle.Add cheap.
type localClock struct {
	loc      *time.Location
	offset   int64 // minutes east of UTC
	from, to int64 // the Unix minutes [from, to) in which offset holds
}

func newLocalClock(loc *time.Location) *localClock {
	if loc == nil {
		loc = time.UTC
	}
	return &localClock{loc: loc, from: 1, to: 0} // empty: the first call looks up
}

func (c *localClock) local(m int64) int64 {
	if m < c.from || m >= c.to {
		t := minuteTime(m).In(c.loc)
		_, off := t.Zone()
		start, end := t.ZoneBounds()
		c.offset, c.from, c.to = int64(off)/60, math.MinInt64, math.MaxInt64
		if !start.IsZero() {
			c.from = unixMinute(start)
		}
		if !end.IsZero() {
			c.to = unixMinute(end)
		}
	}
	return m + c.offset
}

// IdleMinutes returns the pattern's idle minutes in all.
func (p *IdlePattern) IdleMinutes() int {
	n := 0
	for d := range p.Idle {
		for _, m := range p.Idle[d] {
			n += int(m)
		}
	}
	return n
}

// Share returns the fraction of the covered minutes of weekday day at hour that were idle, NaN
// when none were covered.
func (p *IdlePattern) Share(day time.Weekday, hour int) float64 {
	return ratio(float64(p.Idle[day][hour]), int64(p.Covered[day][hour]))
}

// DailyWindow returns the longest run of hours of the day, [from:00, to:00) and possibly across
// midnight, in which at least minShare of the covered minutes, over all weekdays, were idle. A
// GPU idle every night from 19:00 to 08:00 gives (19, 8, true) for minShare 0.9; one idle all day
// gives (0, 24, true). ok is false when no hour qualifies.
func (p *IdlePattern) DailyWindow(minShare float64) (from, to int, ok bool) {
	var idle [24]bool
	all := true
	for h := range 24 {
		var i, c uint32
		for d := range 7 {
			i += p.Idle[d][h]
			c += p.Covered[d][h]
		}
		idle[h] = c > 0 && float64(i) >= minShare*float64(c)
		all = all && idle[h]
	}
	if all {
		return 0, 24, true
	}
	best, bestStart := 0, 0
	for start := range 24 {
		if !idle[start] || idle[(start+23)%24] {
			continue // not the start of a run
		}
		n := 0
		for idle[(start+n)%24] {
			n++
		}
		if n > best {
			best, bestStart = n, start
		}
	}
	if best == 0 {
		return 0, 0, false
	}
	to = bestStart + best
	if to > 24 {
		to -= 24
	}
	return bestStart, to, true
}
