package main

import (
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newReportAnomaliesCmd(e *env) *cobra.Command {
	var (
		f        costFlags
		by       string
		opts     analyze.AnomalyOptions
		minDelta string
	)
	cmd := &cobra.Command{
		Use:   "anomalies",
		Short: "Days whose cost broke from a scope's trailing baseline, with the resources and SKUs that drove them",
		Long: `anomalies judges each day of the period per scope (--by team, service, namespace, …):
a day is anomalous when its cost is above the median of the trailing --window days plus --k
times their median absolute deviation (scaled to a standard deviation), or above the
--quantile of that window, and at least --min-delta above the baseline. Weekly seasonality is
learnt on top (--weekly): a day so flagged is reported only if the same rules also flag it
against the same weekday of the week before and against the same weekday of the last --weekly
weeks the report reads, so a weekly job (every Monday's evaluation run) is flagged the first
Monday it runs, not each Monday after, while a spike on a Tuesday that no Tuesday saw still
is. --same-weekday instead makes the same weekday of the last 8 weeks the only baseline. Each
anomaly names the resources and SKUs whose cost grew most that day. Costs are report cost's: each GPU-hour at
its price, idle on the row of the group that held the GPU; currencies are judged apart.`,
		Example: `  gpucost report anomalies --by team --since 30d
  gpucost report anomalies --by service --window 28 --k 4 --min-delta 100`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := parseBy(by)
			if err != nil {
				return err
			}
			if err := checkAnomalyFlags(opts); err != nil {
				return err
			}
			if opts.MinDelta, err = gpucost.ParseMoney(minDelta, ""); err != nil || opts.MinDelta.Nanos < 0 {
				return gpucost.Errorf(gpucost.EInvalid, "--min-delta %q: give an amount of 0 or more, such as 10 or 2.50", minDelta)
			}
			f.lookback = time.Duration(opts.Window) * 24 * time.Hour
			s, err := f.snapshot(cmd.Context(), e)
			if err != nil {
				return err
			}
			rep, judged := s.Anomalies(d, opts)
			return e.print(present.Anomalies(by, rep, judged))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&by, "by", "team", "scope: team, project, namespace, service, resource, gpu-model, … as report cost")
	cmd.Flags().IntVar(&opts.Window, "window", 14, "trailing baseline, days")
	cmd.Flags().IntVar(&opts.MinDays, "min-days", 7, "fewest baseline days before a day is judged")
	cmd.Flags().Float64Var(&opts.K, "k", 3, "threshold: median + k × MAD (as a standard deviation)")
	cmd.Flags().Float64Var(&opts.Quantile, "quantile", 0.95, "second rule: above this quantile of the window")
	cmd.Flags().StringVar(&minDelta, "min-delta", "10", "ignore days less than this far above the baseline (in the bill's currency)")
	cmd.Flags().BoolVar(&opts.SameWeekday, "same-weekday", false, "compare each day with the same weekday of the last 8 weeks, so weekly jobs are not anomalies")
	cmd.Flags().IntVar(&opts.Weekly, "weekly", analyze.DefaultAnomalyWeekly, "weeks of the same weekday a flagged day is checked against, so a weekly job flags once; -1: no weekly check")
	return cmd
}

// checkAnomalyFlags refuses the baselines and thresholds report anomalies cannot judge by.
func checkAnomalyFlags(o analyze.AnomalyOptions) error {
	if o.Weekly == 0 || o.Weekly < -1 {
		return flagRangeError("weekly", o.Weekly, "1 or more weeks, or -1 for no weekly check")
	}
	return firstError(intAtLeast("window", o.Window, 1), intAtLeast("min-days", o.MinDays, 0),
		floatAbove("k", o.K, 0), floatIn("quantile", o.Quantile, 0, 1))
}
