package present

import (
	"slices"
	"testing"

	"github.com/gpucost/gpucost/plan"
)

// TestFleetWithRisk notes each spot pool's rate, the interruptions expected and the pools whose
// zone was not matched; a fleet without rates gets none of those notes.
func TestFleetWithRisk(t *testing.T) {
	r := plan.FleetResult{
		Pools: []plan.FleetPool{
			{Zone: "use1-az4", InstanceType: "g5.12xlarge", InterruptionsPerHour: 0.01, RiskSource: "measured"},
			{Zone: "use1-az6", InstanceType: "g5.48xlarge", InterruptionsPerHour: 0.2, RiskSource: "advisor >20%", HighRisk: true},
			{Zone: "use1-az1", InstanceType: "g5.24xlarge"},
		},
		ExpectedInterruptionsPerHour: 0.05,
	}
	r.Options.PoolRisk = []plan.PoolRisk{{Source: "measured in us-east-1, zone unmatched"}, {Source: "measured"}}
	got := FleetWithRisk(r).Notes
	for _, want := range []string{
		"use1-az4 g5.12xlarge: 1%/h (measured).",
		"use1-az6 g5.48xlarge: 20%/h (advisor >20%, above --max-risk: used last).",
		"Expected interruptions: 0.05 an hour over the spot instances.",
		"1 spot pools' zones could not be matched with the zones runs and bills name (zone IDs against names): they take their region's measured rate. --zones FILE (aws ec2 describe-availability-zones --output json) matches them.",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("FleetWithRisk notes = %q; want %q among them", got, want)
		}
	}
	plain := FleetWithRisk(plan.FleetResult{Pools: r.Pools[2:]})
	if n, m := len(plain.Notes), len(Fleet(plan.FleetResult{Pools: r.Pools[2:]}).Notes); n != m {
		t.Errorf("FleetWithRisk(no rates) has %d notes, Fleet %d; want the same", n, m)
	}
}
