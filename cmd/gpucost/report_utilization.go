package main

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
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
		Long: `utilization reads the hourly rollups of the period and shows per group: GPUs, GPU-hours,
utilisation mean/p50/p95/max over all samples, VRAM peak, idle GPU-hours (minutes whose mean
utilisation was below the store's idle threshold), their share and their cost at catalog
on-demand prices, and the verdict: mean < 25% overprovisioned, < 60% underutilized, else
well utilized. Groups are sorted by idle cost.`,
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
			rep, err := rc.utilization(ctx, g)
			if err != nil {
				return err
			}
			if rep.Rollups == 0 {
				return gpucost.Errorf(gpucost.ENotFound, "no GPU telemetry in %s between %s and %s: run gpucost agent, gpucost import telemetry or gpucost demo",
					e.dbPath, rep.From.Format(time.RFC3339), rep.To.Format(time.RFC3339))
			}
			return e.print(utilizationResult(rep, g, rc.priceNotes()))
		},
	}
	f.register(cmd, "7d")
	cmd.Flags().StringVar(&by, "by", "gpu", "group by gpu, host, model, namespace, pod or label:KEY")
	return cmd
}

// utilization runs the utilisation analysis over the period's hourly rollups.
func (rc *reportContext) utilization(ctx context.Context, by analyze.GroupBy) (analyze.Report, error) {
	opts := rc.opts
	opts.By = by
	u := analyze.NewUtilization(opts)
	if err := rc.scan(ctx, time.Hour, u.Add); err != nil {
		return analyze.Report{}, err
	}
	return u.Result(), nil
}

func utilizationResult(rep analyze.Report, by analyze.GroupBy, priceNotes []string) result {
	r := result{
		Title: fmt.Sprintf("GPU utilisation by %s, %s to %s", by, rep.From.Format("2006-01-02 15:04"), rep.To.Format("2006-01-02 15:04 MST")),
		Columns: []string{by.String(), "GPUs", "GPU-h", "Util mean", "p50", "p95", "Max", "VRAM peak",
			"Idle GPU-h", "Idle %", "Idle cost", "Cost", "Daily util", "Verdict"},
		Right:     []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11},
		TableOnly: []int{12},
		JSON:      rep,
	}
	row := func(g analyze.GroupStats) []string {
		return []string{g.Key, fmt.Sprint(g.GPUs), hours(g.GPUHours), pct(g.UtilMean), pct(g.UtilP50), pct(g.UtilP95),
			pct(g.UtilMax), gibStat(g.MemPeakMiB), hours(g.IdleGPUHours), pct(g.IdlePct), g.IdleCost.Dollars(),
			g.Cost.Dollars(), dailyTrend(g.Daily, rep.From, rep.To), string(g.Verdict)}
	}
	for _, g := range rep.Groups {
		r.Rows = append(r.Rows, row(g))
	}
	r.Rows = append(r.Rows, row(rep.Fleet))
	r.Notes = append(r.Notes, fmt.Sprintf("Idle: a minute whose mean utilisation is below %g%%. Per month (730 h): idle cost %s of %s.",
		rep.IdleThreshold, rep.Monthly(rep.Fleet.IdleCost).Dollars(), rep.Monthly(rep.Fleet.Cost).Dollars()))
	if rep.Fleet.UnpricedGPUHours > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%.1f GPU-hours of models the catalog does not price are not in the costs.", rep.Fleet.UnpricedGPUHours))
	}
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
