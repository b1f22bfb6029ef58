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
//
// The hours' sums go through locals in one pass, each sum still adding its hours in order. An
// hour whose minutes are all idle within an idle run, or all busy after a busy minute, moves
// the idle run on in place; the others go through idleRun.feed.
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
	hs := d.Hours
	u.rollups += len(hs)
	g := u.cur.group
	if dn := dayOf(d.Day.Unix()); u.cur.dayAcc == nil || dn != u.cur.day {
		u.cur.day, u.cur.dayAcc = dn, g.day(dn)
	}
	acc, b := u.cur.dayAcc, u.cur.bucket
	dayMinute := unixMinute(d.Day)
	u.first = min(u.first, dayMinute+int64(60*hs[0].Hour))
	u.last = max(u.last, dayMinute+int64(60*hs[len(hs)-1].Hour)+60)

	accUtil, accSamples := acc.utilSum, acc.samples
	utilSum, powerSum, smActive, smOcc := g.utilSum, g.powerSum, g.smActiveSum, g.smOccSum
	var samples, powerSamples, profSamples, covered, idle int64
	sliced := u.cur.sliced
	const all = 1<<60 - 1
	for i := range hs {
		h := &hs[i]
		accUtil += h.UtilSum
		utilSum += h.UtilSum
		powerSum += h.PowerSum
		smActive += h.SMActiveSum
		smOcc += h.SMOccupancySum
		samples += int64(h.Samples)
		powerSamples += int64(h.PowerSamples)
		profSamples += int64(h.ProfSamples)
		cov := h.Coverage & all
		idleMask := h.IdleMask & cov
		if sliced {
			idleMask = 0
		}
		covered += int64(bits.OnesCount64(cov))
		idle += int64(bits.OnesCount64(idleMask))
		at := dayMinute + int64(60*h.Hour)
		switch r := &u.run; {
		case at == r.next && idleMask == all && r.minutes > 0: // an idle hour in an idle run
			r.minutes += 60
			r.next += 60
		case at == r.next && idleMask == 0 && r.minutes == 0: // a busy hour after a busy minute
			r.next += 60
		default:
			r.feed(at, idleMask, 60)
		}
	}
	acc.utilSum, acc.samples = accUtil, accSamples+samples
	g.utilSum, g.powerSum, g.smActiveSum, g.smOccSum = utilSum, powerSum, smActive, smOcc
	g.rollups += len(hs)
	g.samples += samples
	g.powerSamples += powerSamples
	g.profSamples += profSamples
	share := u.cur.share
	b.covered += covered * share
	b.idle += idle * share
	g.addDayTotals(d)
	return true
}

// addDayTotals counts a day's maxima and histogram, which do not depend on the order of its hours.
func (g *groupAcc) addDayTotals(d *gpucost.DayRollup) {
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
