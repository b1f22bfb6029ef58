package spotrisk

import "math"

// DefaultConfidence is the two-sided confidence of the intervals gpucost shows.
const DefaultConfidence = 0.95

// Garwood returns the exact two-sided confidence interval, at confidence conf, of the rate of a
// Poisson process that gave k events over an exposure of hours: with α = 1 − conf,
//
//	low  = χ²(α/2; 2k) / 2T          (0 when k = 0)
//	high = χ²(1 − α/2; 2k + 2) / 2T
//
// where χ²(p; ν) is the p-quantile of the chi-square distribution with ν degrees of freedom
// (Garwood 1936; docs/architecture.md "Spot risk"). It returns zeros when hours is not positive.
func Garwood(k int, hours, conf float64) (low, high float64) {
	if hours <= 0 || k < 0 || conf <= 0 || conf >= 1 {
		return 0, 0
	}
	alpha := 1 - conf
	if k > 0 {
		low = chiSquareQuantile(alpha/2, k) / (2 * hours)
	}
	high = chiSquareQuantile(1-alpha/2, k+1) / (2 * hours)
	return low, high
}

// chiSquareQuantile returns the p-quantile of the chi-square distribution with 2m degrees of
// freedom, the only ones Garwood's interval needs. With even degrees of freedom the CDF has a
// closed form, the Poisson tail: P(χ² ≤ x) = 1 − e^(−x/2) Σ_{i<m} (x/2)^i / i!, which is
// increasing in x, so bisection finds the quantile to the last bits of a float64.
func chiSquareQuantile(p float64, m int) float64 {
	lo, hi := 0.0, float64(2*m)+10
	for chiSquareCDF(hi, m) < p {
		lo, hi = hi, 2*hi
	}
	for range 200 {
		mid := (lo + hi) / 2
		if mid == lo || mid == hi {
			break
		}
		if chiSquareCDF(mid, m) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// chiSquareCDF is P(χ² ≤ x) with 2m degrees of freedom, each Poisson term summed in log space so
// that large m neither overflows nor underflows.
func chiSquareCDF(x float64, m int) float64 {
	if x <= 0 {
		return 0
	}
	y, tail := x/2, 0.0
	for i := range m {
		lg, _ := math.Lgamma(float64(i + 1))
		tail += math.Exp(-y + float64(i)*math.Log(y) - lg)
	}
	return max(0, 1-tail)
}
