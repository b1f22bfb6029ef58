package analyze

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// Under IdleByHolder, each owner's held but unused time is its own idle allocation, and the
// capacity no telemetry held goes to the tag owner under PolicyTags.
func TestAllocateIdleByHolder(t *testing.T) {
	a, err := NewAllocator(AllocOptions{Policy: gpucost.PolicyUsed, IdleByHolder: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-1", Host: "h"}, Labels: gpucost.Labels{"namespace": "ns"}}
	for h := range 8 { // 8 of the line's 10 hours, at 25%
		a.AddRollup(&gpucost.Rollup{Series: s, Start: start.Add(time.Duration(h) * time.Hour), Width: time.Hour,
			Samples: 60, Coverage: 1<<60 - 1, UtilSum: 60 * 25})
	}
	l := &gpucost.CostLine{ResourceID: "h", ChargePeriodStart: start, ChargePeriodEnd: start.Add(10 * time.Hour),
		ConsumedQuantity: 10, ConsumedUnit: "Hours", BilledCost: gpucost.USD(100e9), EffectiveCost: gpucost.USD(100e9),
		Tags: gpucost.Labels{"team": "ml"}}
	var got []gpucost.Allocation
	a.Allocate(l, Resource{Hosts: []string{"h"}, GPUs: 1}, func(x *gpucost.Allocation) { got = append(got, *x) })
	want := []struct {
		ns     string
		idle   bool
		policy string
		hours  float64
		cost   int64
	}{
		{"ns", false, gpucost.PolicyUsed, 2, 20e9}, // 8 h held × 25%
		{"ns", true, gpucost.PolicyUsed, 6, 60e9},  // the 6 h it held without using
		{"", false, gpucost.PolicyTags, 2, 20e9},   // 2 billed hours no telemetry held
	}
	if len(got) != len(want) {
		t.Fatalf("Allocate emitted %d allocations: %+v; want %d", len(got), got, len(want))
	}
	for i, w := range want {
		g := got[i]
		if g.Owner.Namespace != w.ns || g.Idle != w.idle || g.Policy != w.policy || g.GPUHours != w.hours || g.EffectiveCost.Nanos != w.cost {
			t.Errorf("allocation %d = %s idle %v %s %.2f h %v; want %s %v %s %.2f h %d", i, g.Owner.Namespace, g.Idle, g.Policy, g.GPUHours, g.EffectiveCost, w.ns, w.idle, w.policy, w.hours, w.cost)
		}
		if g.Owner.Team != "ml" {
			t.Errorf("allocation %d owner %+v; want team ml from the tags", i, g.Owner)
		}
	}
}
