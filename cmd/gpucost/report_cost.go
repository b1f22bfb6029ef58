package main

import (
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newReportCostCmd(e *env) *cobra.Command {
	var (
		f  costFlags
		by string
	)
	cmd := &cobra.Command{
		Use:   "cost",
		Short: "Spend by team, project, namespace, job, GPU model, pricing or provider, idle apart",
		Long: `cost reports the imported bills' spend over a period, grouped by --by. GPU usage lines
whose machines report telemetry are split across the pods, namespaces, jobs and teams that used
their GPUs (--policy used: held time × utilisation; requested: held time, MIG slices and
time-sliced shares included; weighted: a blend), and the capacity nobody used is kept apart as
Idle — never smeared into the users. Every other line is charged whole to the owner its tags
name (--tag-keys; team, Team, user:team, … by default). Cost and Idle are EffectiveCost
(amortised: commitments spread over the usage they cover); the notes give the BilledCost
(invoice) totals too, and --output json each group's billed amounts.
The totals reconcile with the stored bill to the cent, and the report says so.`,
		Example: `  gpucost report cost --by team --since 30d
  gpucost report cost --by team --month 2025-10
  gpucost report cost --by namespace --gpu-only --policy requested
  gpucost report cost --by gpu-model --since 90d --output csv
  gpucost report cost --by tag:cost-center`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseBy(by)
			if err != nil {
				return err
			}
			if f.policy != gpucost.PolicyUsed {
				return e.costByPolicy(cmd.Context(), &f, d)
			}
			s, err := f.snapshot(cmd.Context(), e)
			if err != nil {
				return err
			}
			return e.print(present.SnapshotCosts(d, s, f.gpuOnly))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&by, "by", "team", "group by team, project, namespace, pod, job, gpu-model, pricing, provider, service, resource, region, account, sku, charge or tag:KEY")
	return cmd
}

// costByPolicy is report cost under --policy requested or weighted: the bill split by the
// allocator, with the idle capacity of each line in one group.
func (e *env) costByPolicy(ctx context.Context, f *costFlags, d fleet.Dimension) error {
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.Close()
	t := fleet.NewTally(d, s.Period)
	if err := s.Each(ctx, t.Add); err != nil {
		return err
	}
	return e.print(present.SplitCosts(d, s.Split, t.Figures(), f.policy))
}

// parseBy reads a --by dimension of the reports over bills.
func parseBy(by string) (fleet.Dimension, error) {
	d, err := fleet.ParseDimension(by)
	if err != nil {
		return d, gpucost.Errorf(gpucost.EInvalid, "--by: %w", err)
	}
	return d, nil
}
