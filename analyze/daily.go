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
}

// dayOf returns the number of the UTC day that holds unix second t.
func dayOf(t int64) int64 {
	d := t / 86400
	if t < 0 && t%86400 != 0 {
		d--
	}
	return d
}

// day returns the group's accumulator of day d, making it if needed.
func (g *groupAcc) day(d int64) *daySum {
	ds := g.daily[d]
	if ds == nil {
		ds = &daySum{}
		g.daily[d] = ds
	}
	return ds
}

// dailyStats returns the group's daily means, oldest first.
func (g *groupAcc) dailyStats() []DayUtil {
	days := make([]int64, 0, len(g.daily))
	for d := range g.daily {
		days = append(days, d)
	}
	slices.Sort(days)
	out := make([]DayUtil, len(days))
	for i, d := range days {
		ds := g.daily[d]
		out[i] = DayUtil{Day: time.Unix(d*86400, 0).UTC(), UtilMean: Stat(ratio(ds.utilSum, ds.samples))}
	}
	return out
}
