package present

import (
	"fmt"
	"strconv"

	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
)

// DemoHeadline is what gpucost demo prints first: the fleet's utilisation by by over the
// demo's days, its idle cost in the title, and the reports to run next on the store db.
func DemoHeadline(rep analyze.Report, by analyze.GroupBy, s *fleet.Snapshot, days int, db string) Table {
	fl, p := rep.Fleet, s.Period
	t := Utilization(rep, by, PriceNotes(s, fleet.GPUOnly))
	t.Title = fmt.Sprintf("gpucost demo — %d GPUs, %s GPU-hours over %d days, utilisation %s: %s of idle GPU time (%s a month), %s of GPU cost %s (%s a month)\n\nIdle by team (namespace):",
		fl.GPUs, Hours(fl.GPUHours), days, Percent(float64(fl.UtilMean)), fl.IdleCost.Dollars(), p.Monthly(fl.IdleCost).Dollars(),
		Percent(float64(fl.IdlePct)), fl.Cost.Dollars(), p.Monthly(fl.Cost).Dollars())
	since := strconv.Itoa(days) + "d"
	t.Notes = append(t.Notes, "",
		"Next: gpucost report utilization --db "+db+" --since "+since+" --by gpu",
		"      gpucost report idle --db "+db+" --since "+since,
		"      gpucost report alerts --db "+db+" --since 24h")
	return t
}

// DemoSpend is what gpucost demo prints second: the demo bill's (billFile's) spend by team, idle
// apart, with savings (SavingsSentence) and the reports to run next on the store db, servingFile
// being the demo's recommend --serving file.
func DemoSpend(s *fleet.Snapshot, billFile, savings, db, servingFile string) Table {
	team, _ := fleet.ParseDimension("team")
	t := SnapshotCosts(team, s, false)
	for _, f := range s.Fleet(nil) {
		t.Title = fmt.Sprintf("\nSpend by team from the demo bill (%s): %s, of which %s (%.1f%% of the GPU cost) bought GPU time nobody used.\n"+
			"Each GPU-hour costs what the bill paid for it; the time a team held a GPU without using it is its Idle.",
			billFile, f.TotalCost().Dollars(), f.IdleCost.Dollars(), f.IdlePercent())
		break
	}
	t.Notes = append(t.Notes, "", savings)
	t.Notes = append(t.Notes, "",
		"Next: gpucost report cost --db "+db+" --by namespace --gpu-only",
		"      gpucost report savings --db "+db+"   # and gpucost recommend: the changes behind it",
		"      gpucost recommend --db "+db+" --serving "+servingFile+"   # the serving pool sized by its requests",
		"      gpucost report kpi --db "+db+" --by team",
		"      gpucost report untagged --db "+db,
		"      gpucost export focus --db "+db+" --allocated --out allocated.csv")
	return t
}
