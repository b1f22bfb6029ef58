package server

import (
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
)

// TestHeldHourly: a machine with an on-demand price is priced at it; one without, at its
// monthly bill over the hours a month it is held (half the week: 365 hours).
func TestHeldHourly(t *testing.T) {
	half := recommend.Resource{ID: "nb-2", Monthly: gpucost.USD(730_000_000_000)}
	for d := range 7 {
		for h := range 12 {
			half.Running[d][h] = 1
		}
	}
	v := recommend.FleetView{Resources: []recommend.Resource{{ID: "nb-1", Hourly: gpucost.USD(1_212_000_000), Monthly: gpucost.USD(884_760_000_000)}, half,
		{ID: "never", Monthly: gpucost.USD(5_000_000_000)}}}
	got := heldHourly(v)
	want := map[string]gpucost.Money{"nb-1": gpucost.USD(1_212_000_000), "nb-2": gpucost.USD(2_000_000_000)}
	if len(got) != len(want) || got["nb-1"] != want["nb-1"] || got["nb-2"] != want["nb-2"] {
		t.Errorf("heldHourly = %v, want %v (a machine never held is unpriced)", got, want)
	}
}
