package present

import (
	"fmt"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/spotrisk"
)

// SpotPoolJSON is one pool of report spot --output json; money as exact decimals.
type SpotPoolJSON struct {
	spotrisk.Pool
	Runs          int      `json:"runs"`
	InstanceHours float64  `json:"instance_hours"`
	Interruptions int      `json:"interruptions"`
	PerHour       float64  `json:"per_hour"`
	Low           float64  `json:"low_per_hour"`
	High          float64  `json:"high_per_hour"`
	Confidence    float64  `json:"confidence"`
	Advisor       string   `json:"advisor_bucket,omitempty"`
	AdvisorSaving *int     `json:"advisor_savings_pct,omitempty"`
	PriceTrend    *float64 `json:"price_trend,omitempty"` // last run's spot price over the first's, less 1
	Overhead      float64  `json:"overhead"`
	Cost          *string  `json:"cost"`
	OnDemand      *string  `json:"on_demand"`
	Saving        *string  `json:"saving"`
}

// SpotPools is report spot: per pool, the instance-hours spot runs spent there, their
// interruptions, the measured rate and its interval, the Spot Instance Advisor's bucket, the spot
// price trend, and the saving against on-demand after the measured checkpoint overhead.
func SpotPools(rates []spotrisk.Rate, adv *catalog.SpotAdvisor, skipped int) Table {
	t := Table{
		Title: "Spot interruptions by pool",
		Columns: []string{"Pool", "Runs", "Instance-h", "Interruptions", "Rate", fmt.Sprintf("%.0f%% interval", 100*spotrisk.DefaultConfidence),
			"Advisor", "Price trend", "Overhead", "Spot cost", "On-demand", "Saving"},
		Right: []int{1, 2, 3, 4, 7, 8, 9, 10, 11},
	}
	var js []SpotPoolJSON
	for _, r := range rates {
		j := SpotPoolJSON{Pool: r.Pool, Runs: r.Runs, InstanceHours: r.Hours, Interruptions: r.Interruptions,
			PerHour: r.PerHour, Low: r.Low, High: r.High, Confidence: r.Confidence, Overhead: r.Overhead,
			Cost: decimalOrNull(r.Cost, r.Priced), OnDemand: decimalOrNull(r.OnDemand, r.Priced), Saving: decimalOrNull(r.Saving, r.Priced)}
		bucket := "—"
		if b, s, ok := adv.Lookup(r.Pool.Region, r.Pool.InstanceType); ok {
			bucket = fmt.Sprintf("%s (−%d%%)", b.Label, s)
			j.Advisor, j.AdvisorSaving = b.Label, &s
		}
		trend := "—"
		if tr, ok := r.Trend(); ok {
			trend = fmt.Sprintf("%+.1f%%", 100*tr)
			j.PriceTrend = &tr
		}
		t.Rows = append(t.Rows, []string{r.Pool.String(), fmt.Sprint(r.Runs), Hours(r.Hours), fmt.Sprint(r.Interruptions),
			spotrisk.FormatRate(r.PerHour), spotrisk.FormatRate(r.Low) + "–" + spotrisk.FormatRate(r.High), bucket, trend,
			Percent(100 * r.Overhead), dollarsOrDash(r.Cost, r.Priced), dollarsOrDash(r.OnDemand, r.Priced), dollarsOrDash(r.Saving, r.Priced)})
		js = append(js, j)
	}
	t.JSON = js
	t.Notes = append(t.Notes, "Rate: interruptions (terminate notices, and runs that vanished without an exit) per instance-hour; the interval is Garwood's exact Poisson interval. Overhead: billable time beyond the training kept in stored checkpoints. Saving: the kept training at the on-demand price less what the spot runs cost.")
	if adv == nil {
		t.Notes = append(t.Notes, "No Spot Instance Advisor data: gpucost catalog import --format aws-spot-advisor spot-advisor-data.json (from "+catalog.SpotAdvisorURL+") adds each pool's bucket.")
	}
	if skipped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d unreadable event objects skipped.", skipped))
	}
	return t
}
