package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/spf13/cobra"
)

// commitFlags are plan commit's flags.
type commitFlags struct {
	in                plan.CommitInput
	usage, price      string
	fromStore         bool
	since             string
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
		RunE: func(cmd *cobra.Command, args []string) error { return e.planCommit(cmd.Context(), &c) },
	}
	f := cmd.Flags()
	f.StringVar(&c.usage, "usage", "", "CSV of hourly usage: a usage column, one row per hour")
	f.StringVar(&c.price, "price", "1", "on-demand $ per unit-hour of --usage")
	f.BoolVar(&c.fromStore, "from-store", false, "use the store's GPU telemetry as usage, priced at catalog on-demand prices")
	f.StringVar(&c.since, "since", "30d", "with --from-store: how far back")
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
func (e *env) planCommit(ctx context.Context, c *commitFlags) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	if (c.usage == "") == !c.fromStore {
		return gpucost.Errorf(gpucost.EInvalid, "give the usage: --usage FILE.csv or --from-store")
	}
	in := c.in
	if err := e.applyGCPCUD(ctx, c.gcpCUD, &in); err != nil {
		return err
	}
	var err error
	if in.OnDemand, err = flagValue("price", c.price, plan.ParseDollars); err != nil {
		return err
	}
	if c.usage != "" {
		in.Usage, err = planfile.ReadUsage(c.usage)
	} else {
		in.Usage, err = e.storeUsage(ctx, c.since)
		in.OnDemand = gpucost.USD(1e9)
	}
	switch {
	case err != nil:
		return err
	case c.layers != "":
		return e.layer(in, c.layers)
	case c.backtest:
		lb, err := parseAgo("lookback", c.lookback)
		if err != nil {
			return err
		}
		p, err := parseAgo("period", c.horizon)
		if err != nil {
			return err
		}
		return e.backtest(in, lb, p, plan.BuyRule(c.rule))
	}
	res, err := plan.Commit(in)
	if err != nil {
		return err
	}
	return e.print(commitResult(res))
}

// storeUsage returns the on-demand dollars of GPU time per hour over the period: every GPU-hour
// of telemetry at its model's catalog price.
func (e *env) storeUsage(ctx context.Context, since string) ([]float64, error) {
	f := reportFlags{period: period{since: since}, provider: "aws"}
	rc, err := f.open(ctx, e)
	if err != nil {
		return nil, err
	}
	defer rc.close()
	price := rc.pricer(f.provider)
	u := plan.NewUsageByHour(rc.opts.From, rc.opts.To)
	err = rc.scan(ctx, time.Hour, func(r *gpucost.Rollup) {
		if p, ok := price(r.Series); ok {
			u.Add(r, p)
		}
	})
	return u.Dollars, err
}

func (e *env) backtest(in plan.CommitInput, lookback, horizon time.Duration, rule plan.BuyRule) error {
	res, err := plan.Backtest(plan.BacktestInput{Usage: in.Usage, OnDemand: in.OnDemand, Discount: in.Discount,
		Lookback: int(lookback.Hours()), Period: int(horizon.Hours()), Rule: rule})
	if err != nil {
		return err
	}
	r := result{
		Title:   fmt.Sprintf("Back-test: buy on the last %s, score the next %s, discount %.0f%%", lookback, horizon, 100*in.Discount),
		Columns: []string{"From hour", "Bought", "Optimal", "Saving", "Optimal saving", "Captured", "Utilisation"},
		Right:   []int{0, 1, 2, 3, 4, 5, 6},
		JSON:    res,
	}
	for _, w := range res.Windows {
		r.Rows = append(r.Rows, []string{fmt.Sprint(w.Start), fmt.Sprintf("%.2f", w.Commitment), fmt.Sprintf("%.2f", w.Optimal),
			w.Saving.Fixed(2), w.OptimalSaving.Fixed(2), fmt.Sprintf("%.1f%%", 100*w.Captured), fmt.Sprintf("%.1f%%", 100*w.Utilisation)})
	}
	r.Notes = append(r.Notes, fmt.Sprintf("Over %d scored hours: saved %s of a hindsight-optimal %s (%.1f%%; worst window %.1f%%).",
		res.ScoredHours, res.Saving.Dollars(), res.OptimalSaving.Dollars(), 100*res.Captured, 100*res.WorstCaptured))
	return e.print(r)
}

// layer prints the cost-minimising mix of several commitment instruments.
func (e *env) layer(in plan.CommitInput, spec string) error {
	ins, err := flagValue("layer", spec, plan.ParseInstruments)
	if err != nil {
		return err
	}
	res, err := plan.Layer(plan.LayerInput{Usage: in.Usage, OnDemand: in.OnDemand, Instruments: ins})
	if err != nil {
		return err
	}
	r := result{
		Title: fmt.Sprintf("Layered commitments over %d hours: %s instead of %s on-demand (%s saved, %.1f%%)",
			res.Hours, res.PlanCost.Dollars(), res.OnDemandCost.Dollars(), res.Saving.Dollars(), res.SavingPercent),
		Columns: []string{"Instrument", "Discount", "From units", "Units", "Cost", "Utilisation"},
		Right:   []int{1, 2, 3, 4, 5},
		JSON:    res,
	}
	for _, l := range res.Layers {
		r.Rows = append(r.Rows, []string{l.Name, fmt.Sprintf("%.0f%%", 100*l.Discount), fmt.Sprintf("%.2f", l.From),
			fmt.Sprintf("%.2f", l.Units), l.Cost.Dollars(), fmt.Sprintf("%.1f%%", 100*l.Utilisation)})
	}
	r.Notes = append(r.Notes, fmt.Sprintf("On-demand above the layers: %s. The best single instrument, %s, would cost %s: the mix saves %s more.",
		res.OverflowCost.Dollars(), res.BestSingle, res.BestSingleCost.Dollars(), res.SavingVsBestOnly.Dollars()))
	return e.print(r)
}

func commitResult(c plan.CommitResult) result {
	r := result{
		Title:   fmt.Sprintf("Commitment for %d hours of usage at %.0f%% off, %s term, %s upfront", c.Hours, 100*c.Discount, c.Term, c.Payment),
		Columns: []string{"Figure", "Value"},
		Right:   []int{1},
		JSON:    c,
	}
	add := func(k, v string) { r.Rows = append(r.Rows, []string{k, v}) }
	add("Commit per hour (units)", fmt.Sprintf("%.2f", c.Commitment))
	add("Commitment's on-demand value per hour", c.CommitmentOnDemand.Dollars())
	add("Commitment cost per hour", c.CommitmentCost.Dollars())
	add("Utilisation of the commitment", fmt.Sprintf("%.1f%%", 100*c.Utilisation))
	add("Usage covered", fmt.Sprintf("%.1f%%", 100*c.Coverage))
	add("All on-demand", c.OnDemandCost.Dollars())
	add("With the commitment", c.PlanCost.Dollars())
	add("Saving", fmt.Sprintf("%s (%.1f%%)", c.Saving.Dollars(), c.SavingPercent))
	add("Saving per month", c.MonthlySaving.Dollars())
	add("Upfront / monthly fee", c.Upfront.Dollars()+" / "+c.MonthlyFee.Dollars())
	if c.BreakEvenMonth > 0 {
		add("Break-even month", fmt.Sprint(c.BreakEvenMonth))
	}
	if c.Note != "" {
		r.Notes = append(r.Notes, c.Note)
	}
	return r
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			var err error
			for _, p := range []struct {
				flag, v string
				dst     *gpucost.Money
			}{{"on-demand", onDemand, &in.OnDemand}, {"reserved-1y", r1, &in.Reserved1y}, {"reserved-3y", r3, &in.Reserved3y}} {
				if *p.dst, err = flagValue(p.flag, p.v, plan.ParseDollars); err != nil {
					return err
				}
			}
			res, err := plan.ROI(in)
			if err != nil {
				return err
			}
			r := result{
				Title:   fmt.Sprintf("%d instances × %d h a month", res.Instances, res.HoursPerMonth),
				Columns: []string{"Option", "$/h", "Monthly", "Yearly", "Monthly saving", "Yearly saving", "Term saving", "Saving"},
				Right:   []int{1, 2, 3, 4, 5, 6, 7},
				JSON:    res,
			}
			for _, row := range res.Rows {
				r.Rows = append(r.Rows, []string{row.Option, row.Hourly.Dollars(), row.Monthly.Dollars(), row.Yearly.Dollars(),
					row.MonthlySaving.Dollars(), row.YearlySaving.Dollars(), row.TermSaving.Dollars(), fmt.Sprintf("%.1f%%", row.SavingPercent)})
			}
			return e.print(r)
		},
	}
	cmd.Flags().StringVar(&onDemand, "on-demand", "", "on-demand $/h per instance")
	cmd.Flags().StringVar(&r1, "reserved-1y", "", "1-year reserved $/h per instance")
	cmd.Flags().StringVar(&r3, "reserved-3y", "", "3-year reserved $/h per instance")
	cmd.Flags().IntVar(&in.Instances, "instances", 1, "instances")
	cmd.Flags().IntVar(&in.HoursPerMonth, "hours", plan.HoursPerMonth, "hours a month")
	return cmd
}
