package telemetry

import (
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

const (
	nsSecond = int64(time.Second)
	nsMinute = int64(time.Minute)
	nsHour   = int64(time.Hour)

	// HistBins is the number of bins of an hour rollup's utilisation histogram.
	HistBins = gpucost.HistBins
)

// Rollup rolls b's samples up into minute and hour rollups, grouped by series. Within a series
// they come in time order, each hour rollup after the minute rollups of that hour.
//
// A minute rollup covers the minute's samples: their count and the seconds that held them, the
// utilisation sum, maximum and exact p50 and p95 (nearest rank), memory maximum, p95 and total,
// power sum, count and maximum, temperature maximum and the profiling sums. The minute is idle
// (IdleMinutes 1, IdleMask 1) when its mean utilisation is below idleBelow.
//
// An hour rollup covers the hour's samples the same way, except that its Coverage bit i says
// that minute i held samples, IdleMask bit i that minute i was idle, and its UtilP50 and UtilP95
// come from UtilHist, the count of samples per whole percent (rounded half up).
//
// Samples may come in any order, and b is left as it is. Rollup reads a batch that is in
// order (series after series, each in time order) as it stands. Any other it reads in windows
// of whole minutes (see window): in place, a series at a time, when the window's samples come
// in rounds, as an agent polls GPUs (all at one instant, then the next); else sorted by series
// and time. Readings that are NaN are absent; a maximum over no readings is NaN. A sample
// without a utilisation reading is left out, and so is a later-added sample of a series at the
// same instant as another. ProfSamples counts the samples that carry SMActive; SMOccupancySum
// and GrEngineActiveSum add the other two metrics over those samples (absent ones add
// nothing). Rollup expects samples that pass Validate.
func Rollup(b *Batch, idleBelow float64) []gpucost.Rollup {
	l := b.layout()
	r := newRoller(b, &l, idleBelow) // a value: writes to it need no GC write barrier
	r.c = b.run()
	if l.inOrder {
		lo := 0
		for s, n := range l.count {
			if n > 0 {
				r.series(s, lo, 1, n)
				lo += n
			}
		}
		return r.finish()
	}
	srt := sorter{b: b}
	for ws := l.windows; len(ws) > 0; {
		if ws[0].rounds > 0 {
			ws = r.inRounds(ws)
		} else {
			ws = r.sorted(&srt, ws)
		}
	}
	return r.finish()
}

// inRounds rolls up in place the first windows of ws whose samples come in the same rounds,
// up to some 128 K samples, and returns the windows after them. It reads a series at a time,
// the same sample of every round; the limit keeps the memory pages that this touches few.
func (r *roller) inRounds(ws []window) []window {
	b, g, lo := r.b, ws[0].rounds, ws[0].lo
	pattern := b.seriesOf[lo : lo+g]
	k := 1
	for k < len(ws) && ws[k].hi-lo <= 1<<17 && ws[k].rounds == g &&
		slices.Equal(b.seriesOf[ws[k].lo:ws[k].lo+g], pattern) {
		k++
	}
	r.c = b.run()
	n := (ws[k-1].hi - lo) / g
	for i, s := range pattern {
		r.series(int(s), lo+i, g, n)
	}
	return ws[k:]
}

// sorted rolls up the first windows of ws that do not come in rounds, enough for some 32
// samples a series, and returns the windows after them. It sorts them window by window and
// then reads each series' samples of all of them, so that each series' state, once fetched
// into the processor's caches, serves several minutes.
func (r *roller) sorted(srt *sorter, ws []window) []window {
	k, n, series := 0, 0, len(r.states)
	for k < len(ws) && ws[k].rounds == 0 && n < 32*series {
		n += ws[k].hi - ws[k].lo
		k++
	}
	r.c = srt.sort(ws[:k])
	for s := range series {
		for w := range k {
			if lo, hi := srt.at[w*(series+1)+s], srt.at[w*(series+1)+s+1]; lo < hi {
				r.series(s, lo, 1, hi-lo)
			}
		}
	}
	return ws[k:]
}

// roller holds the state of one Rollup call.
type roller struct {
	b         *Batch
	idleBelow float64
	out       []gpucost.Rollup // room for every series' rollups, each series' together
	states    []seriesState    // per series number
	// c holds the samples being rolled up: those of one series are c's samples base,
	// base+stride, base+2·stride and so on.
	c            run
	base, stride int
	// The current minute's utilisation readings are utils[:nutils]; all of utils is room for
	// them. (Keeping the count apart spares a pointer store, and the GC's write barrier, for
	// every minute.)
	utils  []float64
	nutils int
	// minuteHist is the current minute's utilisation histogram, all zero between minutes.
	minuteHist [HistBins]uint32
	hists      []*[HistBins]uint32 // zero histograms to reuse
	slab       []uint32            // free space for hour histograms, all zero
	memBufs    [][]float64         // memory reading buffers to reuse
}

// seriesState is where rolling up a series stands: its open hour and where its rollups go.
type seriesState struct {
	series      *gpucost.Series
	first, next int // where in out its rollups start and its next one goes
	left        int // its samples not yet rolled up

	open  bool  // an hour is open: the fields below describe it
	hour  int64 // its start, Unix ns
	sums  sums
	idle  uint64            // bit i: minute i was idle
	hist  *[HistBins]uint32 // its utilisation histogram, the hour rollup's UtilHist to be
	mems  []float64         // its memory readings are mems[:nmems], all of mems room for them
	nmems int               // (apart, as roller.nutils, so that each minute stores no pointer)
}

func newRoller(b *Batch, l *layout, idleBelow float64) roller {
	r := roller{b: b, idleBelow: idleBelow, states: make([]seriesState, len(b.series))}
	n := 0
	for s, c := range l.count {
		r.states[s] = seriesState{series: b.series[s], first: n, next: n, left: c}
		if c > 0 {
			n += maxRollups(c, l.first[s], l.last[s])
		}
	}
	r.out = make([]gpucost.Rollup, n)
	if !l.inOrder { // every series may be open at once: give each room for its readings
		buf, off := make([]float64, len(b.seriesOf)), 0
		for s, c := range l.count {
			r.states[s].mems = buf[off : off+c : off+c]
			off += c
		}
	}
	return r
}

// maxRollups returns how many rollups a series of n samples from first to last (Unix ns) can
// give at most: the minutes and hours its time span touches, and no more minutes than samples.
func maxRollups(n int, first, last int64) int {
	minutes := min(int(floorDiv(last, nsMinute)-floorDiv(first, nsMinute))+1, n)
	hours := min(int(floorDiv(last, nsHour)-floorDiv(first, nsHour))+1, minutes)
	return minutes + hours
}

// finish returns the rollups, closing the gaps that series left in out when they gave fewer
// rollups than maxRollups allowed for (minutes without a utilisation reading, say).
func (r *roller) finish() []gpucost.Rollup {
	w := 0
	for s := range r.states {
		st := &r.states[s]
		if w != st.first {
			copy(r.out[w:], r.out[st.first:st.next])
		}
		w += st.next - st.first
	}
	clear(r.out[w:])
	return r.out[:w]
}

// sums accumulates the additive and maximum fields of a rollup.
type sums struct {
	n                    int
	cov                  uint64
	utilSum, utilMax     float64
	memMax, memTotal     float64
	powerN               int
	powerSum, powerMax   float64
	tempMax              float64
	profN                int
	smActive, smOcc, grE float64
}

func newSums() sums {
	inf := math.Inf(-1)
	return sums{utilMax: inf, memMax: inf, memTotal: inf, powerMax: inf, tempMax: inf}
}

// add folds a minute's sums into an hour's; the caller sets the coverage bit.
func (h *sums) add(m *sums) {
	h.n += m.n
	h.utilSum += m.utilSum
	h.utilMax = max(h.utilMax, m.utilMax)
	h.memMax = max(h.memMax, m.memMax)
	h.memTotal = max(h.memTotal, m.memTotal)
	h.powerN += m.powerN
	h.powerSum += m.powerSum
	h.powerMax = max(h.powerMax, m.powerMax)
	h.tempMax = max(h.tempMax, m.tempMax)
	h.profN += m.profN
	h.smActive += m.smActive
	h.smOcc += m.smOcc
	h.grE += m.grE
}

// rollup writes the rollup these sums describe, quantiles left for the caller, to the next
// place of series st in out and returns it. It fills the element in place: a Rollup is large,
// and out is zero where it has not been written.
func (s *sums) rollup(out []gpucost.Rollup, st *seriesState, start int64, width time.Duration) *gpucost.Rollup {
	r := &out[st.next]
	st.next++
	r.Series, r.Start, r.Width = st.series, time.Unix(0, start).UTC(), width
	r.Samples, r.Coverage = s.n, s.cov
	r.UtilSum, r.UtilMax = s.utilSum, finite(s.utilMax)
	r.MemMaxMiB, r.MemTotalMiB = finite(s.memMax), finite(s.memTotal)
	r.PowerSamples, r.PowerSum, r.PowerMax = s.powerN, s.powerSum, finite(s.powerMax)
	r.TempMaxC = finite(s.tempMax)
	r.ProfSamples, r.SMActiveSum, r.SMOccupancySum, r.GrEngineActiveSum = s.profN, s.smActive, s.smOcc, s.grE
	return r
}

// finite turns the -Inf of a maximum over no readings into NaN, "absent".
func finite(v float64) float64 {
	if math.IsInf(v, -1) {
		return nan
	}
	return v
}

// series rolls up n samples of r.c from base on, stride apart: the next samples of series s
// in time order, all in minutes after those rolled up before. It closes the series' last hour
// once it has all the series' samples.
func (r *roller) series(s, base, stride, n int) {
	st := &r.states[s]
	r.base, r.stride = base, stride
	t := r.c.time
	for i := 0; i < n; {
		hour := floorDiv(t[base+i*stride], nsHour) * nsHour
		if st.open && st.hour != hour {
			r.closeHour(st)
		}
		if !st.open {
			r.openHour(st, hour)
		}
		for i < n && t[base+i*stride] < hour+nsHour {
			i = r.minute(st, i, n, hour)
		}
	}
	st.left -= n
	if st.left == 0 {
		if st.open {
			r.closeHour(st)
		}
		if st.hist != nil { // an hour that held no sample left it unused
			r.hists = append(r.hists, st.hist)
		}
		r.memBufs = append(r.memBufs, st.mems)
		st.hist, st.mems = nil, nil
	}
}

// openHour opens the hour that starts at hour (Unix ns) for series st.
func (r *roller) openHour(st *seriesState, hour int64) {
	st.open, st.hour, st.sums, st.idle = true, hour, newSums(), 0
	if st.hist == nil {
		st.hist = r.newHist()
	}
	if st.mems == nil {
		if n := len(r.memBufs); n > 0 {
			st.mems, r.memBufs = r.memBufs[n-1], r.memBufs[:n-1]
		}
	}
	st.nmems = 0
}

// minuteScan is what scan learns of a minute's samples beyond what it writes to the rollup.
type minuteScan struct {
	raw            int     // the samples, counting those left out
	mem0           int     // where the minute's memory readings start in the series' mems
	memMin, memMax float64 // the least and greatest of them, +Inf and -Inf for none
	whole          bool    // every utilisation reading is a whole percent
	signs          uint64  // the bits of every utilisation reading or-ed: bit 63 says some had its sign set
}

// minute rolls up the minute of the series' sample i (of n, as series numbers them), in series
// st's open hour: it writes the minute rollup, unless no sample counted, and adds it to the
// hour. It returns the index of the first sample past the minute.
func (r *roller) minute(st *seriesState, i, n int, hour int64) int {
	start := floorDiv(r.c.time[r.base+i*r.stride], nsMinute) * nsMinute
	j, ru, sc := r.scan(st, i, n, start)
	if ru == nil {
		return j
	}
	r.minuteQuantiles(ru, &sc)
	if sc.memMin == sc.memMax { // one value, or none
		ru.MemP95MiB = finite(sc.memMax)
	} else {
		ru.MemP95MiB = quantile95(st.mems[sc.mem0:st.nmems])
	}
	slot := uint64(1) << uint((start-hour)/nsMinute)
	if ru.UtilSum/float64(ru.Samples) < r.idleBelow {
		ru.IdleMinutes, ru.IdleMask = 1, 1
		st.idle |= slot
	}
	st.sums.cov |= slot
	return j
}

// scan rolls up those of the series' samples i…n-1 that fall in the minute that starts at
// start (the first ones) into series st's next minute rollup, quantiles left for the caller,
// and adds them to its hour; it leaves their utilisation readings in r.utils and their memory
// readings at the end of the series' mems. It returns the index of the first sample past the minute and
// the rollup, nil if no sample counted. It keeps its running sums in local variables and makes
// no calls in its loop, so that the compiler can hold them in registers.
func (r *roller) scan(st *seriesState, i, n int, start int64) (int, *gpucost.Rollup, minuteScan) {
	c, stride := &r.c, r.stride
	times := c.time
	util, memUsed, memTotal := c.util[:len(times)], c.memUsed[:len(times)], c.memTotal[:len(times)]
	power, temp := c.power[:len(times)], c.temp[:len(times)]
	if n-i > len(r.utils) {
		r.utils = make([]float64, max(n-i, 2*len(r.utils)))
	}
	utils := r.utils
	mem0 := st.nmems
	if mem0+n-i > len(st.mems) {
		st.mems = slices.Grow(st.mems[:mem0], n-i)
		st.mems = st.mems[:cap(st.mems)]
	}
	mems := st.mems
	nm, hist, end := mem0, st.hist, start+nsMinute
	var m sums
	var sc minuteScan
	inf := math.Inf(-1)
	m.utilMax, m.memTotal, m.powerMax, m.tempMax = inf, inf, inf, inf
	sc.memMax, sc.memMin, sc.whole = inf, math.Inf(1), true
	prev, k, p := int64(math.MinInt64), i, r.base+i*stride
	for ; k < n && times[p] < end; k, p = k+1, p+stride {
		t, u := times[p], util[p]
		if t == prev || u != u {
			prev = t
			continue
		}
		prev = t
		m.cov |= 1 << uint((t-start)/nsSecond)
		m.utilSum += u
		m.utilMax = maxOf(m.utilMax, u)
		utils[m.n] = u
		m.n++
		bin := percentBin(u)
		hist[bin]++
		sc.whole = sc.whole && float64(bin) == u
		sc.signs |= math.Float64bits(u)
		if v := memUsed[p]; v == v {
			mems[nm] = v
			nm++
			sc.memMax, sc.memMin = maxOf(sc.memMax, v), minOf(sc.memMin, v)
		}
		m.memTotal = maxOf(m.memTotal, memTotal[p])
		if v := power[p]; v == v {
			m.powerN++
			m.powerSum += v
			m.powerMax = maxOf(m.powerMax, v)
		}
		m.tempMax = maxOf(m.tempMax, temp[p])
	}
	sc.raw, sc.mem0, m.memMax = k-i, mem0, sc.memMax
	r.nutils, st.nmems = m.n, nm
	if m.n == 0 {
		return k, nil, sc
	}
	if r.b.hasProf {
		r.scanProf(&m, i, k)
	}
	st.sums.add(&m)
	return k, m.rollup(r.out, st, start, time.Minute), sc
}

// scanProf adds the profiling readings of the series' samples i…j-1, one minute's, to m,
// leaving out the samples scan leaves out.
func (r *roller) scanProf(m *sums, i, j int) {
	c := &r.c
	prev := int64(math.MinInt64)
	for k := i; k < j; k++ {
		p := r.base + k*r.stride
		t := c.time[p]
		if t == prev || c.util[p] != c.util[p] {
			prev = t
			continue
		}
		prev = t
		if v := c.smActive[p]; v == v {
			m.profN++
			m.smActive += v
			m.smOcc += orZero(c.smOccupancy[p])
			m.grE += orZero(c.grEngine[p])
		}
	}
}

// maxOf returns the greater of a running maximum m and a reading v; an absent (NaN) v leaves
// m, and of equal values m stays.
func maxOf(m, v float64) float64 {
	if v > m {
		return v
	}
	return m
}

// minOf is maxOf's mirror for a running minimum.
func minOf(m, v float64) float64 {
	if v < m {
		return v
	}
	return m
}

// minuteQuantiles sets the minute's utilisation quantiles from r.utils, as quantiles (a
// selection) gives them, in the cheapest way that gives the same. With many readings, all
// whole percents (as most sources report them), they come from a histogram of the minute.
// When no reading has its sign bit set (no -0, whose sign a selection keeps and a histogram
// does not), 3 to 8 readings go through a sorting network, and more whole ones through the
// histogram too.
func (r *roller) minuteQuantiles(ru *gpucost.Rollup, sc *minuteScan) {
	utils := r.utils[:r.nutils]
	n, unsigned := len(utils), sc.signs>>63 == 0
	switch {
	case sc.whole && sc.raw > 16:
	case n >= 3 && n <= 8 && unsigned:
		ru.UtilP50, ru.UtilP95 = smallQuantiles(utils)
		return
	case !sc.whole || !unsigned || n <= 2:
		ru.UtilP50, ru.UtilP95 = quantiles(utils)
		return
	}
	hist := &r.minuteHist
	lo, hi := HistBins, 0
	for _, u := range utils {
		bin := int(u)
		hist[bin]++
		lo, hi = min(lo, bin), max(hi, bin)
	}
	p50, p95 := gpucost.HistQuantiles(hist[lo : hi+1])
	ru.UtilP50, ru.UtilP95 = p50+float64(lo), p95+float64(lo)
	clear(hist[lo : hi+1])
}

// closeHour writes series st's open hour rollup, unless no sample counted, and closes it.
func (r *roller) closeHour(st *seriesState) {
	st.open = false
	if st.sums.n == 0 {
		return
	}
	ru := st.sums.rollup(r.out, st, st.hour, time.Hour)
	ru.IdleMask = st.idle
	ru.IdleMinutes = bits.OnesCount64(st.idle)
	ru.MemP95MiB = quantile95(st.mems[:st.nmems])
	ru.UtilHist = st.hist[:]
	st.hist = nil
	ru.UtilP50, ru.UtilP95 = gpucost.HistQuantiles(ru.UtilHist)
}

// newHist returns a zero histogram for an hour.
func (r *roller) newHist() *[HistBins]uint32 {
	if n := len(r.hists); n > 0 {
		h := r.hists[n-1]
		r.hists = r.hists[:n-1]
		return h
	}
	if len(r.slab) < HistBins {
		r.slab = make([]uint32, 64*HistBins)
	}
	h := (*[HistBins]uint32)(r.slab[:HistBins:HistBins])
	r.slab = r.slab[HistBins:]
	return h
}

// percentBin returns the histogram bin of utilisation u: u rounded half up to a whole percent,
// clamped to 0–100 without a branch.
func percentBin(u float64) int {
	return min(max(int(u+0.5), 0), 100)
}

func orZero(v float64) float64 {
	if v != v {
		return 0
	}
	return v
}

// floorDiv divides rounding towards minus infinity, so that times before 1970 fall into the
// right minute.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}
