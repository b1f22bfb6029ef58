package main

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
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
resources and SKUs whose cost grew most that day. Costs are EffectiveCost, split by use as
report cost splits them; currencies are judged apart.`,
		Example: `  gpucost report anomalies --by team --since 30d
  gpucost report anomalies --by service --window 28 --k 4 --min-delta 100`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, err := costKey(by)
			if err != nil {
				return err
			}
			if opts.MinDelta, err = gpucost.ParseMoney(minDelta, ""); err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "--min-delta %q: use an amount such as 10 or 2.50", minDelta)
			}
			f.lookback = time.Duration(opts.Window) * 24 * time.Hour
			ctx := cmd.Context()
			s, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer s.Close()
			opts.From, opts.To = s.from.Add(f.lookback).Truncate(24*time.Hour), s.to
			d := analyze.NewDetector(opts)
			err = s.each(ctx, func(a *gpucost.Allocation, gpu catalog.LineGPU, _ bool) {
				d.Add(analyze.CostPoint{Day: a.Start.UTC().Truncate(24 * time.Hour), Scope: groupName(by, key(a, gpu), a), ResourceID: a.ResourceID,
					SkuID: cmp.Or(a.Line.SkuID, a.Line.ChargeDescription), Cost: a.EffectiveCost})
			})
			if err != nil {
				return err
			}
			return e.print(anomalyResult(by, d.Result(), opts))
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
