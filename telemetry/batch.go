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

// sorted reports whether b's samples are grouped by series, each series appearing in one run,
// and in time order within each run: the order Rollup reads.
func (b *Batch) sorted() bool {
	if len(b.time) == 0 {
		return true
	}
	seen := make([]bool, len(b.series))
	prevS, prevT := b.seriesOf[0], b.time[0]
	seen[prevS] = true
	for i := 1; i < len(b.time); i++ {
		s, t := b.seriesOf[i], b.time[i]
		if s == prevS {
			if t < prevT {
				return false
			}
		} else {
			if seen[s] {
				return false
			}
			seen[s] = true
		}
		prevS, prevT = s, t
	}
	return true
}

// sort reorders b's samples by series number and then time, keeping the order of samples with
// equal time. It counting-sorts by series, sorts the series that are out of time order, and
// gathers every column through the resulting permutation.
func (b *Batch) sort() {
	if b.sorted() {
		return
	}
	n := len(b.time)
	start := make([]int, len(b.series)+1)
	for _, s := range b.seriesOf {
		start[s+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	perm := make([]int32, n)
	next := slices.Clone(start[:len(start)-1])
	for i, s := range b.seriesOf {
		perm[next[s]] = int32(i)
		next[s]++
	}
	for s := range b.series {
		run := perm[start[s]:start[s+1]]
		if !slices.IsSortedFunc(run, func(x, y int32) int { return cmpInt64(b.time[x], b.time[y]) }) {
			slices.SortStableFunc(run, func(x, y int32) int { return cmpInt64(b.time[x], b.time[y]) })
		}
	}
	b.seriesOf = gather(b.seriesOf, perm)
	b.time = gather(b.time, perm)
	for _, c := range b.columns() {
		*c = gather(*c, perm)
	}
}

func gather[T any](col []T, perm []int32) []T {
	out := make([]T, len(col), cap(col))
	for i, p := range perm {
		out[i] = col[p]
	}
	return out
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// nan is a quiet NaN, the value of an absent reading.
var nan = math.NaN()
