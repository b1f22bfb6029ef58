package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/budget/alert"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

type budgetCheckOpts struct {
	file, targets string
	dryRun        bool
	attempts      int
	backoff       time.Duration
}

func newBudgetCheckCmd(e *env) *cobra.Command {
	var o budgetCheckOpts
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Alert each budget's targets of the thresholds it crossed, once per threshold and period",
		Long: `check evaluates every budget in the file as budget status does and sends each target one
alert per budget of the thresholds crossed (actual spend, or the forecast "projected to
exceed") that notify it and were not notified before in the period: the spend, the forecast,
the percentages and what is left, as signed webhook JSON, a Slack message or an email. The
alert is named by the highest of them, whose severity it takes ("reached 121% (threshold
100%)", critical), and lists the others ("Also crossed: actual 80%, actual 50%"). It carries
that threshold's key, naming the budget, period and threshold
("budget:research:2026-11:actual:100"); every attempt is kept in the store's delivery log, and
a threshold whose key, or a higher one's of its kind, was delivered to a target is not sent to
it again (an alert that reports both kinds is logged under the highest of each), so check can
run hourly from cron and each threshold alerts once per period. A failed delivery is retried
with exponential backoff (--attempts, --backoff) and tried again on the next run.

It prints each alert and target with what happened: sent, already delivered, failed (with the
reason, secrets redacted) or, with --dry-run, would send; --dry-run sends and records nothing.
See the delivery log with gpucost budget deliveries.

A targets file (secrets come from the environment variables it names):

  targets:
    finops: {webhook: {url: https://hooks.example.com/gpucost, secret_env: FINOPS_HOOK_SECRET}}
    leads:  {slack: {url_env: LEADS_SLACK_URL}}
    cto:
      email: {to: [cto@example.com], from: gpucost@example.com, smtp: "smtp.example.com:587",
              username: gpucost, password_env: SMTP_PASSWORD}

Exit codes: 0 every alert was delivered (or already had been), 4 a target could not be
reached or refused after its retries, 2 the budgets or targets file or flags are invalid.`,
		Example: `  gpucost budget check --file budgets.yaml --targets targets.yaml
  gpucost budget check --file budgets.yaml --targets targets.yaml --dry-run
  0 * * * *  gpucost budget check -f /etc/gpucost/budgets.yaml --targets /etc/gpucost/targets.yaml`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error { return e.budgetCheck(cmd.Context(), o) },
	}
	cmd.Flags().StringVarP(&o.file, "file", "f", "", "budgets YAML file")
	cmd.Flags().StringVar(&o.targets, "targets", "", "notification targets YAML file (optional with --dry-run)")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print the alerts that would be sent; send and record nothing")
	cmd.Flags().IntVar(&o.attempts, "attempts", 5, "attempts per alert and target before it counts as failed")
	cmd.Flags().DurationVar(&o.backoff, "backoff", time.Second, "wait before the first retry; doubled each retry, with jitter")
	return cmd
}

// budgetCheck evaluates the budgets, sends the alerts of crossed thresholds and prints what
// happened; it returns exitError{exitUnavailable} when a delivery failed.
func (e *env) budgetCheck(ctx context.Context, o budgetCheckOpts) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	switch {
	case o.file == "":
		return usageError{fmt.Errorf("--file is required: the budgets YAML file")}
	case o.targets == "" && !o.dryRun:
		return usageError{fmt.Errorf("--targets is required: the notification targets YAML file (or give --dry-run)")}
	case o.attempts < 1:
		return usageError{fmt.Errorf("--attempts %d: give 1 or more", o.attempts)}
	case o.backoff < 0:
		return durNotNegative("backoff", o.backoff)
	}
	budgets, err := budget.ReadFile(o.file)
	if err != nil {
		return err
	}
	var targets map[string]notify.Target
	var warnings []string
	if o.targets != "" {
		if targets, warnings, err = notify.ReadTargetsFile(o.targets, e.getenv); err != nil {
			return err
		}
		if err := alert.CheckTargets(budgets, targets, o.targets); err != nil {
			return err
		}
	}
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, "gpucost: warning:", w)
	}
	sp, err := e.budgetSpend(ctx, budgets)
	if err != nil {
		return err
	}
	now := e.now()
	statuses := sp.Statuses(now)
	alerts := alert.Plan(budgets, statuses, now)
	if err := e.deliverAlerts(ctx, o, sp.noStore, targets, alerts); err != nil {
		return err
	}
	if err := e.print(present.BudgetAlerts(statuses, alerts, o.dryRun, sp.notes())); err != nil {
		return err
	}
	if n := alert.Count(alerts, alert.Failed); n > 0 {
		fmt.Fprintf(e.stderr, "gpucost: %d alert deliveries failed; they are retried on the next run (see gpucost budget deliveries)\n", n)
		return exitError{exitUnavailable}
	}
	return nil
}

// loadTargets reads a notification targets file (none without a path) and prints its
// warnings, such as a secret's variable that is not set.
func (e *env) loadTargets(path string) (map[string]notify.Target, error) {
	if path == "" {
		return nil, nil
	}
	targets, warnings, err := notify.ReadTargetsFile(path, e.getenv)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		fmt.Fprintln(e.stderr, "gpucost: warning:", w)
	}
	return targets, nil
}

// deliverAlerts settles each alert: already delivered per the store's log, would send (dry
// run), or sent and recorded in the log. A dry run without a store opens none.
func (e *env) deliverAlerts(ctx context.Context, o budgetCheckOpts, noStore bool, targets map[string]notify.Target, alerts []*alert.Outcome) error {
	if alert.Count(alerts, "") == 0 || (o.dryRun && noStore) {
		alert.MarkPending(alerts, alert.WouldSend)
		return nil
	}
	return e.withStore(ctx, func(db storeDB) error {
		s := alert.Sender{Log: db, Targets: targets, MaxAttempts: o.attempts, Backoff: o.backoff, DryRun: o.dryRun}
		return s.Deliver(ctx, alerts)
	})
}

func newBudgetDeliveriesCmd(e *env) *cobra.Command {
	var (
		since, budgetName, target string
		limit                     int
	)
	cmd := &cobra.Command{
		Use:   "deliveries",
		Short: "The alert delivery log: every attempt to send a budget alert",
		Long: `deliveries lists the store's alert delivery log, oldest first: when each attempt was made,
the alert's key, the target, the attempt number, whether it was delivered, failed and was
retried, or failed for good, the HTTP or SMTP status, how long it took and the error (secrets
redacted). An alert whose key was delivered to a target is not sent to it again.`,
		Example: `  gpucost budget deliveries
  gpucost budget deliveries --since 7d --budget research --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			f := gpucost.DeliveryFilter{Target: target, Limit: limit}
			if budgetName != "" {
				f.KeyPrefix = "budget:" + budgetName + ":"
			}
			var err error
			if f.Since, err = e.lookBack(since); err != nil {
				return err
			}
			return e.listLog(cmd.Context(), f.Limit, nil, func(db storeDB) (result, error) {
				if db == nil {
					return present.BudgetDeliveries(nil, true), nil
				}
				ds, err := db.Deliveries(cmd.Context(), f)
				return latestNote(present.BudgetDeliveries(ds, false), len(ds), f.Limit), err
			})
		},
	}
	registerSince(cmd, &since, "attempts")
	cmd.Flags().StringVar(&budgetName, "budget", "", "attempts for this budget's alerts only")
	cmd.Flags().StringVar(&target, "target", "", "attempts to this target only")
	cmd.Flags().IntVar(&limit, "limit", 200, "the latest N attempts (0: all)")
	return cmd
}
