package main

import (
	"context"

	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/recommend"
	"github.com/spf13/cobra"
)

func newRecommendCmd(e *env) *cobra.Command {
	var (
		f       recommendFlags
		serving string
	)
	cmd := &cobra.Command{
		Use:   "recommend",
		Short: "One plan of changes per group of machines, with saving, evidence, confidence, risk and what each needs",
		Long: `recommend reads the period's bill and GPU telemetry and returns one plan: for each group of
machines (one workload: provider, region, instance type, owner, namespace and kind), one path
of compatible steps in the order they apply — right-size (fewer GPUs, fewer serving replicas,
release machines held after their job), then a cheaper GPU type or region, MIG sharing, an
idle schedule or autoscaling, spot with its checkpoint interval, and last a 1-year commitment
sized on what stays on-demand. Each step is priced on the group as the steps before it left it,
and carries the exact action, the evidence (metrics, period, resources), a confidence, the risk,
what it needs from people, and a stable ID (group/lever/target). Options that exclude a step
(a cheaper GPU type instead of fewer GPUs, a commitment instead of spot) are folded under it as
"instead of" lines with their own saving and why they were not chosen; they are never added.
The headline gives the monthly cost before and after and each lever's share; its total is
gpucost report savings'.

` + servingHelp,
		Example: `  gpucost recommend --since 30d
  gpucost recommend --min-saving 500 --output json
  gpucost recommend --serving serving.yaml`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			sv, err := e.loadServing(cmd.Context(), serving, &f.costFlags)
			if err != nil {
				return err
			}
			return e.withFleet(cmd.Context(), &f, func(v recommend.FleetView, p recommend.Prices, o recommend.Options) error {
				plan, err := recommend.NewPlan(v, p, o)
				if err != nil {
					return err
				}
				if sv == nil {
					return e.print(present.RecommendPlan(plan))
				}
				sec, err := sv.Section(v, p, o)
				if err != nil {
					return err
				}
				return present.WriteRecommendServing(e.stdout, e.stderr, e.output, plan, sec)
			})
		},
	}
	f.register(cmd)
	cmd.AddCommand(newRecommendApplyCmd(e), newRecommendAppliedCmd(e))
	cmd.Flags().StringVar(&serving, "serving", "", "YAML file of serving pools to size by their request counts too (see above)")
	return cmd
}

// recommendFlags are the flags of the commands that run the recommender.
type recommendFlags struct {
	costFlags
	minSaving      string
	otherProviders bool
	moveDataGB     float64
	spotEvents     string // the job events the spot lever measures pools' rates from
}

func (f *recommendFlags) register(cmd *cobra.Command) {
	f.costFlags.register(cmd)
	cmd.Flags().StringVar(&f.minSaving, "min-saving", "100", "leave out changes saving less than this a month, in dollars")
	cmd.Flags().BoolVar(&f.otherProviders, "other-providers", false, "let movable work move to another provider, not only another region")
	cmd.Flags().StringVar(&f.spotEvents, "events", "", "the store gpucost run wrote job events to: the spot lever uses each pool's measured rate (else its Spot Instance Advisor bucket) for its checkpoint interval")
	cmd.Flags().Float64Var(&f.moveDataGB, "move-data-gb", 1000, "data a moved workload carries once, in GB, priced at the source's egress rate; a move must repay it within 90 days")
}

// withFleet opens the store, builds the period's fleet for the recommender and calls fn with it.
func (e *env) withFleet(ctx context.Context, rf *recommendFlags, fn func(recommend.FleetView, recommend.Prices, recommend.Options) error) error {
	opts, err := recommend.NewOptions(rf.minSaving, rf.otherProviders, rf.moveDataGB)
	if err != nil {
		return err
	}
	s, err := rf.costFlags.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.Close()
	v, prices, err := s.Recommendable(ctx)
	if err != nil {
		return err
	}
	if opts.PoolRisk, err = e.recommendPoolRisk(ctx, rf.spotEvents, v); err != nil {
		return err
	}
	return fn(v, prices, opts)
}

// savings is the plan recommend prints, by lever: one computation, so the totals agree.
func (e *env) savings(ctx context.Context, rf *recommendFlags) (rep recommend.SavingsReport, err error) {
	err = e.withFleet(ctx, rf, func(v recommend.FleetView, p recommend.Prices, o recommend.Options) error {
		plan, err := recommend.NewPlan(v, p, o)
		rep = recommend.Savings(plan)
		return err
	})
	return rep, err
}

func newReportSavingsCmd(e *env) *cobra.Command {
	var (
		f        recommendFlags
		realized bool
	)
	cmd := &cobra.Command{
		Use:   "savings",
		Short: "Monthly cost before and after the recommended plan, by lever",
		Long: `savings gives gpucost recommend's plan by lever — right-sizing, region, sharing, idle
schedules, autoscaling, spot, commitments — each step priced on its group as the steps before
it left it, and reports the monthly cost before and after, each lever's share, and the steps
behind each. Its total is the plan's, to the cent.

--realized instead measures on the bill the steps recorded applied (gpucost recommend apply, or
found by gpucost recommend applied --detect): per step, the monthly saving the plan predicted
beside the one realized up to the period's end, with its 90% interval and the days measured.`,
		Example: `  gpucost report savings --since 30d
  gpucost report savings --realized`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if realized {
				rep, err := e.realized(cmd.Context(), &f)
				if err != nil {
					return err
				}
				return e.print(present.Realized(rep))
			}
			rep, err := e.savings(cmd.Context(), &f)
			if err != nil {
				return err
			}
			return e.print(present.Savings(rep))
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&realized, "realized", false, "the applied steps' savings measured on the bill, beside what the plan predicted")
	return cmd
}
