package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"

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
		Long: `idle shows the fleet's idle GPU time over the period (GPU-hours − used GPU-hours, used
time being held time × utilisation) and its cost, and lists the zero-util periods of at least
--min in which a GPU's every minute had a mean utilisation below the store's idle threshold,
longest first, with what they cost at the GPU's price over the period (the bill's effective
cost where a bill line covers it, the catalog's on-demand price elsewhere), and the GPUs idle in
the same hours every day ("idle daily 19:00–08:00"), which are the ones to put on a schedule.`,
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
			rep, err := rc.idle(ctx, minIdle, nil)
			if err != nil {
				return err
			}
			return e.print(idleResult(rep, limit))
		},
	}
	f.register(cmd, "7d")
	cmd.Flags().DurationVar(&minIdle, "min", analyze.DefaultMinIdle, "shortest idle period to list")
	cmd.Flags().IntVar(&limit, "limit", 20, "list at most this many periods (0: all)")
	return cmd
}

// idleReport is the idle report: the fleet's idle figures and the zero-util periods.
type idleReport struct {
	Fleet    []fleet.Figures    `json:"fleet"` // per currency
	ZeroUtil analyze.IdleReport `json:"zero_util"`
	Notes    []string           `json:"-"`
}

// idle runs the zero-util analysis over the period's rollups that keep accepts (all where nil),
// with the snapshot's idle figures and prices.
func (rc *reportContext) idle(ctx context.Context, minIdle time.Duration, keep func(*gpucost.Series) bool) (idleReport, error) {
	snap, err := rc.snapshot(ctx)
	if err != nil {
		return idleReport{}, err
	}
	opts := rc.opts
	opts.MinIdle = minIdle
	opts.Price = snap.PriceOf()
	d := analyze.NewIdle(opts)
	add := d.Add
	var match func(*fleet.Charge) bool
	if keep != nil {
		add = func(r *gpucost.Rollup) {
			if keep(r.Series) {
				d.Add(r)
			}
		}
		match = func(c *fleet.Charge) bool { return c.Series != nil && keep(c.Series) }
	}
	if err := rc.scan(ctx, time.Hour, add); err != nil {
		return idleReport{}, err
	}
	rep := idleReport{Fleet: snap.Fleet(fleetGPU(match)), ZeroUtil: d.Result()}
	slices.SortStableFunc(rep.ZeroUtil.Periods, func(a, b analyze.IdlePeriod) int { return cmp.Compare(b.Duration, a.Duration) })
	rep.Notes = priceNotes(snap, fleetSource(snap, fleetGPU(match)))
	return rep, nil
}

func idleResult(rep idleReport, limit int) result {
	z := rep.ZeroUtil
	periods := z.Periods
	if limit > 0 && len(periods) > limit {
		periods = periods[:limit]
	}
	var head []string
	for _, f := range rep.Fleet {
		head = append(head, fmt.Sprintf("%s GPU-hours idle of %s (%.1f%% of the cost), %s %s of %s",
			hours(f.IdleGPUHours()), hours(f.GPUHours()), f.IdlePercent(), f.Currency, f.IdleCost.Fixed(2), f.GPUCost().Fixed(2)))
	}
	r := result{
		Title: fmt.Sprintf("Idle GPU time: %s.\nZero-util periods of at least %s: %d, %.1f GPU-hours, %s",
			strings.Join(head, "; "), z.MinIdle, len(z.Periods), z.GPUHours, z.Cost.Dollars()),
		Columns: []string{"GPU", "Host", "Model", "Labels", "Start", "End", "Duration", "GPU-h", "Cost", "Daily pattern"},
		Right:   []int{6, 7, 8},
		JSON:    rep,
	}
	patterns := map[string]string{}
	for _, p := range z.Patterns {
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
	if n := len(z.Periods) - len(periods); n > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d shorter periods not listed (--limit 0 lists all).", n))
	}
	r.Notes = append(r.Notes, "Idle is GPU-hours − used GPU-hours (held time × utilisation); a zero-util period is a run of minutes below the store's idle threshold, a different measure.")
	r.Notes = append(r.Notes, rep.Notes...)
	return r
}
