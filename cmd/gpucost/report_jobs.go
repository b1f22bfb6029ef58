package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot"
	"github.com/spf13/cobra"
)

func newReportJobsCmd(e *env) *cobra.Command {
	var storeURL, job string
	cmd := &cobra.Command{
		Use:   "jobs --store URL [--job J]",
		Short: "Spot jobs run with gpucost run: wall time, lost work, checkpoint overhead, savings",
		Long: `jobs reads the events "gpucost run" stored for each job and shows, over all the machines a job
ran on: wall time (first event to last); billable time (each machine's run); productive time (the
command's running time less lost work); lost work (from the last stored checkpoint before each
interruption or crash to it; a run that vanished without an exit, such as a machine lost without
notice, ends at its last event); checkpoint overhead (time in syncs, which overlap training, and
from termination notices to exit); restarts and interruptions; the cost at the prices the runs
recorded against the same productive time on demand, the dollars saved, and SageMaker's
managed-spot figure, savings = 1 − billable / total time.`,
		Example: `  gpucost report jobs --store s3://my-bucket/jobs
  gpucost report jobs --store file:///mnt/nfs/jobs --job llama-ft --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			reps, skipped, err := jobReports(cmd.Context(), e, storeURL, job)
			if err != nil {
				return err
			}
			r := jobsResult(reps)
			if skipped > 0 {
				r.Notes = append(r.Notes, fmt.Sprintf("%d unreadable event objects were skipped (see the warnings above).", skipped))
			}
			return e.print(r)
		},
	}
	cmd.Flags().StringVar(&storeURL, "store", "", "the store gpucost run wrote to: s3://BUCKET/PREFIX, file://PATH or a directory (required)")
	cmd.Flags().StringVar(&job, "job", "", "only this job")
	cmd.MarkFlagRequired("store")
	return cmd
}

// jobReports reads the events of job, or of every job in the store, and sums each job up.
func jobReports(ctx context.Context, e *env, storeURL, job string) ([]spot.JobReport, int, error) {
	store, err := openObjectStore(ctx, e, storeURL)
	if err != nil {
		return nil, 0, err
	}
	jobs := []string{job}
	if job == "" {
		if jobs, err = spot.Jobs(ctx, store); err != nil {
			return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", storeURL, err)
		}
	}
	log := slog.New(slog.NewTextHandler(e.stderr, nil))
	var reps []spot.JobReport
	skipped := 0
	for _, j := range jobs {
		events, n, err := spot.ReadEvents(ctx, store, j, log)
		if err != nil {
			return nil, 0, gpucost.Errorf(gpucost.EUnavailable, "store %s: %w", storeURL, err)
		}
		skipped += n
		if len(events) == 0 {
			if job != "" {
				return nil, 0, gpucost.Errorf(gpucost.ENotFound, "store %s has no events for job %q", storeURL, job)
			}
			continue
		}
		reps = append(reps, spot.Summarize(j, events))
	}
	if len(reps) == 0 {
		return nil, 0, gpucost.Errorf(gpucost.ENotFound, "store %s has no job events; jobs run with \"gpucost run --store %s\" record them", storeURL, storeURL)
	}
	return reps, skipped, nil
}

// jobJSON is one job in --output json: durations in seconds, money as exact decimals.
type jobJSON struct {
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

func jobsResult(reps []spot.JobReport) result {
	r := result{
		Title: "Spot jobs",
		Columns: []string{"Job", "Status", "Runs", "Wall", "Productive", "Lost work", "Sync time", "Notice handling",
			"Restarts", "Interruptions", "Cost", "On-demand", "Savings", "Savings % (1 − billable/total)"},
		Right: []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13},
	}
	var js []jobJSON
	for _, j := range reps {
		cost, od, sav := moneyCell(j.Cost, j.Priced), moneyCell(j.OnDemand, j.HasOnDemand), moneyCell(j.Savings, j.Priced && j.HasOnDemand)
		r.Rows = append(r.Rows, []string{j.Job, j.Status, fmt.Sprint(j.Runs), dur(j.Wall), dur(j.Productive),
			dur(j.LostWork), dur(j.SyncTime), dur(j.NoticeTime), fmt.Sprint(j.Restarts), fmt.Sprint(j.Interruptions),
			cost, od, sav, fmt.Sprintf("%.1f%%", j.SavingsPct)})
		js = append(js, jobJSON{Job: j.Job, Status: j.Status, Runs: j.Runs, WallS: j.Wall.Seconds(),
			BillableS: j.Billable.Seconds(), ProductiveS: j.Productive.Seconds(), LostWorkS: j.LostWork.Seconds(),
			SyncS: j.SyncTime.Seconds(), NoticeS: j.NoticeTime.Seconds(), Restarts: j.Restarts,
			Interruptions: j.Interruptions, Crashes: j.Crashes, Syncs: j.Syncs, SyncBytes: j.SyncBytes,
			SyncFailures: j.SyncFailures, Cost: decimal(j.Cost, j.Priced), OnDemand: decimal(j.OnDemand, j.HasOnDemand),
			Savings: decimal(j.Savings, j.Priced && j.HasOnDemand), Currency: currencyOf(j), SavingsPct: j.SavingsPct})
	}
	r.JSON = js
	r.Notes = append(r.Notes, "Cost is each run's billable time at the price it recorded (--price or the catalog); on-demand prices the productive time at the instance type's catalog on-demand price.")
	return r
}

func currencyOf(j spot.JobReport) string {
	for _, m := range []gpucost.Money{j.Cost, j.OnDemand} {
		if m.Currency != "" {
			return m.Currency
		}
	}
	return "USD"
}

func moneyCell(m gpucost.Money, ok bool) string {
	if !ok {
		return "—"
	}
	return m.Dollars()
}

func decimal(m gpucost.Money, ok bool) *string {
	if !ok {
		return nil
	}
	s := m.Decimal()
	return &s
}

// dur shows a duration rounded for people: 1h2m3s, 4.5s.
func dur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
