package analyze_test

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/telemetry"
)

// TestAllocateDemoServing allocates a day of the demo fleet's first serving node — a
// p4d.24xlarge, 8 × A100 serving at about 20% (8% at night, 35% in the afternoon) — rolled up
// through the real path from the demo's samples. The node's day at the on-demand $32.77 an hour
// is mostly idle under "used" (about 80%) and all the serving pod's under "requested".
func TestAllocateDemoServing(t *testing.T) {
	var node demo.Instance
	for _, in := range demo.Fleet() {
		if strings.HasPrefix(in.Host, "serving-") {
			node = in
			break
		}
	}
	if node.GPUs != 8 {
		t.Fatalf("the demo fleet's first serving node has %d GPUs, want 8", node.GPUs)
	}
	day := time.Date(2025, 3, 4, 0, 0, 0, 0, time.UTC)
	b := telemetry.NewBatch(8 * 24 * 60)
	demo.Samples([]demo.Instance{node}, day, day.Add(24*time.Hour), time.Minute, b.Add)
	rollups := telemetry.Rollup(b, 5)
	line := gpucost.CostLine{ResourceID: "i-0serving01", InstanceType: node.InstanceType, BilledCost: usd(t, "786.48"),
		EffectiveCost: usd(t, "786.48"), ChargePeriodStart: day, ChargePeriodEnd: day.Add(24 * time.Hour),
		ConsumedQuantity: 24, ConsumedUnit: "Hrs", Tags: gpucost.Labels{"user:team": "ml-platform"}}
	res := analyze.Resource{Hosts: []string{node.Host}, GPUs: node.GPUs}
	for _, policy := range []string{gpucost.PolicyUsed, gpucost.PolicyRequested} {
		a, err := analyze.NewAllocator(analyze.AllocOptions{Policy: policy})
		if err != nil {
			t.Fatal(err)
		}
		for i := range rollups {
			if rollups[i].Width == time.Hour {
				a.AddRollup(&rollups[i])
			}
		}
		var got []gpucost.Allocation
		st := a.Allocate(&line, res, func(al *gpucost.Allocation) { got = append(got, *al) })
		if len(got) != 2 || got[1].Owner.Team != "ml-platform" || !got[1].Idle ||
			got[0].Owner != (gpucost.Owner{Team: "ml-platform", Namespace: node.Namespace, Pod: node.Pod}) {
			t.Fatalf("Allocate(%s) = %+v, want the serving pod, then idle", policy, got)
		}
		if sum := got[0].BilledCost.Add(got[1].BilledCost); sum != line.BilledCost {
			t.Errorf("Allocate(%s): %s + %s = %s, want %s", policy, got[0].BilledCost, got[1].BilledCost, sum, line.BilledCost)
		}
		idle := float64(got[1].BilledCost.Nanos) / float64(line.BilledCost.Nanos) * 100
		t.Logf("%s: pod %s, idle %s (%.1f%%), %.1f GPU-hours used of %.0f",
			policy, got[0].BilledCost, got[1].BilledCost, idle, st.UsedGPUHours, st.CapacityGPUHours)
		if st.CapacityGPUHours != 192 || st.HeldGPUHours != 192 || st.UsedGPUHours < 0.17*192 || st.UsedGPUHours > 0.25*192 {
			t.Errorf("Allocate(%s) stats = %+v, want 192 GPU-hours held, about 20%% used", policy, st)
		}
		if policy == gpucost.PolicyUsed && (idle < 75 || idle > 83) {
			t.Errorf("Allocate(used): idle %.1f%% of the cost, want about 80%%", idle)
		}
		if policy == gpucost.PolicyRequested && !got[1].BilledCost.IsZero() {
			t.Errorf("Allocate(requested): idle %s, want none: the pod held every GPU all day", got[1].BilledCost)
		}
	}
}

func usd(t *testing.T, s string) gpucost.Money {
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		t.Fatal(err)
	}
	return m
}
