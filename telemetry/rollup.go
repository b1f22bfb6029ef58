package telemetry

import (
	"math"
	"math/bits"
	"time"

	"github.com/gpucost/gpucost"
)

const (
	nsSecond = int64(time.Second)
	nsMinute = int64(time.Minute)
	nsHour   = int64(time.Hour)

	// HistBins is the number of bins of an hour rollup's utilisation histogram: one per whole
	// percent, 0 to 100.
	HistBins = 101
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
// Samples may come in any order; Rollup sorts b by series and time (cheaply when each series is
// already in time order). Readings that are NaN are absent; a maximum over no readings is NaN.
// A sample without a utilisation reading is left out, and so is a second sample of a series at
// the same instant. ProfSamples counts the samples that carry SMActive; SMOccupancySum and
// GrEngineActiveSum add the other two metrics over those samples (absent ones add nothing).
// Rollup expects samples that pass Validate.
func Rollup(b *Batch, idleBelow float64) []gpucost.Rollup {
	b.sort()
	runs := b.runs()
	r := roller{b: b, idleBelow: idleBelow}
	r.out = make([]gpucost.Rollup, 0, estimateRollups(b, runs))
	lo := 0
	for _, hi := range runs {
		r.series(b.series[b.seriesOf[lo]], lo, hi)
		lo = hi
	}
	return r.out
}

// runs returns the end of each series' run of samples in the sorted b.
func (b *Batch) runs() []int {
	var ends []int
	for i := 1; i < len(b.seriesOf); i++ {
		if b.seriesOf[i] != b.seriesOf[i-1] {
			ends = append(ends, i)
		}
	}
	if len(b.seriesOf) > 0 {
		ends = append(ends, len(b.seriesOf))
	}
	return ends
}

// estimateRollups returns an upper bound of the rollups b gives, so that the output never grows:
// per series, the minutes and hours its time span touches, and no more than its samples.
func estimateRollups(b *Batch, runs []int) int {
	n, lo := 0, 0
	for _, hi := range runs {
		span := b.time[hi-1] - b.time[lo]
		minutes := min(int(span/nsMinute)+2, hi-lo)
		hours := min(int(span/nsHour)+2, minutes)
		n += minutes + hours
		lo = hi
	}
	return n
}

// roller holds the state of one Rollup call.
type roller struct {
	b         *Batch
	idleBelow float64
	out       []gpucost.Rollup

	utils []float64        // the current minute's utilisation readings
	mems  []float64        // the current hour's memory readings, the current minute's at the end
	hist  [HistBins]uint32 // the current hour's utilisation histogram
	// minuteHist is the current minute's, all zero between minutes.
	minuteHist [HistBins]uint32
	slab       []uint32 // free space for hour histograms
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

// appendRollup appends the rollup these sums describe to out, quantiles left for the caller,
// and returns it. It fills the new element in place: a Rollup is large.
func (s *sums) appendRollup(out *[]gpucost.Rollup, series *gpucost.Series, start int64, width time.Duration) *gpucost.Rollup {
	if len(*out) < cap(*out) {
		*out = (*out)[:len(*out)+1] // already zero: Rollup allocates the output with room
	} else {
		*out = append(*out, gpucost.Rollup{})
	}
	r := &(*out)[len(*out)-1]
	r.Series, r.Start, r.Width = series, time.Unix(0, start).UTC(), width
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

// series rolls up samples lo..hi-1, all of one series and in time order.
func (r *roller) series(s *gpucost.Series, lo, hi int) {
	t := r.b.time
	for i := lo; i < hi; {
		hour := floorDiv(t[i], nsHour) * nsHour
		h := newSums()
		var idle uint64
		r.mems = r.mems[:0]
		r.hist = [HistBins]uint32{}
		for i < hi && t[i] < hour+nsHour {
			minute := floorDiv(t[i], nsMinute) * nsMinute
			j := i + 1
			for j < hi && t[j] < minute+nsMinute {
				j++
			}
			m, ok := r.minute(s, i, j, minute)
			i = j
			if !ok {
				continue
			}
			slot := uint64(1) << uint((minute-hour)/nsMinute)
			h.add(&m)
			h.cov |= slot
			if r.out[len(r.out)-1].IdleMask != 0 {
				idle |= slot
			}
		}
		if h.n > 0 {
			r.finishHour(s, &h, hour, idle)
		}
	}
}

// minute rolls up samples i..j-1 of the minute that starts at start (Unix ns), appends the
// minute rollup to r.out and returns its sums for the hour; ok is false if no sample counted.
func (r *roller) minute(s *gpucost.Series, i, j int, start int64) (m sums, ok bool) {
	b := r.b
	m = newSums()
	r.utils = r.utils[:0]
	mem0 := len(r.mems)
	memMin := math.Inf(1)
	// With many samples, quantiles come from a histogram of the minute when every reading is a
	// whole percent (as most sources report them), which is then exact and cheaper than selection.
	useHist, whole := j-i > 16, true
	binLo, binHi := HistBins, -1
	prev := int64(math.MinInt64)
	for k := i; k < j; k++ {
		t, u := b.time[k], b.util[k]
		if t == prev {
			continue
		}
		prev = t
		if u != u {
			continue
		}
		m.n++
		m.cov |= 1 << uint((t-start)/nsSecond)
		m.utilSum += u
		if u > m.utilMax {
			m.utilMax = u
		}
		r.utils = append(r.utils, u)
		bin := percentBin(u)
		r.hist[bin]++
		if useHist {
			r.minuteHist[bin]++
			binLo, binHi = min(binLo, bin), max(binHi, bin)
			whole = whole && float64(bin) == u
		}
		if v := b.memUsed[k]; v == v {
			r.mems = append(r.mems, v)
			if v > m.memMax {
				m.memMax = v
			}
			if v < memMin {
				memMin = v
			}
		}
		if v := b.memTotal[k]; v > m.memTotal {
			m.memTotal = v
		}
		if v := b.power[k]; v == v {
			m.powerN++
			m.powerSum += v
			if v > m.powerMax {
				m.powerMax = v
			}
		}
		if v := b.temp[k]; v > m.tempMax {
			m.tempMax = v
		}
		if !b.hasProf {
			continue
		}
		if v := b.smActive[k]; v == v {
			m.profN++
			m.smActive += v
			m.smOcc += orZero(b.smOccupancy[k])
			m.grE += orZero(b.grEngine[k])
		}
	}
	if m.n == 0 {
		return m, false
	}
	ru := m.appendRollup(&r.out, s, start, time.Minute)
	r.minuteQuantiles(ru, useHist && whole, binLo, binHi)
	if useHist {
		clear(r.minuteHist[binLo : binHi+1])
	}
	if memMin == m.memMax { // one value, or none
		ru.MemP95MiB = finite(m.memMax)
	} else {
		ru.MemP95MiB = quantile95(r.mems[mem0:])
	}
	if ru.UtilSum/float64(m.n) < r.idleBelow {
		ru.IdleMinutes, ru.IdleMask = 1, 1
	}
	return m, true
}

// minuteQuantiles sets the minute's utilisation quantiles: from bins binLo…binHi of its
// histogram when fromHist (every reading a whole percent), else by selection.
func (r *roller) minuteQuantiles(ru *gpucost.Rollup, fromHist bool, binLo, binHi int) {
	if !fromHist {
		ru.UtilP50, ru.UtilP95 = quantiles(r.utils)
		return
	}
	p50, p95 := HistQuantiles(r.minuteHist[binLo : binHi+1])
	ru.UtilP50, ru.UtilP95 = p50+float64(binLo), p95+float64(binLo)
}

// finishHour appends the hour rollup that starts at start (Unix ns).
func (r *roller) finishHour(s *gpucost.Series, h *sums, start int64, idle uint64) {
	ru := h.appendRollup(&r.out, s, start, time.Hour)
	ru.IdleMask = idle
	ru.IdleMinutes = bits.OnesCount64(idle)
	ru.MemP95MiB = quantile95(r.mems)
	if len(r.slab) < HistBins {
		r.slab = make([]uint32, 64*HistBins)
	}
	ru.UtilHist = r.slab[:HistBins:HistBins]
	r.slab = r.slab[HistBins:]
	copy(ru.UtilHist, r.hist[:])
	ru.UtilP50, ru.UtilP95 = HistQuantiles(ru.UtilHist)
}

// percentBin returns the histogram bin of utilisation u: u rounded half up to a whole percent,
// clamped to 0–100.
func percentBin(u float64) int {
	bin := int(u + 0.5)
	if bin > 100 {
		return 100
	}
	if bin < 0 {
		return 0
	}
	return bin
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
