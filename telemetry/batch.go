// Package telemetry turns GPU samples into the minute and hourly rollups gpucost stores. It is
// pure domain-side code: no I/O and no clock (time comes in as an argument or a Now func).
//
// Samples are gathered in a columnar Batch, rolled up by Rollup, merged with stored rollups by
// Merge (which is how a re-import is recognised and not counted twice), and written through a
// Writer, which buffers samples, holds back each series' still-open minute so that quantiles
// stay exact, and hands complete rollups to a gpucost.RollupStore. The collectors for each
// source live in the subpackages dcgm, nvidiasmi, nvml and promql.
package telemetry

import (
	"cmp"
	"maps"
	"math"
	"slices"

	"github.com/gpucost/gpucost"
)

// Batch holds samples in columns: one slice per reading, with the series interned to a small
// integer and the time kept as Unix nanoseconds. It is what Rollup reads; a column layout keeps
// rolling up tens of millions of samples a second within reach of one core.
//
// A Batch is not safe for concurrent use.
type Batch struct {
	series []*gpucost.Series       // by series number
	byGPU  map[gpucost.GPU][]int32 // series numbers of each GPU, told apart by their labels
	last   int32                   // the series of the latest Add, -1 before the first

	seriesOf []int32 // per sample: the series number
	time     []int64 // per sample: Unix nanoseconds

	util, memUsed, memTotal, power, temp []float64
	smActive, smOccupancy, grEngine      []float64
	hasProf                              bool // some sample carries SMActive
}

// NewBatch returns an empty batch with room for n samples.
func NewBatch(n int) *Batch {
	b := &Batch{last: -1}
	b.grow(n)
	return b
}

// Len returns the number of samples in b.
func (b *Batch) Len() int { return len(b.time) }

// Series returns the series that samples of series number i belong to.
func (b *Batch) Series(i int) *gpucost.Series { return b.series[i] }

// Add appends one sample. A sample without a Util reading but with GrEngineActive (a MIG
// instance, where DCGM reports no GPU utilisation) takes 100 × GrEngineActive as its
// utilisation, the figure NVIDIA's DCGM documentation gives as the MIG equivalent.
// Samples still without a utilisation reading are kept but not rolled up; Validate rejects them.
func (b *Batch) Add(s gpucost.Sample) {
	if b.byGPU == nil {
		b.last = -1
		b.byGPU = map[gpucost.GPU][]int32{}
	}
	util := s.Util
	if util != util && s.GrEngineActive == s.GrEngineActive {
		util = 100 * s.GrEngineActive
	}
	b.seriesOf = append(b.seriesOf, b.intern(s.GPU, s.Labels))
	b.time = append(b.time, s.Time.UnixNano())
	b.util = append(b.util, util)
	b.memUsed = append(b.memUsed, s.MemUsedMiB)
	b.memTotal = append(b.memTotal, s.MemTotalMiB)
	b.power = append(b.power, s.PowerW)
	b.temp = append(b.temp, s.TempC)
	b.smActive = append(b.smActive, s.SMActive)
	b.hasProf = b.hasProf || s.SMActive == s.SMActive
	b.smOccupancy = append(b.smOccupancy, s.SMOccupancy)
	b.grEngine = append(b.grEngine, s.GrEngineActive)
}

// intern returns the series number of g with labels l, adding the series if it is new.
func (b *Batch) intern(g gpucost.GPU, l gpucost.Labels) int32 {
	if b.last >= 0 {
		if s := b.series[b.last]; s.GPU == g && maps.Equal(s.Labels, l) {
			return b.last
		}
	}
	for _, id := range b.byGPU[g] {
		if maps.Equal(b.series[id].Labels, l) {
			b.last = id
			return id
		}
	}
	id := int32(len(b.series))
	var labels gpucost.Labels
	if len(l) > 0 {
		labels = maps.Clone(l)
	}
	b.series = append(b.series, &gpucost.Series{GPU: g, Labels: labels})
	b.byGPU[g] = append(b.byGPU[g], id)
	b.last = id
	return id
}

// Reset empties b, forgetting its series too, and keeps its memory for reuse.
func (b *Batch) Reset() {
	b.truncate(0)
	b.hasProf = false
	b.series = b.series[:0]
	clear(b.byGPU)
	b.last = -1
}

func (b *Batch) truncate(n int) {
	b.seriesOf, b.time = b.seriesOf[:n], b.time[:n]
	for _, c := range b.columns() {
		*c = (*c)[:n]
	}
}

func (b *Batch) columns() [8]*[]float64 {
	return [8]*[]float64{&b.util, &b.memUsed, &b.memTotal, &b.power, &b.temp,
		&b.smActive, &b.smOccupancy, &b.grEngine}
}

func (b *Batch) grow(n int) {
	b.seriesOf = slices.Grow(b.seriesOf, n)
	b.time = slices.Grow(b.time, n)
	for _, c := range b.columns() {
		*c = slices.Grow(*c, n)
	}
}

// layout is what Rollup needs to know of a batch before it reads the samples: how many each
// series has and its first and last time, whether the batch is already in the order Rollup
// reads (series by series, each in time order), and if not, the windows it reads it in.
type layout struct {
	count       []int   // per series number: its samples
	first, last []int64 // per series number: its earliest and latest time, Unix ns
	inOrder     bool
	windows     []window // in batch order; they cover the batch
}

// window is a range of a batch's samples that holds whole minutes: every sample of the batch
// in one of the minutes its samples touch lies in it, and its minutes all come after those of
// the windows before it. So rolling up window after window, each sorted by series and time,
// reads every series in time order, and only ever sorts a window's samples, which stay in
// the processor's caches. Batches in the order the agent and the dcgm files deliver (all GPUs
// at one instant, then the next) fall into windows of a minute or so; batches in no order at
// all make a single window.
type window struct {
	lo, hi   int   // samples lo…hi-1
	min, max int64 // the earliest and latest minute of their times, Unix ns / nsMinute
	// rounds, if not 0, says that the samples come in rounds of that many, as an agent polls
	// GPUs: every round the same series in the same order, each series' times in order from
	// round to round. Rollup reads such a window in place, a series at a time.
	rounds int
}

// minWindow is the fewest samples a window takes before it may end: sorting a window costs
// a pass over all series numbers, which a window of at least twice as many samples amortises.
func minWindow(series int) int { return max(4096, 2*series) }

// layout reads b's series numbers and times and returns its layout.
func (b *Batch) layout() layout {
	n := len(b.series)
	l := layout{count: make([]int, n), first: make([]int64, n), last: make([]int64, n), inOrder: true}
	if !b.runs(&l) {
		clear(l.count)
		l.inOrder = false
		b.windows(&l)
	}
	return l
}

// windows fills in l's counts, times and windows, noting the windows whose samples come in
// rounds.
func (b *Batch) windows(l *layout) {
	for s := range l.first {
		l.first[s], l.last[s] = math.MaxInt64, math.MinInt64
	}
	ids, times := b.seriesOf, b.time[:len(b.seriesOf)]
	least, seen := minWindow(len(b.series)), make([]int, len(b.series))
	var cur window
	var from, to int64 // the current window's minutes, as times: from ≤ t < to
	// Of the current window (number win), g is the length of its rounds, 0 while no series has
	// come twice, and regular says that its samples still come in rounds.
	g, regular, win := 0, true, 0
	for i, s := range ids {
		t := times[i]
		l.first[s], l.last[s] = min(l.first[s], t), max(l.last[s], t)
		l.count[s]++
		if t < from || t >= to {
			m := floorDiv(t, nsMinute)
			switch {
			case i == 0:
				cur, win = window{0, 0, m, m, 0}, 1
			case m > cur.max && i-cur.lo >= least:
				cur.hi = i
				l.windows = pushWindow(l.windows, cur.withRounds(g, regular))
				cur, g, regular, win = window{i, i, m, m, 0}, 0, true, win+1
			default:
				cur.min, cur.max = min(cur.min, m), max(cur.max, m)
			}
			from, to = cur.min*nsMinute, (cur.max+1)*nsMinute
		}
		switch {
		case g > 0:
			regular = regular && s == ids[i-g] && t >= times[i-g]
		case seen[s] == win:
			g = i - cur.lo
			regular = s == ids[i-g] && t >= times[i-g]
		default:
			seen[s] = win
		}
	}
	if len(ids) > 0 {
		cur.hi = len(ids)
		l.windows = pushWindow(l.windows, cur.withRounds(g, regular))
	}
}

// withRounds returns w noting rounds of g samples (all of w's, if g is 0) if regular and they
// fill w.
func (w window) withRounds(g int, regular bool) window {
	if g == 0 {
		g = w.hi - w.lo
	}
	if regular && (w.hi-w.lo)%g == 0 {
		w.rounds = g
	}
	return w
}

// runs fills in l's counts and times if b is in order, one run of samples per series in series
// order, each in time order, and reports whether it is.
func (b *Batch) runs(l *layout) bool {
	ids, times := b.seriesOf, b.time[:len(b.seriesOf)]
	lo := 0
	for i := 1; i <= len(ids); i++ {
		if i < len(ids) && ids[i] == ids[lo] {
			if times[i] < times[i-1] {
				return false
			}
			continue
		}
		s := ids[lo]
		if i < len(ids) && ids[i] < s {
			return false
		}
		l.count[s], l.first[s], l.last[s] = i-lo, times[lo], times[i-1]
		lo = i
	}
	return true
}

// pushWindow appends w to ws, first merging it with the windows before it whose minutes it
// shares (a sample that came late), so that the minutes of ws stay apart and in order.
func pushWindow(ws []window, w window) []window {
	for len(ws) > 0 && ws[len(ws)-1].max >= w.min {
		top := ws[len(ws)-1]
		w = window{top.lo, w.hi, min(top.min, w.min), max(top.max, w.max), 0}
		ws = ws[:len(ws)-1]
	}
	return append(ws, w)
}

// run is samples in the order Rollup reads them, column by column: a view of a Batch in order,
// or a copy sorted from one that is not. Its profiling columns are empty when the batch has no
// profiling readings.
type run struct {
	time                                 []int64
	util, memUsed, memTotal, power, temp []float64
	smActive, smOccupancy, grEngine      []float64
}

// run returns b's samples as a run, in b's order.
func (b *Batch) run() run {
	return run{b.time, b.util, b.memUsed, b.memTotal, b.power, b.temp, b.smActive, b.smOccupancy, b.grEngine}
}

// sorter copies groups of windows of a batch into series and time order, reusing its memory
// from one group to the next.
type sorter struct {
	b *Batch
	// at holds, per window k of the group and series number s, where the series' samples lie
	// in the sorted group: at[k*(len(b.series)+1)+s] up to the next entry.
	at   []int
	perm []int32 // the batch's samples in sorted order
	buf  run
}

// sort returns the samples of ws, windows that follow each other, sorted window by window, and
// in each by series number and then time, stably; s.at says where each series' samples of
// each window lie in it. b's samples do not move. Sorting window by window keeps each sort
// within the processor's caches.
func (s *sorter) sort(ws []window) run {
	b := s.b
	stride := len(b.series) + 1
	s.at = slices.Grow(s.at[:0], len(ws)*stride)[:len(ws)*stride]
	clear(s.at)
	base := ws[0].lo
	s.perm = slices.Grow(s.perm[:0], ws[len(ws)-1].hi-base)[:ws[len(ws)-1].hi-base]
	for k, w := range ws {
		at, ids := s.at[k*stride:(k+1)*stride], b.seriesOf[w.lo:w.hi]
		at[0] = w.lo - base
		for _, id := range ids {
			at[id+1]++
		}
		for i := 1; i < len(at); i++ {
			at[i] += at[i-1]
		}
		for i, id := range ids {
			s.perm[at[id]] = int32(w.lo + i)
			at[id]++
		}
		copy(at[1:], at[:len(at)-1]) // at[id] ended where series id+1 starts
		at[0] = w.lo - base
	}
	c := &s.buf
	c.time = gather(c.time, b.time, s.perm)
	s.sortTimes()
	c.util = gather(c.util, b.util, s.perm)
	c.memUsed = gather(c.memUsed, b.memUsed, s.perm)
	c.memTotal = gather(c.memTotal, b.memTotal, s.perm)
	c.power = gather(c.power, b.power, s.perm)
	c.temp = gather(c.temp, b.temp, s.perm)
	if b.hasProf {
		c.smActive = gather(c.smActive, b.smActive, s.perm)
		c.smOccupancy = gather(c.smOccupancy, b.smOccupancy, s.perm)
		c.grEngine = gather(c.grEngine, b.grEngine, s.perm)
	}
	return *c
}

// sortTimes sorts by time, stably, the samples of each series in each window that came out of
// time order.
func (s *sorter) sortTimes() {
	b, c := s.b, &s.buf
	for k := 0; k+1 < len(s.at); k++ {
		lo, hi := s.at[k], s.at[k+1]
		if (k+1)%(len(b.series)+1) == 0 || slices.IsSorted(c.time[lo:hi]) {
			continue // k is the end of a window
		}
		slices.SortStableFunc(s.perm[lo:hi], func(x, y int32) int { return cmp.Compare(b.time[x], b.time[y]) })
		for i := lo; i < hi; i++ {
			c.time[i] = b.time[s.perm[i]]
		}
	}
}

// gather copies src's elements perm into dst, reusing its memory, and returns it.
func gather[T any](dst, src []T, perm []int32) []T {
	dst = slices.Grow(dst[:0], len(perm))[:len(perm)]
	for i, k := range perm {
		dst[i] = src[k]
	}
	return dst
}

// nan is a quiet NaN, the value of an absent reading.
var nan = math.NaN()
