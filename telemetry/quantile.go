package telemetry

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

// quantile95 returns the p95 of a, reordering a; NaN for an empty a.
func quantile95(a []float64) float64 {
	if len(a) == 0 {
		return nan
	}
	return selectK(a, rank(95, len(a))-1)
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

// HistQuantiles returns the p50 and p95 of the values counted in hist, where bin i counts the
// values i (a utilisation histogram: bin i is i percent); NaN for an empty histogram.
func HistQuantiles(hist []uint32) (p50, p95 float64) {
	var n int
	for _, c := range hist {
		n += int(c)
	}
	if n == 0 {
		return nan, nan
	}
	r50, r95 := rank(50, n), rank(95, n)
	p50, p95 = nan, nan
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
