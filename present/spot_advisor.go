package present

import (
	"fmt"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/spotrisk"
)

// SpotAdvisorImport is what catalog import --format aws-spot-advisor kept: each interruption
// bucket with its monthly range, the rate per instance-hour it stands for and its pools.
func SpotAdvisorImport(adv *catalog.SpotAdvisor) Table {
	t := Table{Title: "Spot Instance Advisor data", Columns: []string{"Bucket", "Monthly interrupted", "Rate per instance-hour", "Pools"}, Right: []int{3}}
	counts := make([]int, len(adv.Buckets))
	for _, types := range adv.Regions {
		for _, en := range types {
			counts[en.Bucket]++
		}
	}
	for i, b := range adv.Buckets {
		lo, hi := b.RangePerHour()
		rng := spotrisk.FormatRate(lo) + "–" + spotrisk.FormatRate(hi)
		months := fmt.Sprintf("%g–%g%%", b.LowPct, b.HighPct)
		if b.Open {
			rng, months = "≥ "+spotrisk.FormatRate(lo), fmt.Sprintf("≥ %g%%", b.LowPct)
		}
		t.Rows = append(t.Rows, []string{b.Label, months, fmt.Sprintf("%s (used: %s)", rng, spotrisk.FormatRate(b.PerHour())), fmt.Sprint(counts[i])})
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d Linux pools in %d regions from %s kept for report spot and --interruption-rate auto.", adv.Pools(), len(adv.Regions), adv.Source))
	return t
}
