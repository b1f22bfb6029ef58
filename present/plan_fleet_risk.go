package present

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/spotrisk"
)

// FleetWithRisk is the fleet's table (Fleet) with, under it, the interruption rate of each spot
// pool that has one, the interruptions the plan expects, and how many pools' zones could not be
// matched with the zones runs and bills name.
func FleetWithRisk(r plan.FleetResult) Table {
	t := Fleet(r)
	n := 0
	for _, p := range r.Pools {
		if p.RiskSource == "" {
			continue
		}
		n++
		risk := ""
		if p.HighRisk {
			risk = ", above --max-risk: used last"
		}
		t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %s (%s%s).", p.Zone, p.InstanceType, spotrisk.FormatRate(p.InterruptionsPerHour), p.RiskSource, risk))
	}
	if n > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("Expected interruptions: %.3g an hour over the spot instances.", r.ExpectedInterruptionsPerHour))
	}
	unmatched := 0
	for _, p := range r.Options.PoolRisk {
		if strings.Contains(p.Source, "zone unmatched") {
			unmatched++
		}
	}
	if unmatched > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d spot pools' zones could not be matched with the zones runs and bills name (zone IDs against names): they take their region's measured rate. --zones FILE (aws ec2 describe-availability-zones --output json) matches them.", unmatched))
	}
	return t
}
