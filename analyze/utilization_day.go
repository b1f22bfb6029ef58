package analyze

import (
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
)

// AddDay counts a day of hour rollups as Add counts its hours one by one, and reports whether
// it could: the same sums in the same order, the day's maxima and histogram once (they do not
// depend on order). It counts nothing and returns false for a day not wholly in the period,
// whose hours the caller must Add instead; docs/architecture.md "Speed of the reports".
func (u *Utilization) AddDay(d *gpucost.DayRollup) bool {
	start := d.Day.UnixNano()
	if start < u.period.from || start > u.period.to-int64(24*time.Hour) {
		return false
	}
	if len(d.Hours) == 0 {
		return true
	}
	if s := d.Series; s != u.cur.ptr || s.GPU.UUID != u.cur.uuid || s.GPU.Host != u.cur.host {
		u.startSeries(s)
	}
	u.rollups += len(d.Hours)
	g := u.cur.group
	g.addDay(d)
	if dn := dayOf(d.Day.Unix()); u.cur.dayAcc == nil || dn != u.cur.day {
		u.cur.day, u.cur.dayAcc = dn, g.day(dn)
	}
	acc, b, share := u.cur.dayAcc, u.cur.bucket, u.cur.share
	dayMinute := unixMinute(d.Day)
	const all = 1<<60 - 1
	for i := range d.Hours {
		h := &d.Hours[i]
		acc.utilSum += h.UtilSum
		acc.samples += int64(h.Samples)
		covered := h.Coverage & all
		idle := h.IdleMask & covered
		if u.cur.sliced {
			idle = 0
		}
		b.covered += int64(bits.OnesCount64(covered)) * share
		b.idle += int64(bits.OnesCount64(idle)) * share
		at := dayMinute + int64(60*h.Hour)
		u.first = min(u.first, at)
		u.last = max(u.last, at+60)
		u.run.feed(at, idle, 60)
	}
	return true
}

// addDay counts a day's samples as add counts each of its hours'.
func (g *groupAcc) addDay(d *gpucost.DayRollup) {
	g.rollups += len(d.Hours)
	for i := range d.Hours {
		h := &d.Hours[i]
		g.samples += int64(h.Samples)
		g.utilSum += h.UtilSum
		g.powerSum += h.PowerSum
		g.powerSamples += int64(h.PowerSamples)
		g.profSamples += int64(h.ProfSamples)
		g.smActiveSum += h.SMActiveSum
		g.smOccSum += h.SMOccupancySum
	}
	g.utilMax = nanMax(g.utilMax, d.UtilMax)
	g.memMax = nanMax(g.memMax, d.MemMaxMiB)
	g.memP95 = nanMax(g.memP95, d.MemP95MiB)
	g.memTotal = nanMax(g.memTotal, d.MemTotalMiB)
	g.powerMax = nanMax(g.powerMax, d.PowerMax)
	g.tempMax = nanMax(g.tempMax, d.TempMaxC)
	for i, c := range d.UtilHist {
		g.hist[i] += c
	}
}
