package analyze

import (
	"math"

	"github.com/gpucost/gpucost"
)

// TimeSliced reports whether s is one workload's share of a GPU it time-slices with others
// (gpucost.LabelGPUShare): its utilisation is the percent of the GPU's time the workload used,
// and the series on the GPU share its minutes by it (docs/architecture.md "Time-sliced GPUs:
// per-process samples").
func TimeSliced(s *gpucost.Series) bool {
	return s != nil && s.Labels[gpucost.LabelGPUShare] == gpucost.GPUShareSM
}

// SliceMember is one time-sliced series' hour on one GPU or MIG instance: the minutes it covers
// and its mean utilisation, its share of the GPU's time in percent.
type SliceMember struct {
	Cov  uint64
	Util float64
}

// ShareSlices splits the minutes of one hour of one GPU or MIG instance, each worth minuteUnits,
// between the time-sliced series on it: each minute goes to the series covering it in
// proportion to their utilisation (equally where none ran a kernel), and each used its
// utilisation's part of the minute, never more than its part. The parts of each minute add up
// to it exactly, so the GPU's time is counted once however many workloads shared it. It
// returns held and used, resized to len(ms).
func ShareSlices(ms []SliceMember, minuteUnits int64, held, used []int64) ([]int64, []int64) {
	held, used = resize(held, len(ms)), resize(used, len(ms))
	var union uint64
	for _, m := range ms {
		union |= m.Cov & allMinutes
	}
	var sl slicer
	for union != 0 {
		bit := union & -union
		union &^= bit
		sl.reset()
		for i, m := range ms {
			if m.Cov&bit != 0 {
				sl.add(i, m.Util)
			}
		}
		sl.split(minuteUnits, held, used)
	}
	return held, used
}

// slicer splits one minute between the time-sliced series covering it.
type slicer struct {
	idx     []int
	util    []float64
	weights []int64
	parts   []int64
	ham     hamilton
}

func (s *slicer) reset() { s.idx, s.util = s.idx[:0], s.util[:0] }

func (s *slicer) add(i int, util float64) {
	s.idx = append(s.idx, i)
	s.util = append(s.util, min(max(util, 0), 100))
}

// split adds each series' part of a minute worth units to held[i] and what it used of it to
// used[i]: parts in proportion to utilisation (equal where all are zero), used the
// utilisation's share of the minute, scaled down where the shares add up to more than it.
func (s *slicer) split(units int64, held, used []int64) {
	s.weights = s.weights[:0]
	sum, total := 0.0, int64(0)
	for _, u := range s.util {
		w := int64(math.Round(u * 1000))
		s.weights = append(s.weights, w)
		sum += u
		total += w
	}
	if total == 0 {
		for i := range s.weights {
			s.weights[i] = 1
		}
	}
	s.parts = s.ham.split(units, s.weights, s.parts)
	scale := 1.0
	if sum > 100 {
		scale = 100 / sum
	}
	for j, i := range s.idx {
		held[i] += s.parts[j]
		used[i] += min(s.parts[j], int64(math.Round(float64(units)*s.util[j]*scale/100)))
	}
}

func resize(v []int64, n int) []int64 {
	v = append(v[:0], make([]int64, n)...)
	return v
}
