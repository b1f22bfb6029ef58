package present

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
)

// Utilization is report utilization's table: each group's GPU-hours, utilisation, idle and
// cost, the fleet last, with priceNotes (PriceNotes) under it.
func Utilization(rep analyze.Report, by analyze.GroupBy, priceNotes []string) Table {
	t := Table{
		Title: fmt.Sprintf("GPU utilisation by %s, %s to %s", by, rep.From.Format("2006-01-02 15:04"), rep.To.Format("2006-01-02 15:04 MST")),
		Columns: []string{by.String(), "GPUs", "GPU-h", "Util", "p50", "p95", "Max", "VRAM peak",
			"Used GPU-h", "Idle GPU-h", "Idle %", "Idle cost", "Cost", "Price", "Zero-util h", "Daily util", "Verdict"},
		// On a narrow terminal the mean utilisation, idle %, idle cost, cost and verdict stay.
		Priority:  []int{0, 6, 5, 9, 2, 4, 1, 3, 4, 5, 8, 9, 10, 2, 1, 0, 7},
		Right:     []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14},
		TableOnly: []int{15},
		JSON:      rep,
	}
	pct := func(v analyze.Stat) string { return Percent(float64(v)) }
	cents := rep.Cents()
	row := func(g analyze.GroupStats, c analyze.Cents) []string {
		return []string{g.Key, strconv.Itoa(g.GPUs), Hours(g.GPUHours), pct(g.UtilMean), pct(g.UtilP50), pct(g.UtilP95),
			pct(g.UtilMax), gibStat(g.MemPeakMiB), Hours(g.UsedGPUHours), Hours(g.IdleGPUHours), pct(g.IdlePct), c.IdleCost.Dollars(),
			c.Cost.Dollars(), g.PriceSource, Hours(g.ZeroUtilGPUHours), DailyTrend(g.Daily, rep.From, rep.To), string(g.Verdict)}
	}
	for i, g := range rep.Groups {
		t.Rows = append(t.Rows, row(g, cents[i]))
	}
	t.Rows = append(t.Rows, row(rep.Fleet, cents[len(rep.Groups)]))
	p := fleet.Period{Start: rep.From, End: rep.To}
	t.Notes = append(t.Notes, fmt.Sprintf("Idle: GPU-hours − used GPU-hours (held time × utilisation). Per month (730 h): idle cost %s of %s.",
		p.Monthly(rep.Fleet.IdleCost).Dollars(), p.Monthly(rep.Fleet.Cost).Dollars()),
		fmt.Sprintf("Zero-util h: minutes whose mean utilisation was below %g%%, a different measure.", rep.IdleThreshold))
	t.Notes = append(t.Notes, priceNotes...)
	return t
}

// gibStat formats a memory statistic in MiB as GiB, "–" when absent.
func gibStat(mib analyze.Stat) string {
	if math.IsNaN(float64(mib)) {
		return "–"
	}
	return GiB(float64(mib))
}

// GiB formats MiB as GiB with one decimal: "79.6 GiB".
func GiB(mib float64) string { return strconv.FormatFloat(mib/1024, 'f', 1, 64) + " GiB" }

// DailyTrend draws a group's daily mean utilisation over the period, a block a day from ▁ (0%)
// to █ (100%), blank where the group had no data; at most the last 60 days.
func DailyTrend(days []analyze.DayUtil, from, to time.Time) string {
	from, to = from.UTC().Truncate(24*time.Hour), to.UTC()
	n := int(to.Sub(from).Hours()/24 + 0.999)
	if n <= 0 || n > 400 {
		return ""
	}
	values := make([]float64, n)
	for i := range values {
		values[i] = math.NaN()
	}
	for _, d := range days {
		if i := int(d.Day.Sub(from).Hours() / 24); i >= 0 && i < n {
			values[i] = float64(d.UtilMean)
		}
	}
	return Sparkline(values, 60)
}
