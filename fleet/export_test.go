package fleet

import (
	"math"
	"testing"

	"github.com/gpucost/gpucost"
)

// AllocatedLines keeps every amount of the source line, split to the nano-unit.
func TestAllocatedLines(t *testing.T) {
	src := &gpucost.CostLine{ResourceID: "i-1", BilledCost: gpucost.USD(10), EffectiveCost: gpucost.USD(10),
		ListCost: gpucost.USD(-7), ContractedCost: gpucost.USD(11), ConsumedQuantity: 3}
	as := []gpucost.Allocation{
		{Owner: gpucost.Owner{Team: "a"}, BilledCost: gpucost.USD(3), EffectiveCost: gpucost.USD(3)},
		{Owner: gpucost.Owner{Team: "b"}, BilledCost: gpucost.USD(7), EffectiveCost: gpucost.USD(7), Idle: true},
	}
	out := AllocatedLines(src, as)
	var list, contracted int64
	qty := 0.0
	for _, l := range out {
		list += l.ListCost.Nanos
		contracted += l.ContractedCost.Nanos
		qty += l.ConsumedQuantity
	}
	if len(out) != 2 || list != -7 || contracted != 11 || math.Abs(qty-3) > 1e-9 || out[1].Extra["x_Idle"] != "true" || out[0].Extra["x_Team"] != "a" {
		t.Errorf("AllocatedLines = %+v; want list −7, contracted 11 and quantity 3 split between a and b's idle", out)
	}
}
