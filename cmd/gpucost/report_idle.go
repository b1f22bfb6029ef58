package main

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/gpucost/gpucost/analyze"
	"github.com/spf13/cobra"
)

func newReportIdleCmd(e *env) *cobra.Command {
	var (
		f       reportFlags
		minIdle time.Duration
		limit   int
	)
	cmd := &cobra.Command{
		Use:   "idle",
		Short: "Idle periods of GPUs, longest first, with their cost and daily patterns",
		Long: `idle lists the periods of at least --min in which a GPU was idle every minute (each minute's
mean utilisation below the store's idle threshold), longest first, with what they cost at
catalog on-demand prices, and the GPUs idle in the same hours every day ("idle daily
19:00–08:00"), which are the ones to put on a schedule.`,
		Example: `  gpucost report idle --since 7d
  gpucost report idle --min 4h --limit 50 --output csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			rc, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer rc.close()
			opts := rc.opts
			opts.MinIdle = minIdle
			d := analyze.NewIdle(opts)
			if err := rc.scan(ctx, time.Hour, d.Add); err != nil {
				return err
			}
			return e.print(idleResult(d.Result(), limit, rc.priceNotes()))
		},
	}
	f.register(cmd, "7d")
	cmd.Flags().DurationVar(&minIdle, "min", analyze.DefaultMinIdle, "shortest idle period to list")
	cmd.Flags().IntVar(&limit, "limit", 20, "list at most this many periods (0: all)")
	return cmd
}

func idleResult(rep analyze.IdleReport, limit int, priceNotes []string) result {
	periods := slices.Clone(rep.Periods)
	slices.SortStableFunc(periods, func(a, b analyze.IdlePeriod) int { return cmp.Compare(b.Duration, a.Duration) })
	if limit > 0 && len(periods) > limit {
		periods = periods[:limit]
	}
	r := result{
		Title:   fmt.Sprintf("Idle periods of at least %s: %d, %.1f GPU-hours, %s", rep.MinIdle, len(rep.Periods), rep.GPUHours, rep.Cost.Dollars()),
		Columns: []string{"GPU", "Host", "Model", "Labels", "Start", "End", "Duration", "GPU-h", "Cost", "Daily pattern"},
		Right:   []int{6, 7, 8},
		JSON:    rep,
	}
	patterns := map[string]string{}
	for _, p := range rep.Patterns {
		if from, to, ok := p.DailyWindow(0.9); ok {
			patterns[p.Series.Key()] = fmt.Sprintf("idle daily %02d:00–%02d:00", from, to)
		}
	}
	for _, p := range periods {
		end := p.End.Format("2006-01-02 15:04")
		if p.Open {
			end += " (still idle)"
		}
		r.Rows = append(r.Rows, []string{p.Series.GPU.UUID, p.Series.GPU.Host, p.Series.GPU.Model, p.Series.Labels.String(),
			p.Start.Format("2006-01-02 15:04"), end, p.Duration.String(), hours(p.GPUHours), p.Cost.Dollars(),
			patterns[p.Series.Key()]})
	}
	if n := len(rep.Periods) - len(periods); n > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d shorter periods not listed (--limit 0 lists all).", n))
	}
	r.Notes = append(r.Notes, priceNotes...)
	return r
}
