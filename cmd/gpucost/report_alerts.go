package main

import (
	"fmt"
	"os"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newReportAlertsCmd(e *env) *cobra.Command {
	var (
		f      reportFlags
		state  string
		rules  alertRulesFlags // --rules, --alert-on-no-data
		export string          // --export prometheus-rules
		out    string          // --out, with --export
	)
	cmd := &cobra.Command{
		Use:   "alerts",
		Short: "GPU alert episodes: underutilised, at capacity, OOM risk, hot, power, low SM occupancy",
		Long: `alerts evaluates the monitoring rules of gpucost over the minute rollups of the period, with
Prometheus-like "for" durations: a condition fires once it has held every minute for the
rule's duration, and resolves at the first minute it does not hold. Missing data never
resolves an alert: a firing alert whose GPU stops reporting keeps firing for the rule's
duration (at least 5 minutes), then goes "no data", so a dead agent does not read as all clear.
With --alert-on-no-data, gpu_underutilized (whose utilisation every collector reports) also
raises a "no data" alert on any GPU silent for longer than 30 minutes, firing or not.

--rules FILE changes the rules below (threshold, for, severity, min_util, alert_on_no_data,
disabled: true), adds rules over their metrics, and sets spot_interruptions (the interruption
rate report spot and serve --jobs-store evaluate: 25% in 6 h by default); the same file goes
to --export and gpucost serve (docs/architecture.md "Alert rules file").

` + present.AlertRules(analyze.DefaultRules()),
		Example: `  gpucost report alerts --since 24h
  gpucost report alerts --since 7d --state firing --output json
  gpucost report alerts --rules examples/alerts/rules.yaml --alert-on-no-data
  gpucost report alerts --export prometheus-rules --out gpucost-rules.yaml   # promtool check rules gpucost-rules.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			state, err := analyze.ParseAlertState(state)
			if err != nil {
				return usageError{fmt.Errorf("--state %w", err)}
			}
			alertRules, err := rules.rules()
			if err != nil {
				return err
			}
			if export != "" {
				return e.exportAlertRules(export, out, alertRules)
			}
			if out != "" {
				return usageError{fmt.Errorf("--out goes with --export prometheus-rules")}
			}
			ctx := cmd.Context()
			rc, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer rc.close()
			rc.AlertRules = alertRules
			rep, err := rc.Alerts(ctx, nil)
			if err != nil {
				return err
			}
			return e.print(present.Alerts(rep, state))
		},
	}
	f.register(cmd, "24h")
	cmd.Flags().StringVar(&state, "state", "all", "show all, firing, no-data or resolved alerts")
	rules.add(cmd, true)
	cmd.Flags().StringVar(&export, "export", "", "prometheus-rules: write the rules as Prometheus alerting rules over dcgm-exporter's series instead of evaluating them (no store is read)")
	cmd.Flags().StringVar(&out, "out", "", "with --export, the file to write (default: standard output)")
	return cmd
}

// exportAlertRules writes rules (the default rules where nil) as Prometheus alerting rules to
// out, or to standard output (present.PrometheusRules; docs/deploy.md).
func (e *env) exportAlertRules(format, out string, rules []analyze.Rule) error {
	if format != "prometheus-rules" {
		return usageError{fmt.Errorf("--export %q: use prometheus-rules", format)}
	}
	if rules == nil {
		rules = analyze.DefaultRules()
	}
	b, err := present.PrometheusRules(rules, catalog.Specs())
	if err != nil {
		return err
	}
	if out == "" {
		_, err = e.stdout.Write(b)
		return err
	}
	if err := os.WriteFile(out, b, 0o644); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--out %s: %w", out, err)
	}
	return nil
}
