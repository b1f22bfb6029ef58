package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
	"github.com/spf13/cobra"
)

func newReportUtilizationCmd(e *env) *cobra.Command {
	var (
		f  reportFlags
		by string
	)
	cmd := &cobra.Command{
		Use:     "utilization",
		Aliases: []string{"utilisation", "util"},
		Short:   "GPU utilisation, idle GPU-hours and idle cost per GPU, host, model or label",
		Long: `utilization reads the hourly rollups of the period and shows per group: GPUs, GPU-hours
(time a GPU was held), utilisation (used GPU-hours ÷ GPU-hours, used time being held time ×
utilisation) and p50/p95/max over all samples, VRAM peak, idle GPU-hours (GPU-hours − used),
idle % (idle cost ÷ cost), idle cost and cost, and the verdict: utilisation < 25%
overprovisioned, < 60% underutilized, else well utilized. A GPU-hour costs what the bill line
covering it paid (effective cost ÷ billed GPU-hours), the catalog's on-demand price where no
bill line covers it. Zero-util h counts the minutes below the store's idle threshold, a
different measure. Billed GPU time without telemetry is its own "(no telemetry)" row. Groups
are sorted by idle cost.`,
		Example: `  gpucost report utilization --since 7d --by namespace
  gpucost report utilization --since 30d --by model --provider gcp
  gpucost report utilization --by label:team --output csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := analyze.ParseGroupBy(by)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			rc, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer rc.close()
			rep, snap, err := rc.utilization(ctx, g, nil)
			if err != nil {
				return err
			}
			if rep.Rollups == 0 {
				return gpucost.Errorf(gpucost.ENotFound, "no GPU telemetry in %s between %s and %s: run gpucost agent, gpucost import telemetry or gpucost demo",
					e.dbPath, rep.From.Format(time.RFC3339), rep.To.Format(time.RFC3339))
			}
			return e.print(utilizationResult(rep, g, priceNotes(snap, fleetSource(snap, nil))))
		},
	}
	f.register(cmd, "7d")
	cmd.Flags().StringVar(&by, "by", "gpu", "group by gpu, host, model, namespace, pod or label:KEY")
	return cmd
}

// utilization runs the utilisation analysis over the period's hourly rollups that keep
// accepts (all where nil), with the fleet snapshot's figures.
func (rc *reportContext) utilization(ctx context.Context, by analyze.GroupBy, keep func(*gpucost.Series) bool) (analyze.Report, *fleet.Snapshot, error) {
	snap, err := rc.snapshot(ctx)
	if err != nil {
		return analyze.Report{}, nil, err
	}
	opts := rc.opts
	opts.By = by
	opts.Price = snap.PriceOf() // prices the zero-util runs (SustainedIdleCost) as the snapshot does
	u := analyze.NewUtilization(opts)
	add := u.Add
	if keep != nil {
		add = func(r *gpucost.Rollup) {
			if keep(r.Series) {
				u.Add(r)
			}
		}
	}
	if err := rc.scan(ctx, time.Hour, add); err != nil {
		return analyze.Report{}, nil, err
	}
	var match func(*fleet.Charge) bool
	if keep != nil {
		match = func(c *fleet.Charge) bool { return c.Series != nil && keep(c.Series) }
	}
	return snap.Annotate(u.Result(), match), snap, nil
}

func utilizationResult(rep analyze.Report, by analyze.GroupBy, priceNotes []string) result {
	r := result{
		Title: fmt.Sprintf("GPU utilisation by %s, %s to %s", by, rep.From.Format("2006-01-02 15:04"), rep.To.Format("2006-01-02 15:04 MST")),
		Columns: []string{by.String(), "GPUs", "GPU-h", "Util", "p50", "p95", "Max", "VRAM peak",
			"Used GPU-h", "Idle GPU-h", "Idle %", "Idle cost", "Cost", "Price", "Zero-util h", "Daily util", "Verdict"},
		Right:     []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14},
		TableOnly: []int{15},
		JSON:      rep,
	}
	row := func(g analyze.GroupStats) []string {
		return []string{g.Key, fmt.Sprint(g.GPUs), hours(g.GPUHours), pct(g.UtilMean), pct(g.UtilP50), pct(g.UtilP95),
			pct(g.UtilMax), gibStat(g.MemPeakMiB), hours(g.UsedGPUHours), hours(g.IdleGPUHours), pct(g.IdlePct), g.IdleCost.Dollars(),
			g.Cost.Dollars(), g.PriceSource, hours(g.ZeroUtilGPUHours), dailyTrend(g.Daily, rep.From, rep.To), string(g.Verdict)}
	}
	for _, g := range rep.Groups {
		r.Rows = append(r.Rows, row(g))
	}
	r.Rows = append(r.Rows, row(rep.Fleet))
	p := fleet.Period{Start: rep.From, End: rep.To}
	r.Notes = append(r.Notes, fmt.Sprintf("Idle: GPU-hours − used GPU-hours (held time × utilisation). Per month (730 h): idle cost %s of %s.",
		p.Monthly(rep.Fleet.IdleCost).Dollars(), p.Monthly(rep.Fleet.Cost).Dollars()),
		fmt.Sprintf("Zero-util h: minutes whose mean utilisation was below %g%%, a different measure.", rep.IdleThreshold))
	r.Notes = append(r.Notes, priceNotes...)
	return r
}

func gibStat(mib analyze.Stat) string {
	if float64(mib) != float64(mib) {
		return "–"
	}
	return gib(float64(mib))
}

// dailyTrend draws a group's daily mean utilisation over the period, a block a day from ▁ (0%)
// to █ (100%), blank where the group had no data; at most the last 60 days.
func dailyTrend(days []analyze.DayUtil, from, to time.Time) string {
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
	return sparkline(values, 60)
}
