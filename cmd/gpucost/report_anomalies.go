package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
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
--quantile of that window, and at least --min-delta above the baseline. Each anomaly names the
resources and SKUs whose cost grew most that day. Costs are report cost's: each GPU-hour at
its price, idle on the row of the group that held the GPU; currencies are judged apart.`,
		Example: `  gpucost report anomalies --by team --since 30d
  gpucost report anomalies --by service --window 28 --k 4 --min-delta 100`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := fleet.ParseDimension(by)
			if err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--by: %w", err)
			}
			if opts.MinDelta, err = gpucost.ParseMoney(minDelta, ""); err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--min-delta %q: use an amount such as 10 or 2.50", minDelta)
			}
			f.lookback = time.Duration(opts.Window) * 24 * time.Hour
			s, err := f.snapshot(cmd.Context(), e)
			if err != nil {
				return err
			}
			opts.From, opts.To = s.Period.Start.Add(f.lookback).Truncate(24*time.Hour), s.Period.End
			det := analyze.NewDetector(opts)
			for i := range s.Charges {
				c := &s.Charges[i]
				det.Add(analyze.CostPoint{Day: c.Start.UTC().Truncate(24 * time.Hour), Scope: d.Key(c), ResourceID: c.Resource(),
					SkuID: c.SKU(), Cost: c.Cost})
			}
			return e.print(anomalyResult(by, det.Result(), opts))
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
	return cmd
}

func anomalyResult(by string, rep analyze.AnomalyReport, opts analyze.AnomalyOptions) result {
	r := result{
		Title:   fmt.Sprintf("Cost anomalies by %s, %s – %s", by, opts.From.Format(time.DateOnly), opts.To.Format(time.DateOnly)),
		Columns: []string{"Day", "Scope", "Currency", "Cost", "Baseline", "Excess", "Score", "Rules", "Drivers"},
		Right:   []int{3, 4, 5, 6},
		JSON:    rep,
	}
	for _, a := range rep.Anomalies {
		var drivers []string
		for _, d := range a.Drivers {
			drivers = append(drivers, fmt.Sprintf("%s %s +%s", d.ResourceID, d.SkuID, d.Delta.Fixed(2)))
		}
		r.Rows = append(r.Rows, []string{a.Day.Format(time.DateOnly), a.Scope, a.Currency, a.Cost.Fixed(2), a.Baseline.Fixed(2),
			a.Excess.Fixed(2), fmt.Sprintf("%.1f", a.Score), strings.Join(a.Rules, "+"), strings.Join(drivers, "; ")})
	}
	baseline := fmt.Sprintf("the trailing %d days", opts.Window)
	if opts.SameWeekday {
		baseline = "the same weekday of the last 8 weeks"
	}
	r.Notes = append(r.Notes, fmt.Sprintf("%d anomalies in %d scopes over %d days; baseline: median of %s, threshold median + %.1f·MAD or the %.0fth percentile.",
		len(rep.Anomalies), rep.Scopes, rep.Days, baseline, opts.K, opts.Quantile*100))
	return r
}
