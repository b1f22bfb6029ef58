package analyze

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// TestUtilizationPricesInResult checks that a Utilization asks Options.Price only in Result,
// once per series, so that the price may be worked out from the same scan (query.Report).
func TestUtilizationPricesInResult(t *testing.T) {
	s1 := series("GPU-1", "h", "L4", nil)
	s2 := series("GPU-2", "h", "L4", nil)
	var asked []string
	ready := false
	opts := Options{Price: func(s *gpucost.Series) (gpucost.Money, bool) {
		if !ready {
			t.Errorf("Price(%s) asked while the rollups stream", s.GPU.UUID)
		}
		asked = append(asked, s.GPU.UUID)
		return usd("2"), s.GPU.UUID == "GPU-1"
	}}
	u := NewUtilization(opts)
	for _, r := range append(hourRollups(s1, t0, repeat(0, 120)), hourRollups(s2, t0, repeat(90, 60))...) {
		u.Add(r)
	}
	ready = true
	rep := u.Result()
	if len(asked) != 2 || asked[0] != "GPU-1" || asked[1] != "GPU-2" {
		t.Errorf("Price asked for %v, want [GPU-1 GPU-2]", asked)
	}
	if rep.Fleet.Cost != usd("4") || rep.Fleet.IdleCost != usd("4") || rep.Fleet.UnpricedGPUHours != 1 || rep.Fleet.GPUHours != 3 {
		t.Errorf("Utilization(GPU-1 idle 2 h at $2, GPU-2 unpriced 1 h) = cost %v, idle %v, %v unpriced of %v GPU-hours; want USD 4.00, USD 4.00, 1 of 3",
			rep.Fleet.Cost, rep.Fleet.IdleCost, rep.Fleet.UnpricedGPUHours, rep.Fleet.GPUHours)
	}
}
