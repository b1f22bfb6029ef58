package gpucost

import (
	"math/bits"
	"time"
)

// MergeKind says how MergeRollups combined a stored rollup with an incoming one.
type MergeKind int

// The outcomes of MergeRollups.
const (
	// RollupUnchanged: incoming's coverage is within stored's, so its samples are taken to be stored
	// already (a re-import); stored is kept.
	RollupUnchanged MergeKind = iota
	// RollupReplaced: stored's coverage is within incoming's, which holds the same samples and more;
	// incoming is kept.
	RollupReplaced
	// RollupMerged: the two cover disjoint sub-slots and so hold different samples; they are combined.
	RollupMerged
	// RollupConflict: the two overlap in part, so neither holds the other and they cannot be added
	// without counting some samples twice; the one with more coverage is kept and the other's
	// samples outside it are lost.
	RollupConflict
)

func (k MergeKind) String() string {
	switch k {
	case RollupUnchanged:
		return "unchanged"
	case RollupReplaced:
		return "replaced"
	case RollupMerged:
		return "merged"
	case RollupConflict:
		return "conflict"
	}
	return "MergeKind(?)"
}

// MergeRollups combines the stored rollup of a series and start with an incoming one of the same
// series, start and width, deciding by their Coverage (the seconds of a minute or the minutes of
// an hour that held samples) whether incoming is a re-import, a superset, new samples or a
// partial overlap; see MergeKind. For a conflict it keeps the rollup with more covered sub-slots,
// then the one with more samples, then stored.
//
// Disjoint rollups are merged by CombineRollups: exactly, except for the quantiles it documents.
func MergeRollups(stored, incoming Rollup) (Rollup, MergeKind) {
	switch {
	case incoming.Coverage&^stored.Coverage == 0:
		return stored, RollupUnchanged
	case stored.Coverage&^incoming.Coverage == 0:
		return incoming, RollupReplaced
	case stored.Coverage&incoming.Coverage == 0:
		return CombineRollups(stored, incoming), RollupMerged
	}
	cs, ci := bits.OnesCount64(stored.Coverage), bits.OnesCount64(incoming.Coverage)
	if ci > cs || ci == cs && incoming.Samples > stored.Samples {
		return incoming, RollupConflict
	}
	return stored, RollupConflict
}

// MergeHours is MergeRollups for hour rollups, given what the minute rollups of the same samples
// showed: split has bit i set when minute i of the hour was split between stored and incoming
// (their minute rollups covered disjoint seconds and were RollupMerged), and splitIdle says which of
// those merged minutes are idle. When the hours overlap only in split minutes they hold
// different samples after all, and are combined, with the split minutes' idle bits from
// splitIdle; otherwise MergeHours is MergeRollups. This is how two imports whose files meet in the
// middle of a minute add up instead of conflicting.
func MergeHours(stored, incoming Rollup, split, splitIdle uint64) (Rollup, MergeKind) {
	overlap := stored.Coverage & incoming.Coverage
	if overlap == 0 || overlap&^split != 0 {
		return MergeRollups(stored, incoming)
	}
	out := CombineRollups(stored, incoming)
	out.IdleMask = out.IdleMask&^overlap | splitIdle&overlap
	out.IdleMinutes = bits.OnesCount64(out.IdleMask)
	return out, RollupMerged
}

// CombineRollups adds two rollups of the same series, start and width that hold different samples.
// Counts, sums and coverage add (coverage as a union), maxima take the larger, and an hour's
// histograms add, so its UtilP50 and UtilP95 are recomputed exactly from the sum and its
// IdleMask is the union (IdleMinutes its population count).
//
// What the parts do not keep cannot be recombined exactly; these are approximations, each
// within the bounds the true value is known to lie in (the union's quantile lies between the
// parts' quantiles):
//   - MemP95MiB of both widths, and a minute's UtilP95, come from a two-point model of each
//     part, 95% of its samples at its p95 and 5% at its maximum (see mergeP95). An hour the
//     agent writes minute by minute is merged this way, and a short spike in memory use keeps
//     its weight, which an average of the parts' p95 would lose;
//   - a minute's UtilP50 is the sample-weighted mean of the parts' p50, and so are both
//     utilisation quantiles of an hour without a histogram on either side;
//   - a minute whose parts disagree on idleness is idle when its idle part holds more than half
//     of the samples: the idle threshold is not known here, and the true answer depends on how
//     close the merged mean is to it.
//
// CombineRollups does not change a or b; the result shares no histogram with them.
func CombineRollups(a, b Rollup) Rollup {
	out := a
	out.Samples = a.Samples + b.Samples
	out.Coverage = a.Coverage | b.Coverage
	out.UtilSum = a.UtilSum + b.UtilSum
	out.UtilMax = nanMax(a.UtilMax, b.UtilMax)
	out.MemMaxMiB = nanMax(a.MemMaxMiB, b.MemMaxMiB)
	out.MemP95MiB = mergeP95(a.MemP95MiB, a.MemMaxMiB, a.Samples, b.MemP95MiB, b.MemMaxMiB, b.Samples)
	out.MemTotalMiB = nanMax(a.MemTotalMiB, b.MemTotalMiB)
	out.PowerSamples = a.PowerSamples + b.PowerSamples
	out.PowerSum = a.PowerSum + b.PowerSum
	out.PowerMax = nanMax(a.PowerMax, b.PowerMax)
	out.TempMaxC = nanMax(a.TempMaxC, b.TempMaxC)
	out.ProfSamples = a.ProfSamples + b.ProfSamples
	out.SMActiveSum = a.SMActiveSum + b.SMActiveSum
	out.SMOccupancySum = a.SMOccupancySum + b.SMOccupancySum
	out.GrEngineActiveSum = a.GrEngineActiveSum + b.GrEngineActiveSum
	out.UtilHist = nil
	if a.Width == time.Hour && a.UtilHist != nil && b.UtilHist != nil {
		out.UtilHist = make([]uint32, HistBins)
		for i := range out.UtilHist {
			out.UtilHist[i] = histAt(a.UtilHist, i) + histAt(b.UtilHist, i)
		}
		out.UtilP50, out.UtilP95 = HistQuantiles(out.UtilHist)
	} else {
		out.UtilP50 = weighted(a.UtilP50, a.Samples, b.UtilP50, b.Samples)
		out.UtilP95 = mergeP95(a.UtilP95, a.UtilMax, a.Samples, b.UtilP95, b.UtilMax, b.Samples)
	}
	if a.Width == time.Hour {
		out.IdleMask = a.IdleMask | b.IdleMask
		out.IdleMinutes = bits.OnesCount64(out.IdleMask)
		return out
	}
	idle, busy := a, b
	if a.IdleMask == 0 {
		idle, busy = b, a
	}
	out.IdleMask, out.IdleMinutes = 0, 0
	if idle.IdleMask != 0 && (busy.IdleMask != 0 || idle.Samples > busy.Samples) {
		out.IdleMask, out.IdleMinutes = 1, 1
	}
	return out
}

func histAt(h []uint32, i int) uint32 {
	if i < len(h) {
		return h[i]
	}
	return 0
}

// nanMax returns the larger of a and b, where NaN (absent) loses to any number.
func nanMax(a, b float64) float64 {
	if a != a || b > a {
		return b
	}
	return a
}

// mergeP95 estimates the p95 of the union of two parts, given each part's p95, maximum and
// sample count: each part stands for 95% of its samples at its p95 and 5% at its maximum, and
// the estimate is the smallest value at which those weights reach 95% of the whole. It lies
// between the parts' p95s, where the true value does. An absent (NaN) side is ignored.
func mergeP95(p95a, maxa float64, na int, p95b, maxb float64, nb int) float64 {
	switch {
	case p95a != p95a:
		return p95b
	case p95b != p95b:
		return p95a
	case na+nb == 0:
		return max(p95a, p95b)
	}
	type point struct{ v, w float64 }
	pts := [4]point{{p95a, 0.95 * float64(na)}, {nanMax(maxa, p95a), 0.05 * float64(na)},
		{p95b, 0.95 * float64(nb)}, {nanMax(maxb, p95b), 0.05 * float64(nb)}}
	for i := 1; i < len(pts); i++ { // insertion sort by value
		for j := i; j > 0 && pts[j].v < pts[j-1].v; j-- {
			pts[j], pts[j-1] = pts[j-1], pts[j]
		}
	}
	target := 0.95 * float64(na+nb) * (1 - 1e-12)
	cum := 0.0
	for _, p := range pts {
		if cum += p.w; cum >= target {
			return p.v
		}
	}
	return pts[3].v
}

// weighted returns the mean of a and b weighted by na and nb, ignoring an absent (NaN) side.
func weighted(a float64, na int, b float64, nb int) float64 {
	switch {
	case a != a:
		return b
	case b != b:
		return a
	case na+nb == 0:
		return (a + b) / 2
	}
	return (a*float64(na) + b*float64(nb)) / float64(na+nb)
}

// HistBins is the number of bins of an hour rollup's utilisation histogram (Rollup.UtilHist):
// one per whole percent, 0 to 100.
const HistBins = 101

// HistQuantiles returns the nearest-rank p50 and p95 of the values counted in hist, where bin i
// counts the values i (a utilisation histogram: bin i is i percent); NaN for an empty histogram.
// The q-quantile of n values is the value at rank ⌈q·n⌉ in ascending order, so it is always one
// of the bins.
func HistQuantiles(hist []uint32) (p50, p95 float64) {
	var n int
	for _, c := range hist {
		n += int(c)
	}
	p50, p95 = Absent, Absent
	if n == 0 {
		return p50, p95
	}
	r50, r95 := max((50*n+99)/100, 1), max((95*n+99)/100, 1)
	cum := 0
	for i, c := range hist {
		cum += int(c)
		if cum >= r50 && p50 != p50 {
			p50 = float64(i)
		}
		if cum >= r95 {
			p95 = float64(i)
			break
		}
	}
	return p50, p95
}
