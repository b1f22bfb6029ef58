package spotrisk

import (
	"gonum.org/v1/gonum/stat/distuv"
)

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
		low = distuv.ChiSquared{K: float64(2 * k)}.Quantile(alpha/2) / (2 * hours)
	}
	high = distuv.ChiSquared{K: float64(2*k + 2)}.Quantile(1-alpha/2) / (2 * hours)
	return low, high
}
