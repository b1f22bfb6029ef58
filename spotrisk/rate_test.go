package spotrisk

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestChiSquareQuantile checks the even-degree quantile against gonum's general one, which the
// binary does not link (tests only).
func TestChiSquareQuantile(t *testing.T) {
	for _, m := range []int{1, 2, 3, 5, 10, 50, 400, 2000} {
		for _, p := range []float64{0.005, 0.025, 0.5, 0.975, 0.995} {
			got, want := chiSquareQuantile(p, m), distuv.ChiSquared{K: float64(2 * m)}.Quantile(p)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("chiSquareQuantile(%v, %d dof) = %v, want %v", p, 2*m, got, want)
			}
		}
	}
}
