package main

import (
	"cmp"
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// commitFlags are plan commit's flags.
type commitFlags struct {
	in                plan.CommitInput
	usage, price      string
	fromStore         bool
	window            period // with --from-store
	backtest          bool
	lookback, horizon string
	rule, layers      string
	gcpCUD            string
}

func newPlanCommitCmd(e *env) *cobra.Command {
	var c commitFlags
	cmd := &cobra.Command{
		Use:   "commit",
		Short: "The hindsight-optimal commitment (reserved instances, savings plans, CUDs) for hourly usage",
		Long: `commit finds the hourly commitment that would have cost least over a usage history: with
discount d, the d-quantile of hourly on-demand-equivalent usage (docs/architecture.md: the usage exceeded in
a fraction 1−d of hours). It gives the commitment's utilisation and coverage, the saving against
all on-demand, what is paid upfront and monthly, and the break-even month. --backtest buys on a
trailing --lookback and scores each following --period against the hindsight optimum; --layer
mixes several instruments, the deepest discount filled first.

Usage comes from --usage FILE.csv (a "usage" column of units per hour, one row per hour, priced
at --price per unit-hour; without --price the units are on-demand dollars) or --from-store: the
store's GPU telemetry, each GPU-hour priced at the catalog's on-demand list price for its model.`,
		Example: `  gpucost plan commit --usage hourly.csv --price 3.06 --discount 0.4 --term 1y
  gpucost plan commit --from-store --since 30d --discount 0.4 --payment all
  gpucost plan commit --from-store --discount 0.4 --backtest --lookback 14d --period 1d --rule auto
  gpucost plan commit --from-store --layer "3y=0.57:200,1y=0.4"
  gpucost plan commit roi --on-demand 3.06 --reserved-1y 1.82 --reserved-3y 1.31 --instances 8`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) { return e.planCommit(cmd.Context(), &c) }),
	}
	f := cmd.Flags()
	f.StringVar(&c.usage, "usage", "", "CSV of hourly usage: a usage column, one row per hour")
	f.StringVar(&c.price, "price", "1", "on-demand $ per unit-hour of --usage")
	f.BoolVar(&c.fromStore, "from-store", false, "use the store's GPU telemetry as usage, priced at catalog on-demand prices")
	c.window.register(cmd, "30d")
	f.Float64Var(&c.in.Discount, "discount", 0, "the commitment's discount off on-demand, such as 0.4")
	f.StringVar(&c.gcpCUD, "gcp-cud", "", "take the discount from GCP's committed-use price of MACHINE_TYPE/REGION for --term (a3-highgpu-8g/us-central1)")
	f.StringVar((*string)(&c.in.Term), "term", "1y", "1y or 3y")
	f.StringVar((*string)(&c.in.Payment), "payment", "none", "upfront payment: all, partial or none")
	f.BoolVar(&c.backtest, "backtest", false, "buy on a trailing lookback, score the following period")
	f.StringVar(&c.lookback, "lookback", "28d", "with --backtest: the history each purchase is chosen from")
	f.StringVar(&c.horizon, "period", "7d", "with --backtest: how long each purchase is scored")
	f.StringVar(&c.rule, "rule", "auto", "with --backtest: how purchases are chosen: auto (whichever of the others would have saved most on the lookback), trailing (the whole lookback's quantile), recent (the lookback's last period's), level (the last period rescaled to its latest level) or weighted (recent hours count more)")
	f.StringVar(&c.layers, "layer", "", `instruments to layer, deepest discount first filled: "3y=0.57:8,1y=0.4,sp=0.28" (name=discount[:max units])`)
	cmd.AddCommand(newPlanROICmd(e))
	return cmd
}

// planCommit reads the usage and runs the commitment, back-test or layering the flags ask for.
func (e *env) planCommit(ctx context.Context, c *commitFlags) (result, error) {
	if (c.usage == "") == !c.fromStore {
		return result{}, gpucost.Errorf(gpucost.EInvalid, "give the usage: --usage FILE.csv or --from-store")
	}
	if err := c.checkFlags(e); err != nil {
		return result{}, err
	}
	in := c.in
	if err := e.applyGCPCUD(ctx, c.gcpCUD, &in); err != nil {
		return result{}, err
	}
	var err error
	if in.OnDemand, err = flagValue("price", c.price, plan.ParseDollars); err != nil {
		return result{}, err
	}
	if c.usage != "" {
		in.Usage, err = planfile.ReadUsage(c.usage)
	} else {
		in.Usage, err = e.storeUsage(ctx, c.window)
		in.OnDemand = gpucost.USD(1e9)
	}
	switch {
	case err != nil:
		return result{}, err
	case c.layers != "":
		ins, err := flagValue("layer", c.layers, plan.ParseInstruments)
		if err != nil {
			return result{}, err
		}
		res, err := plan.Layer(plan.LayerInput{Usage: in.Usage, OnDemand: in.OnDemand, Instruments: ins})
		if gpucost.ErrorCode(err) == gpucost.EInvalid {
			err = gpucost.Errorf(gpucost.EInvalid, "--layer %q: %w", c.layers, err)
		}
		return shown(present.Layers)(res, err)
	case c.backtest:
		lb, err := parseAgo("lookback", c.lookback)
		if err != nil {
			return result{}, err
		}
		p, err := parseAgo("period", c.horizon)
		if err != nil {
			return result{}, err
		}
		res, err := plan.Backtest(plan.BacktestInput{Usage: in.Usage, OnDemand: in.OnDemand, Discount: in.Discount,
			Lookback: int(lb.Hours()), Period: int(p.Hours()), Rule: plan.BuyRule(c.rule)})
		if err != nil {
			return result{}, err
		}
		return present.Backtest(res, lb, p, in.Discount), nil
	}
	return shown(present.Commit)(plan.Commit(in))
}

// storeUsage returns the on-demand dollars of GPU time per hour over the period
// (query.Report.UsageByHour).
func (e *env) storeUsage(ctx context.Context, window period) ([]float64, error) {
	f := reportFlags{period: window, provider: "aws"}
	rc, err := f.open(ctx, e)
	if err != nil {
		return nil, err
	}
	defer rc.close()
	u, err := rc.UsageByHour(ctx)
	return u.Dollars, err
}

func newPlanROICmd(e *env) *cobra.Command {
	var (
		onDemand, r1, r3 string
		in               plan.ROIInput
	)
	cmd := &cobra.Command{
		Use:     "roi",
		Short:   "Reserved-instance ROI: on-demand against 1-year and 3-year reservations",
		Example: `  gpucost plan commit roi --on-demand 3.06 --reserved-1y 1.82 --reserved-3y 1.31 --instances 8`,
		Args:    usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if err := cmp.Or(intAtLeast("instances", in.Instances, 1), hoursPerMonth(in.HoursPerMonth), parseFlag(&in.OnDemand, "on-demand", onDemand, plan.ParseDollars), parseFlag(&in.Reserved1y, "reserved-1y", r1, plan.ParseDollars),
				parseFlag(&in.Reserved3y, "reserved-3y", r3, plan.ParseDollars)); err != nil {
				return result{}, err
			}
			return shown(present.ROI)(plan.ROI(in))
		}),
	}
	cmd.Flags().StringVar(&onDemand, "on-demand", "", "on-demand $/h per instance")
	cmd.Flags().StringVar(&r1, "reserved-1y", "", "1-year reserved $/h per instance")
	cmd.Flags().StringVar(&r3, "reserved-3y", "", "3-year reserved $/h per instance")
	cmd.Flags().IntVar(&in.Instances, "instances", 1, "instances")
	cmd.Flags().IntVar(&in.HoursPerMonth, "hours", plan.HoursPerMonth, "hours a month")
	return cmd
}

// applyGCPCUD sets in.Discount from the catalog's GCP committed-use price of spec, a machine
// type and region ("a3-highgpu-8g/us-central1"), for in.Term (catalog.Commitment). It says on
// stderr which prices it used. An empty spec changes nothing; with --discount too it is an error.
func (e *env) applyGCPCUD(ctx context.Context, spec string, in *plan.CommitInput) error {
	if spec == "" {
		return nil
	}
	if in.Discount != 0 {
		return gpucost.Errorf(gpucost.EInvalid, "--gcp-cud and --discount both give the discount: keep one")
	}
	machine, region, err := catalog.ParseMachineRegion(spec)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--gcp-cud %w", err)
	}
	c, err := e.loadCatalog(ctx)
	if err != nil {
		return err
	}
	commit, err := c.Commitment(machine, region, cmp.Or(string(in.Term), string(plan.Term1Year)))
	if err != nil {
		return err
	}
	in.Discount = commit.Discount()
	fmt.Fprintf(e.stderr, "gpucost: GCP %s committed-use price of %s in %s: %s/h against %s/h on-demand (%s): discount %.1f%%\n",
		commit.Term, machine, region, commit.Price.Fixed(4), commit.OnDemand.Fixed(4), c.CommittedSource(), 100*in.Discount)
	return nil
}
