package main

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/spf13/cobra"
)

func newReportAlertsCmd(e *env) *cobra.Command {
	var (
		f     reportFlags
		state string
	)
	cmd := &cobra.Command{
		Use:   "alerts",
		Short: "GPU alert episodes: underutilised, at capacity, OOM risk, hot, power, low SM occupancy",
		Long: `alerts evaluates the monitoring rules of gpucost over the minute rollups of the period, with
Prometheus-like "for" durations: a condition fires once it has held every minute for the
rule's duration, and resolves at the first minute it does not hold or data is missing.

` + rulesHelp(),
		Example: `  gpucost report alerts --since 24h
  gpucost report alerts --since 7d --state firing --output json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if state != "all" && state != string(analyze.Firing) && state != string(analyze.Resolved) {
				return usageError{fmt.Errorf("--state %q: use all, firing or resolved", state)}
			}
			ctx := cmd.Context()
			rc, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer rc.close()
			ev, err := analyze.EvaluateAlerts(analyze.DefaultRules(), rc.opts.To, tdp)
			if err != nil {
				return err
			}
			if err := rc.scan(ctx, time.Minute, ev.Add); err != nil {
				return err
			}
			return e.print(alertsResult(ev.Result(), state))
		},
	}
	f.register(cmd, "24h")
	cmd.Flags().StringVar(&state, "state", "all", "show all, firing or resolved alerts")
	return cmd
}

// tdp returns a model's board power from the catalog's datasheets.
func tdp(model string) (float64, bool) {
	spec, ok := catalog.Spec(model)
	return spec.TDPW, ok && spec.TDPW > 0
}

func rulesHelp() string {
	s := "Rules:\n"
	for _, r := range analyze.DefaultRules() {
		s += fmt.Sprintf("  %-18s %-8s %s for %s: %s\n", r.Name, r.Severity, r.Expr(), r.For, r.Summary)
	}
	return s
}

func alertsResult(rep analyze.AlertReport, state string) result {
	r := result{
		Title:   fmt.Sprintf("Alerts over %d minute rollups of %d series", rep.Minutes, rep.Series),
		Columns: []string{"State", "Severity", "Rule", "GPU", "Host", "Labels", "Start", "End", "Duration", "Worst", "Evidence"},
		JSON:    rep,
	}
	shown := 0
	for _, a := range rep.Alerts {
		if state != "all" && string(a.State) != state {
			continue
		}
		shown++
		r.Rows = append(r.Rows, []string{string(a.State), string(a.Rule.Severity), a.Rule.Name, a.Series.GPU.UUID,
			a.Series.GPU.Host, a.Series.Labels.String(), a.Start.Format("2006-01-02 15:04"), a.End.Format("2006-01-02 15:04"),
			a.Duration.String(), fmt.Sprintf("%.1f", a.Worst), a.Evidence})
	}
	if shown == 0 {
		r.Notes = append(r.Notes, "No alerts.")
	}
	if rep.Minutes == 0 {
		r.Notes = append(r.Notes, "No minute rollups in the period: minute rollups are kept for 14 days.")
	}
	if len(rep.NoTDP) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Power rule not evaluated for models without a known TDP: %v", rep.NoTDP))
	}
	return r
}
