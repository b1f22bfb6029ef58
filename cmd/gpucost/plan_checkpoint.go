package main

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/plan"
	"github.com/spf13/cobra"
)

func newPlanCheckpointCmd(e *env) *cobra.Command {
	var (
		o                     plan.CheckpointOptions
		rate, size, bandwidth string
	)
	cmd := &cobra.Command{
		Use:   "checkpoint",
		Short: "How often a spot or failure-prone job should checkpoint, and what it costs",
		Long: `checkpoint gives Young's and Daly's checkpoint intervals (docs/architecture.md: Young τ = √(2δM); Daly
τ = √(2δM)·[1 + ⅓√(δ/2M) + (δ/2M)/9] − δ for δ < 2M, else M) and the exact optimum of Daly's
expected wall-time model, with the overhead each costs against failure-free time, and whether an
emergency checkpoint fits the provider's interruption notice (AWS 2 min, GCP and Azure 30 s).
δ is --checkpoint-time, or --size over --bandwidth; M is --mtbi or 1 / --interruption-rate.`,
		Example: `  gpucost plan checkpoint --checkpoint-time 45s --restart 5m --mtbi 6h
  gpucost plan checkpoint --size 98GB --bandwidth 1GB/s --restart 5m --interruption-rate 10%/h --provider aws
  gpucost plan checkpoint --checkpoint-time 5m --restart 10m --mtbi 24h --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			var err error
			if rate != "" {
				if o.InterruptionsPerHour, err = flagValue("interruption-rate", rate, plan.ParseRate); err != nil {
					return err
				}
			}
			if size != "" {
				if o.SizeBytes, err = flagValue("size", size, func(s string) (float64, error) { return plan.ParseBytes(s, false) }); err != nil {
					return err
				}
			}
			if bandwidth != "" {
				if o.BandwidthBytesPerSecond, err = flagValue("bandwidth", bandwidth, func(s string) (float64, error) { return plan.ParseBytes(s, true) }); err != nil {
					return err
				}
			}
			res, err := plan.Checkpoint(o)
			if err != nil {
				return err
			}
			return e.print(checkpointResult(res))
		},
	}
	f := cmd.Flags()
	f.DurationVar(&o.CheckpointTime, "checkpoint-time", 0, "δ: how long writing one checkpoint takes")
	f.DurationVar(&o.Restart, "restart", 0, "R: how long a restart takes, reading the checkpoint back included")
	f.DurationVar(&o.MTBI, "mtbi", 0, "M: mean time between interruptions")
	f.StringVar(&rate, "interruption-rate", "", "interruptions per hour instead of --mtbi: 10%/h or 0.1")
	f.StringVar(&size, "size", "", "checkpoint size, such as 98GB (with --bandwidth, instead of --checkpoint-time)")
	f.StringVar(&bandwidth, "bandwidth", "", "write bandwidth to checkpoint storage, such as 1GB/s")
	f.DurationVar(&o.Notice, "notice", 0, "interruption notice (default: the --provider's)")
	f.StringVar(&o.Provider, "provider", "", "aws, gcp or azure: the notice an emergency checkpoint must fit in")
	f.DurationVar(&o.Work, "work", 0, "failure-free run time, to estimate the wall time")
	return cmd
}

func checkpointResult(r plan.CheckpointResult) result {
	out := result{
		Title:   fmt.Sprintf("Checkpoint every … (δ = %s %s, R = %s, M = %s)", r.CheckpointTime, r.CheckpointTimeSource, r.Restart, r.MTBI.Round(time.Second)),
		Columns: []string{"Rule", "Interval", "Overhead", "Writing", "Expected wall"},
		Right:   []int{1, 2, 3, 4},
		JSON:    r,
	}
	for _, row := range []struct {
		name string
		iv   plan.Interval
	}{{"Young", r.Young}, {"Daly", r.Daly}, {"optimum (Daly's model)", r.Optimum}} {
		wall := ""
		if row.iv.ExpectedWall > 0 {
			wall = row.iv.ExpectedWall.Round(time.Second).String()
		}
		out.Rows = append(out.Rows, []string{row.name, row.iv.Every.Round(time.Second).String(),
			fmt.Sprintf("%.1f%%", 100*row.iv.Overhead), fmt.Sprintf("%.1f%%", 100*row.iv.WriteOverhead), wall})
	}
	if em := r.Emergency; em != nil {
		verdict := "fits"
		if !em.Fits {
			verdict = "does NOT fit"
		}
		notice := em.Notice.String()
		if em.Provider != "" {
			notice = em.Provider + "'s " + notice
		}
		out.Notes = append(out.Notes, fmt.Sprintf("Emergency checkpoint on %s notice: writing takes %s (%s) — it %s, slack %s.",
			notice, em.Write.Round(time.Second), em.WriteSource, verdict, em.Slack.Round(time.Second)))
	}
	out.Notes = append(out.Notes, r.Notes...)
	return out
}
