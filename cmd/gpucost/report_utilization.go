package main

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
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
  gpucost report utilization --month 2025-10 --by namespace
  gpucost report utilization --by label:team --output csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := analyze.ParseGroupBy(by)
			if err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--by: %w", err)
			}
			ctx := cmd.Context()
			rc, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer rc.close()
			rep, snap, err := rc.Utilization(ctx, g, nil)
			if err != nil {
				return err
			}
			if rep.Rollups == 0 {
				return fleet.NoRollups(ctx, rc.db, e.dbPath, fleet.Period{Start: rep.From, End: rep.To})
			}
			return e.print(present.Utilization(rep, g, present.PriceNotes(snap, nil)))
		},
	}
	f.register(cmd, "7d")
	cmd.Flags().StringVar(&by, "by", "gpu", "group by gpu, host, model, namespace, pod or label:KEY")
	return cmd
}
