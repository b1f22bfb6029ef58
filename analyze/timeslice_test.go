package analyze

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestShareSlices(t *testing.T) {
	const minute = allocUnitsPerMinute // 17,640
	first30 := uint64(1<<30 - 1)
	for _, c := range []struct {
		name       string
		ms         []SliceMember
		held, used []int64
	}{
		{"30% and 10% of a 40%-busy GPU: held 3:1, used 30% and 10% of each minute",
			[]SliceMember{{allMinutes, 30}, {allMinutes, 10}}, []int64{60 * 13230, 60 * 4410}, []int64{60 * 5292, 60 * 1764}},
		{"none ran a kernel: equal parts, nothing used",
			[]SliceMember{{allMinutes, 0}, {allMinutes, 0}}, []int64{60 * 8820, 60 * 8820}, []int64{0, 0}},
		{"the first leaves after 30 minutes: the second holds the rest alone",
			[]SliceMember{{first30, 30}, {allMinutes, 10}}, []int64{30 * 13230, 30*4410 + 30*minute}, []int64{30 * 5292, 60 * 1764}},
		{"shares above 100% (sources that disagree) are scaled to the minute",
			[]SliceMember{{1, 80}, {1, 80}}, []int64{8820, 8820}, []int64{8820, 8820}},
	} {
		held, used := ShareSlices(c.ms, minute, nil, nil)
		if fmt.Sprint(held, used) != fmt.Sprint(c.held, c.used) {
			t.Errorf("%s: ShareSlices(%v) = %v, %v; want %v, %v", c.name, c.ms, held, used, c.held, c.used)
		}
	}
}

// TestAllocateSMShares: two pods' shares of one GPU (30% and 10% of its time) for an hour
// split its $100 by use, the idle 60% apart or, by holder, in proportion to their use.
func TestAllocateSMShares(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	line := gpucost.CostLine{ResourceID: "node-1", ChargePeriodStart: t0, ChargePeriodEnd: t0.Add(time.Hour),
		ConsumedQuantity: 1, ConsumedUnit: "Hours", BilledCost: gpucost.USD(100e9), EffectiveCost: gpucost.USD(100e9)}
	for _, c := range []struct {
		policy string
		byHold bool
		want   string
	}{
		{gpucost.PolicyUsed, false, "hog $30.00, light $10.00, idle $60.00"},
		{gpucost.PolicyUsed, true, "hog $30.00, hog idle $45.00, light $10.00, light idle $15.00"},
		{gpucost.PolicyRequested, false, "hog $75.00, light $25.00, idle $0.00"},
	} {
		a, err := NewAllocator(AllocOptions{Policy: c.policy, IdleByHolder: c.byHold})
		if err != nil {
			t.Fatal(err)
		}
		for pod, util := range map[string]float64{"hog": 30, "light": 10} {
			s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-1", Host: "node-1"},
				Labels: gpucost.Labels{gpucost.LabelPod: pod, gpucost.LabelGPUShare: gpucost.GPUShareSM}}
			a.AddRollup(&gpucost.Rollup{Series: s, Start: t0, Width: time.Hour, Samples: 60, Coverage: allMinutes, UtilSum: 60 * util})
		}
		got := ""
		a.Allocate(&line, Resource{Hosts: []string{"node-1"}, GPUs: 1}, func(al *gpucost.Allocation) {
			k := al.Owner.Pod
			if al.Idle {
				k += " idle"
			}
			if k == " idle" {
				k = "idle"
			}
			if got != "" {
				got += ", "
			}
			got += k + " " + al.EffectiveCost.Dollars()
		})
		if got != c.want {
			t.Errorf("Allocate(%s, by holder %v) = %s, want %s", c.policy, c.byHold, got, c.want)
		}
	}
}
