package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
)

// JobJSON is one job in report jobs --output json: durations in seconds, money as exact decimals.
type JobJSON struct {
	Job           string  `json:"job"`
	Status        string  `json:"status"`
	Runs          int     `json:"runs"`
	WallS         float64 `json:"wall_s"`
	BillableS     float64 `json:"billable_s"`
	ProductiveS   float64 `json:"productive_s"`
	LostWorkS     float64 `json:"lost_work_s"`
	SyncS         float64 `json:"sync_s"`
	NoticeS       float64 `json:"notice_handling_s"`
	Restarts      int     `json:"restarts"`
	Interruptions int     `json:"interruptions"`
	Crashes       int     `json:"crashes"`
	Syncs         int     `json:"syncs"`
	SyncBytes     int64   `json:"sync_bytes"`
	SyncFailures  int     `json:"sync_failures"`
	Cost          *string `json:"cost"`      // null when a run had no price
	OnDemand      *string `json:"on_demand"` // null when the instance type had no on-demand price
	Savings       *string `json:"savings"`
	Currency      string  `json:"currency"`
	SavingsPct    float64 `json:"sagemaker_savings_pct"`
}

// Jobs is report jobs' table: each spot job's times, restarts and cost against on demand;
// skipped counts the event objects that could not be read.
func Jobs(reps []spot.JobReport, skipped int) Table {
	t := Table{
		Title: "Spot jobs",
		Columns: []string{"Job", "Status", "Runs", "Wall", "Productive", "Lost work", "Sync time", "Notice handling",
			"Restarts", "Interruptions", "Cost", "On-demand", "Savings", "Savings % (1 − billable/total)"},
		Right: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
	}
	var js []JobJSON
	for _, j := range reps {
		saved := j.Priced && j.HasOnDemand
		t.Rows = append(t.Rows, []string{j.Job, j.Status, fmt.Sprint(j.Runs), Duration(j.Wall), Duration(j.Productive),
			Duration(j.LostWork), Duration(j.SyncTime), Duration(j.NoticeTime), fmt.Sprint(j.Restarts), fmt.Sprint(j.Interruptions),
			dollarsOrDash(j.Cost, j.Priced), dollarsOrDash(j.OnDemand, j.HasOnDemand), dollarsOrDash(j.Savings, saved),
			fmt.Sprintf("%.1f%%", j.SavingsPct)})
		js = append(js, JobJSON{Job: j.Job, Status: j.Status, Runs: j.Runs, WallS: j.Wall.Seconds(),
			BillableS: j.Billable.Seconds(), ProductiveS: j.Productive.Seconds(), LostWorkS: j.LostWork.Seconds(),
			SyncS: j.SyncTime.Seconds(), NoticeS: j.NoticeTime.Seconds(), Restarts: j.Restarts,
			Interruptions: j.Interruptions, Crashes: j.Crashes, Syncs: j.Syncs, SyncBytes: j.SyncBytes,
			SyncFailures: j.SyncFailures, Cost: decimalOrNull(j.Cost, j.Priced), OnDemand: decimalOrNull(j.OnDemand, j.HasOnDemand),
			Savings: decimalOrNull(j.Savings, saved), Currency: jobCurrency(j), SavingsPct: j.SavingsPct})
	}
	t.JSON = js
	t.Notes = append(t.Notes, "Cost is each run's billable time at the price it recorded (--price or the catalog); on-demand prices the productive time at the instance type's catalog on-demand price.")
	if skipped > 0 {
		t.Notes = append(t.Notes, fmt.Sprintf("%d unreadable event objects were skipped (see the warnings above).", skipped))
	}
	return t
}

// jobCurrency is the currency of a job's prices, USD when it has none.
func jobCurrency(j spot.JobReport) string {
	for _, m := range []gpucost.Money{j.Cost, j.OnDemand} {
		if m.Currency != "" {
			return m.Currency
		}
	}
	return "USD"
}

// dollarsOrDash formats m in dollars, "—" when it is not known.
func dollarsOrDash(m gpucost.Money, ok bool) string {
	if !ok {
		return "—"
	}
	return m.Dollars()
}

// decimalOrNull is m as an exact decimal for JSON, null when it is not known.
func decimalOrNull(m gpucost.Money, ok bool) *string {
	if !ok {
		return nil
	}
	s := m.Decimal()
	return &s
}

// Duration shows a duration rounded for people: 1h2m3s, 4.5s, 12ms.
func Duration(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
