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
		Short: "Ranked changes with their monthly saving, evidence, confidence and risk",
		Long: `recommend reads the period's bill and GPU telemetry and proposes changes, largest monthly
saving first: stop or schedule idle GPUs, right-size (fewer GPUs, fewer serving replicas, release
machines held after their job), share GPUs on MIG slices, move interruptible work to spot net of
checkpoint overhead and interruptions, and commit to the steady baseline. Each comes with the
exact action, the evidence (metrics, period, resources), a confidence and the risk. Each saving
here stands alone; gpucost report savings applies them in sequence, so the plan's total never
counts a dollar twice.

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
				recs, err := recommend.Recommend(v, p, o)
				if err != nil {
					return err
				}
				if sv == nil {
					return e.print(present.Recommendations(recs))
				}
				sec, err := sv.Section(v, p, o)
				if err != nil {
					return err
				}
				return present.WriteRecommendServing(e.stdout, e.stderr, e.output, recs, sec)
			})
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&serving, "serving", "", "YAML file of serving pools to size by their request counts too (see above)")
	return cmd
}

// recommendFlags are the flags of the commands that run the recommender.
type recommendFlags struct {
	costFlags
	minSaving      string
	otherProviders bool
	moveDataGB     float64
}

func (f *recommendFlags) register(cmd *cobra.Command) {
	f.costFlags.register(cmd)
	cmd.Flags().StringVar(&f.minSaving, "min-saving", "100", "leave out changes saving less than this a month, in dollars")
	cmd.Flags().BoolVar(&f.otherProviders, "other-providers", false, "let movable work move to another provider, not only another region")
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
	return fn(v, prices, opts)
}

// savings applies the recommendations in sequence and reports the saving by lever.
func (e *env) savings(ctx context.Context, rf *recommendFlags) (rep recommend.SavingsReport, err error) {
	err = e.withFleet(ctx, rf, func(v recommend.FleetView, p recommend.Prices, o recommend.Options) error {
		plan, err := recommend.Plan(v, p, o)
		rep = recommend.Savings(plan)
		return err
	})
	return rep, err
}

func newReportSavingsCmd(e *env) *cobra.Command {
	var f recommendFlags
	cmd := &cobra.Command{
		Use:   "savings",
		Short: "Monthly cost before and after the recommendations, by lever",
		Long: `savings applies the recommendations in sequence — idle schedules, right-sizing, sharing,
spot, commitments — each computed on the fleet as the ones before changed it, and reports the
monthly cost before and after by lever with the recommendations behind each.`,
		Example: `  gpucost report savings --since 30d`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := e.savings(cmd.Context(), &f)
			if err != nil {
				return err
			}
			return e.print(present.Savings(rep))
		},
	}
	f.register(cmd)
	return cmd
}
