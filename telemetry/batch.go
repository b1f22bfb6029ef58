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

// inOrder reports whether b's samples already come in the order Rollup reads them: by series
// number and, within a series, in time order. Batches filled one GPU after another are.
func (b *Batch) inOrder() bool {
	for i := 1; i < len(b.time); i++ {
		s, prev := b.seriesOf[i], b.seriesOf[i-1]
		if s < prev || s == prev && b.time[i] < b.time[i-1] {
			return false
		}
	}
	return true
}

// order returns where each series' samples lie in the order Rollup reads them: series s's are
// perm[at[s]:at[s+1]], or b's own samples at[s]…at[s+1]-1 when perm is nil (b is in order).
// Within a series, perm keeps the samples in the order they were added (it is a stable counting
// sort by series number); a series whose samples came out of time order is sorted later, by
// gather. It costs O(n) and does not move b's samples.
func (b *Batch) order() (at []int, perm []int32) {
	at = make([]int, len(b.series)+1)
	for _, s := range b.seriesOf {
		at[s+1]++
	}
	for i := 1; i < len(at); i++ {
		at[i] += at[i-1]
	}
	if b.inOrder() {
		return at, nil
	}
	perm = make([]int32, len(b.seriesOf))
	next := slices.Clone(at[:len(at)-1])
	for i, s := range b.seriesOf {
		perm[next[s]] = int32(i)
		next[s]++
	}
	return at, perm
}

// run is one series' samples in time order, column by column: a view of a Batch in order, or
// a copy gathered from one that is not.
type run struct {
	time                                 []int64
	util, memUsed, memTotal, power, temp []float64
	smActive, smOccupancy, grEngine      []float64
}

// slice returns the run of b's samples lo…hi-1.
func (b *Batch) slice(lo, hi int) run {
	return run{b.time[lo:hi], b.util[lo:hi], b.memUsed[lo:hi], b.memTotal[lo:hi], b.power[lo:hi],
		b.temp[lo:hi], b.smActive[lo:hi], b.smOccupancy[lo:hi], b.grEngine[lo:hi]}
}

// gather copies b's samples idx, all of one series, into buf's columns (reusing their memory)
// and returns them as a run. If their times are out of order it first sorts idx by time,
// stably, so that of two samples at the same instant the one added first still comes first.
// The profiling columns are left empty when b has no profiling readings.
func (b *Batch) gather(buf *run, idx []int32) run {
	times := buf.time[:0]
	sorted := true
	for _, k := range idx {
		t := b.time[k]
		sorted = sorted && (len(times) == 0 || t >= times[len(times)-1])
		times = append(times, t)
	}
	if !sorted {
		slices.SortStableFunc(idx, func(x, y int32) int { return cmp.Compare(b.time[x], b.time[y]) })
		for i, k := range idx {
			times[i] = b.time[k]
		}
	}
	buf.time = times
	cols := [...]struct{ dst *[]float64; src []float64 }{
		{&buf.util, b.util}, {&buf.memUsed, b.memUsed}, {&buf.memTotal, b.memTotal},
		{&buf.power, b.power}, {&buf.temp, b.temp},
		{&buf.smActive, b.smActive}, {&buf.smOccupancy, b.smOccupancy}, {&buf.grEngine, b.grEngine},
	}
	for c, col := range cols {
		dst := (*col.dst)[:0]
		if c < 5 || b.hasProf {
			dst = gatherInto(dst, col.src, idx)
		}
		*col.dst = dst
	}
	return *buf
}

func gatherInto(dst, src []float64, idx []int32) []float64 {
	dst = slices.Grow(dst, len(idx))[:len(idx)]
	for i, k := range idx {
		dst[i] = src[k]
	}
	return dst
}

// nan is a quiet NaN, the value of an absent reading.
var nan = math.NaN()
