package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/spotrisk"
)

// SpotPoolJSON is one pool of report spot --output json; money as exact decimals.
type SpotPoolJSON struct {
	spotrisk.Pool
	From          string  `json:"from"` // runs, bill, or runs + bill
	Runs          int     `json:"runs"`
	InstanceHours float64 `json:"instance_hours"`
	Interruptions int     `json:"interruptions"`
	// AtMost bounds the interruptions from above: the runs' and every end the bill shows.
	AtMost            int      `json:"interruptions_at_most"`
	RunHours          float64  `json:"run_instance_hours"`
	RunInterruptions  int      `json:"run_interruptions"`
	BillHours         float64  `json:"bill_instance_hours"`
	BillInterruptions int      `json:"bill_interruptions"`
	BillEnds          int      `json:"bill_ends"`
	BillInstances     int      `json:"bill_instances"`
	PerHour           float64  `json:"per_hour"`
	Low               float64  `json:"low_per_hour"`
	High              float64  `json:"high_per_hour"`
	Confidence        float64  `json:"confidence"`
	Advisor           string   `json:"advisor_bucket,omitempty"`
	AdvisorSaving     *int     `json:"advisor_savings_pct,omitempty"`
	PriceTrend        *float64 `json:"price_trend"` // the last week's mean spot price over the first's, less 1, over 30 days; null: no history
	PriceDirection    string   `json:"price_trend_direction,omitempty"`
	PriceFirstWeek    *string  `json:"price_first_week,omitempty"`
	PriceLastWeek     *string  `json:"price_last_week,omitempty"`
	Overhead          float64  `json:"overhead"`
	Cost              *string  `json:"cost"`
	OnDemand          *string  `json:"on_demand"`
	Saving            *string  `json:"saving"`
}

// SpotReport is what report spot shows: the measured rates, the advisor's buckets, the zone
// mapping, the spot price history at Now, and what was read.
type SpotReport struct {
	Rates       []spotrisk.Rate
	Advisor     *catalog.SpotAdvisor
	Zones       *spotrisk.Zones
	History     *spotrisk.PriceHistory
	Now         time.Time
	Skipped     int       // unreadable event objects
	BillFrom    time.Time // zero: the bill was not read
	BillLines   int
	BillSkipped int
	BillCounted int // bill instances left to their runs' events
}

// SpotPools is report spot: per pool, where its figures come from, the instance-hours its spot
// instances ran, their interruptions, the measured rate and its interval, the Spot Instance
// Advisor's bucket, the spot price trend over 30 days, and the saving against on-demand after
// the measured checkpoint overhead.
func SpotPools(in SpotReport) Table {
	t := Table{
		Title: "Spot interruptions by pool",
		Columns: []string{"Pool", "From", "Runs", "Instance-h", "Interruptions", "Rate", fmt.Sprintf("%.0f%% interval", 100*spotrisk.DefaultConfidence),
			"Advisor", "Price trend (30 d)", "Overhead", "Spot cost", "On-demand", "Saving"},
		Right: []int{2, 3, 4, 5, 9, 10, 11, 12},
	}
	var js []SpotPoolJSON
	bill := false
	for _, r := range in.Rates {
		j := SpotPoolJSON{Pool: r.Pool, From: r.Source, Runs: r.Runs, InstanceHours: r.Hours, Interruptions: r.Interruptions,
			AtMost: r.RunInterruptions + r.BillEnds, RunHours: r.RunHours, RunInterruptions: r.RunInterruptions,
			BillHours: r.BillHours, BillInterruptions: r.BillInterruptions, BillEnds: r.BillEnds, BillInstances: r.BillResources,
			PerHour: r.PerHour, Low: r.Low, High: r.High, Confidence: r.Confidence, Overhead: r.Overhead,
			Cost: decimalOrNull(r.Cost, r.Priced), OnDemand: decimalOrNull(r.OnDemand, r.Priced), Saving: decimalOrNull(r.Saving, r.Priced)}
		bucket := "—"
		if b, s, ok := in.Advisor.Lookup(r.Pool.Region, r.Pool.InstanceType); ok {
			bucket = fmt.Sprintf("%s (−%d%%)", b.Label, s)
			j.Advisor, j.AdvisorSaving = b.Label, &s
		}
		trend := "no history"
		if tr, ok := in.History.Trend(r.Pool, in.Zones, in.Now); ok {
			trend = tr.String()
			first, last := tr.First.Decimal(), tr.Last.Decimal()
			j.PriceTrend, j.PriceDirection, j.PriceFirstWeek, j.PriceLastWeek = &tr.Change, tr.Direction, &first, &last
		}
		interruptions := fmt.Sprint(r.Interruptions)
		if r.BillResources > 0 {
			bill = true
			interruptions += fmt.Sprintf(" (≤ %d)", j.AtMost)
		}
		runs, overhead := fmt.Sprint(r.Runs), Percent(100*r.Overhead)
		if r.Runs == 0 {
			runs, overhead = "—", "—"
		}
		t.Rows = append(t.Rows, []string{poolLabel(r.Pool, in.Zones), r.Source, runs, Hours(r.Hours), interruptions,
			spotrisk.FormatRate(r.PerHour), spotrisk.FormatRate(r.Low) + "–" + spotrisk.FormatRate(r.High), bucket, trend,
			overhead, dollarsOrDash(r.Cost, r.Priced), dollarsOrDash(r.OnDemand, r.Priced), dollarsOrDash(r.Saving, r.Priced)})
		js = append(js, j)
	}
	t.JSON = js
	t.Notes = append(t.Notes, "Rate: interruptions per instance-hour; the interval is Garwood's exact Poisson interval. From runs: terminate notices, and runs that vanished without an exit. Overhead: billable time beyond the training kept in stored checkpoints. Saving: the kept training at the on-demand price less what the spot runs cost (runs only).")
	if bill {
		t.Notes = append(t.Notes, fmt.Sprintf("From the bill (lines charged since %s): an instance's end counts as an interruption only where another instance of the same workload (provider, region, instance type, tags) started within the hour after it. That is an estimate: an interruption nobody replaced is missed, and a stop or scale-in followed by a launch is counted; (≤ N) is the most there can be, the runs' interruptions and every end the bill shows before its last period. Instances a run recorded (by AWS instance ID, GCP VM resource name or Azure VM resource ID) are counted by the run alone.",
			in.BillFrom.UTC().Format(time.DateOnly)))
	}
	if in.BillCounted > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d spot instances of the bill are counted by their runs' events, not twice.", in.BillCounted))
	}
	if in.BillSkipped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d spot usage lines of the bill name no resource ID or instance type and are left out.", in.BillSkipped))
	}
	t.Notes = append(t.Notes, "Price trend: the last week's mean spot price against the first week's over the 30 days to now, from the prices gpucost catalog refresh keeps; \"no history\" where refreshes did not cover both weeks.")
	if in.Advisor == nil {
		t.Notes = append(t.Notes, "No Spot Instance Advisor data: gpucost catalog import --format aws-spot-advisor spot-advisor-data.json (from "+catalog.SpotAdvisorURL+") adds each pool's bucket.")
	}
	if in.Skipped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d unreadable event objects skipped.", in.Skipped))
	}
	return t
}

// poolLabel writes a pool with its zone's other name where the mapping knows it.
func poolLabel(p spotrisk.Pool, zones *spotrisk.Zones) string {
	zone := p.Zone
	p.Zone = zones.Label(zone)
	return p.String()
}
