package main

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/present"
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
			if err := checkIdleFlags(minIdle, limit); err != nil {
				return err
			}
			ctx := cmd.Context()
			rc, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer rc.close()
			zero, snap, err := rc.Idle(ctx, minIdle, nil)
			if err != nil {
				return err
			}
			gpu := present.GPUTime(nil)
			rep := present.IdleReport{Fleet: snap.Fleet(gpu), ZeroUtil: zero, Notes: present.PriceNotes(snap, gpu)}
			return e.print(present.Idle(rep, limit))
		},
	}
	f.register(cmd, "7d")
	cmd.Flags().DurationVar(&minIdle, "min", analyze.DefaultMinIdle, "shortest idle period to list, 1m or more (the store counts idle time in whole minutes)")
	cmd.Flags().IntVar(&limit, "limit", 20, "list at most this many periods (0: all)")
	return cmd
}

// checkIdleFlags refuses what report idle would otherwise change silently: a --min below the
// store's one-minute resolution and a negative --limit.
func checkIdleFlags(minIdle time.Duration, limit int) error {
	if minIdle < time.Minute {
		return usageError{fmt.Errorf("--min %s: give 1m or more; the store counts idle time in whole minutes, so --min 1m lists every idle period", minIdle)}
	}
	if limit < 0 {
		return usageError{fmt.Errorf("--limit %d: give 0 (all) or more", limit)}
	}
	return nil
}
