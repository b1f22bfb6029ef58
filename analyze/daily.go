package analyze

import (
	"slices"
	"time"
)

// DayUtil is a group's mean utilisation over one UTC day.
type DayUtil struct {
	Day      time.Time `json:"day"`       // midnight UTC
	UtilMean Stat      `json:"util_mean"` // sample-weighted
}

// daySum accumulates one day's utilisation of a group.
type daySum struct {
	utilSum float64
	samples int64
	seen    bool // a rollup of the day was counted
}

// dayOf returns the number of the UTC day that holds unix second t.
func dayOf(t int64) int64 {
	d := t / 86400
	if t < 0 && t%86400 != 0 {
		d--
	}
	return d
}

// day returns the group's accumulator of day d, marked seen, making room for it if needed.
// The pointer is good until the next call: the days move when they grow.
func (g *groupAcc) day(d int64) *daySum {
	switch i := d - g.dayBase; {
	case len(g.daily) == 0:
		g.daily, g.dayBase = make([]daySum, 1, 32), d
	case i < 0: // a day before the first: rollups come in time order only within a series
		days := make([]daySum, int64(len(g.daily))-i, int64(cap(g.daily))-i)
		copy(days[-i:], g.daily)
		g.daily, g.dayBase = days, d
	case i >= int64(len(g.daily)):
		g.daily = slices.Grow(g.daily, int(i)+1-len(g.daily))[:i+1]
	}
	ds := &g.daily[d-g.dayBase]
	ds.seen = true
	return ds
}

// dailyStats returns the group's daily means, oldest first.
func (g *groupAcc) dailyStats() []DayUtil {
	n := 0
	for _, ds := range g.daily {
		if ds.seen {
			n++
		}
	}
	out := make([]DayUtil, 0, n)
	for i, ds := range g.daily {
		if ds.seen {
			d := g.dayBase + int64(i)
			out = append(out, DayUtil{Day: time.Unix(d*86400, 0).UTC(), UtilMean: Stat(ratio(ds.utilSum, ds.samples))})
		}
	}
	return out
}
