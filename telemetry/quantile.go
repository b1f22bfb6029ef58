package telemetry

import "math"

// Quantiles here are nearest-rank: the q-quantile of n values is the value at rank ⌈q·n⌉ in
// ascending order, so it is always one of the values (or, from a histogram, one of its bins).

// rank returns the 1-based nearest rank of the pct-th percentile of n ≥ 1 values.
func rank(pct, n int) int {
	return max((pct*n+99)/100, 1)
}

// quantiles returns the p50 and p95 of a, reordering a; NaN for an empty a.
func quantiles(a []float64) (p50, p95 float64) {
	n := len(a)
	if n == 0 {
		return nan, nan
	}
	k95 := rank(95, n) - 1
	if n <= 12 {
		insertionSort(a)
		return a[rank(50, n)-1], a[k95]
	}
	p95 = selectK(a, k95)
	// selectK left the k95+1 smallest values in a[:k95+1], and k50 ≤ k95.
	p50 = selectK(a[:k95+1], rank(50, n)-1)
	return p50, p95
}

// smallQuantiles returns the p50 and p95 of 3 to 8 values without a sign bit (≥ 0 and not -0),
// exactly as quantiles does. It sorts them with a network of compare-exchanges held in
// registers, without a branch: for so few values in random order, a branching sort
// mispredicts most of its branches. The values sort as their bits do, padding sorts last, and
// equal values have equal bits, so any sorted order gives the quantiles quantiles gives.
func smallQuantiles(a []float64) (p50, p95 float64) {
	var k [8]int64
	for i := range k {
		k[i] = math.MaxInt64
	}
	for i, x := range a {
		k[i&7] = int64(math.Float64bits(x))
	}
	switch {
	case len(a) <= 4:
		sort4(&k)
	case len(a) <= 6:
		sort6(&k)
	default:
		sort8(&k)
	}
	n := len(a)
	return math.Float64frombits(uint64(k[(rank(50, n)-1)&7])), math.Float64frombits(uint64(k[(rank(95, n)-1)&7]))
}

// sort4 sorts k[:4] with the optimal network of 5 compare-exchanges.
func sort4(k *[8]int64) {
	v0, v1, v2, v3 := k[0], k[1], k[2], k[3]
	v0, v1 = cmpSwap(v0, v1)
	v2, v3 = cmpSwap(v2, v3)
	v0, v2 = cmpSwap(v0, v2)
	v1, v3 = cmpSwap(v1, v3)
	v1, v2 = cmpSwap(v1, v2)
	k[0], k[1], k[2], k[3] = v0, v1, v2, v3
}

// sort6 sorts k[:6] with the optimal network of 12 compare-exchanges.
func sort6(k *[8]int64) {
	v0, v1, v2, v3, v4, v5 := k[0], k[1], k[2], k[3], k[4], k[5]
	v0, v5 = cmpSwap(v0, v5)
	v1, v3 = cmpSwap(v1, v3)
	v2, v4 = cmpSwap(v2, v4)
	v1, v2 = cmpSwap(v1, v2)
	v3, v4 = cmpSwap(v3, v4)
	v0, v3 = cmpSwap(v0, v3)
	v2, v5 = cmpSwap(v2, v5)
	v0, v1 = cmpSwap(v0, v1)
	v2, v3 = cmpSwap(v2, v3)
	v4, v5 = cmpSwap(v4, v5)
	v1, v2 = cmpSwap(v1, v2)
	v3, v4 = cmpSwap(v3, v4)
	k[0], k[1], k[2], k[3], k[4], k[5] = v0, v1, v2, v3, v4, v5
}

// sort8 sorts k with Batcher's odd–even merge network of 19 compare-exchanges.
func sort8(k *[8]int64) {
	v0, v1, v2, v3, v4, v5, v6, v7 := k[0], k[1], k[2], k[3], k[4], k[5], k[6], k[7]
	v0, v1 = cmpSwap(v0, v1)
	v2, v3 = cmpSwap(v2, v3)
	v4, v5 = cmpSwap(v4, v5)
	v6, v7 = cmpSwap(v6, v7)
	v0, v2 = cmpSwap(v0, v2)
	v1, v3 = cmpSwap(v1, v3)
	v4, v6 = cmpSwap(v4, v6)
	v5, v7 = cmpSwap(v5, v7)
	v1, v2 = cmpSwap(v1, v2)
	v5, v6 = cmpSwap(v5, v6)
	v0, v4 = cmpSwap(v0, v4)
	v1, v5 = cmpSwap(v1, v5)
	v2, v6 = cmpSwap(v2, v6)
	v3, v7 = cmpSwap(v3, v7)
	v2, v4 = cmpSwap(v2, v4)
	v3, v5 = cmpSwap(v3, v5)
	v1, v2 = cmpSwap(v1, v2)
	v3, v4 = cmpSwap(v3, v4)
	v5, v6 = cmpSwap(v5, v6)
	*k = [8]int64{v0, v1, v2, v3, v4, v5, v6, v7}
}

func cmpSwap(a, b int64) (int64, int64) { return min(a, b), max(a, b) }

// quantile95 returns the p95 of a, reordering a; NaN for an empty a.
func quantile95(a []float64) float64 {
	if len(a) == 0 {
		return nan
	}
	if v, ok := runsQuantile95(a); ok {
		return v
	}
	return selectK(a, rank(95, len(a))-1)
}

// runsQuantile95 returns the p95 of a, a GPU's memory readings over a while, when they hold few
// runs of equal values, as memory use does, which it then finds in one pass without moving a.
// It gives up (ok false) on more runs, and on a p95 of 0, which may be 0 or -0 and which of
// them selectK would return depends on where they lie in a.
func runsQuantile95(a []float64) (p95 float64, ok bool) {
	const most = 8
	var vals [most]float64
	var counts [most]int
	runs, start := 0, 0
	for i := 1; i <= len(a); i++ {
		if i < len(a) && a[i] == a[start] {
			continue
		}
		k := 0
		for k < runs && vals[k] != a[start] {
			k++
		}
		if k == runs {
			if runs == most {
				return 0, false
			}
			vals[k], runs = a[start], runs+1
		}
		counts[k] += i - start
		start = i
	}
	// Sort the distinct values, with their counts, and find the one at rank ⌈0.95·n⌉.
	for i := 1; i < runs; i++ {
		for j := i; j > 0 && vals[j-1] > vals[j]; j-- {
			vals[j-1], vals[j] = vals[j], vals[j-1]
			counts[j-1], counts[j] = counts[j], counts[j-1]
		}
	}
	r95, cum := rank(95, len(a)), 0
	for k := range runs {
		if cum += counts[k]; cum >= r95 {
			return vals[k], vals[k] != 0
		}
	}
	return 0, false // not reached: the counts add up to len(a)
}

// selectK reorders a so that a[k] is the value it would be were a sorted, with no greater value
// before it and no smaller one after, and returns a[k]. It is Hoare's quickselect with a
// median-of-three pivot, which keeps runs of equal values (a GPU's memory use often is one)
// linear; a has no NaN.
func selectK(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for hi-lo > 12 {
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		p := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default: // j < k < i: a[k] equals the pivot
			return a[k]
		}
	}
	insertionSort(a[lo : hi+1])
	return a[k]
}

func insertionSort(a []float64) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i
		for ; j > 0 && a[j-1] > v; j-- {
			a[j] = a[j-1]
		}
		a[j] = v
	}
}
