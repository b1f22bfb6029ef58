package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/notify"
	"github.com/spf13/cobra"
)

// Outcomes of one alert to one target, as budget check prints them.
const (
	alertSent      = "sent"
	alertDelivered = "already delivered"
	alertFailed    = "failed"
	alertWouldSend = "would send"
	alertNoTarget  = "no targets"
)

// sendWorkers bounds how many deliveries budget check makes at once.
const sendWorkers = 8

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
		Short: "Alert each crossed budget threshold's targets, once per threshold and period",
		Long: `check evaluates every budget in the file as budget status does and, for each threshold
crossed (actual spend, or the forecast "projected to exceed"), sends one alert to that
threshold's notify targets from the targets file: the spend, the forecast, the percentages and
what is left, as signed webhook JSON, a Slack message or an email. Each alert carries a key
naming the budget, period and threshold ("budget:research:2026-11:actual:80"); every attempt is
kept in the store's delivery log, and a key already delivered to a target is not sent again, so
check can run hourly from cron and each threshold alerts once per period. A failed delivery is
retried with exponential backoff (--attempts, --backoff) and tried again on the next run.

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

// alertOutcome is one alert to one target and what became of it.
type alertOutcome struct {
	Budget    string  `json:"budget"`
	Period    string  `json:"period"`
	Threshold string  `json:"threshold"`
	Percent   float64 `json:"percent"` // the spend or forecast, as a percentage of the amount
	Key       string  `json:"key"`
	Subject   string  `json:"subject"`
	Target    string  `json:"target"`
	Result    string  `json:"result"`
	Attempts  int     `json:"attempts"`
	Status    int     `json:"status,omitempty"`
	Error     string  `json:"error,omitempty"`

	msg notify.Message
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
	}
	budgets, err := readBudgets(o.file)
	if err != nil {
		return err
	}
	var targets map[string]notify.Target
	var warnings []string
	if o.targets != "" {
		if targets, warnings, err = readTargets(o.targets, e.getenv); err != nil {
			return err
		}
		if err := checkTargetNames(budgets, targets, o.targets); err != nil {
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
	statuses := sp.statuses(now)
	alerts := planAlerts(budgets, statuses, now)
	if err := e.deliverAlerts(ctx, o, sp.noStore, targets, alerts); err != nil {
		return err
	}
	if err := e.print(budgetCheckResult(sp, statuses, alerts, o.dryRun)); err != nil {
		return err
	}
	if n := countResult(alerts, alertFailed); n > 0 {
		fmt.Fprintf(e.stderr, "gpucost: %d alert deliveries failed; they are retried on the next run (see gpucost budget deliveries)\n", n)
		return exitError{exitUnavailable}
	}
	return nil
}

// readTargets reads and checks a notification targets file.
func readTargets(path string, getenv func(string) string) (map[string]notify.Target, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, gpucost.Errorf(gpucost.EInvalid, "read notification targets: %w", err)
	}
	targets, warnings, err := notify.ParseTargets(path, data, getenv)
	if err != nil {
		return nil, warnings, gpucost.Errorf(gpucost.EInvalid, "%w", err)
	}
	return targets, warnings, nil
}

// checkTargetNames fails when a threshold notifies a target the targets file lacks, naming the
// budget's file and line, before anything is sent.
func checkTargetNames(budgets []budget.Budget, targets map[string]notify.Target, targetsFile string) error {
	have := make([]string, 0, len(targets))
	for n := range targets {
		have = append(have, n)
	}
	slices.Sort(have)
	var missing []string
	for _, b := range budgets {
		var names []string
		thresholds := map[string][]string{}
		for _, t := range b.Thresholds {
			for _, n := range t.Notify {
				if _, ok := targets[n]; !ok {
					if thresholds[n] == nil {
						names = append(names, n)
					}
					thresholds[n] = append(thresholds[n], t.String())
				}
			}
		}
		for _, n := range names {
			missing = append(missing, fmt.Sprintf("%s:%d: budget %s notifies target %q (thresholds %s), which is not in %s",
				b.File, b.Line, b.Name, n, strings.Join(thresholds[n], ", "), targetsFile))
		}
	}
	if len(missing) > 0 {
		return gpucost.Errorf(gpucost.EInvalid, "%s; define them in %s (it has %s) or fix the names",
			strings.Join(missing, "; "), targetsFile, strings.Join(have, ", "))
	}
	return nil
}

// planAlerts returns one outcome per crossed threshold and target, in the budgets' order; a
// threshold with no targets is one outcome with none.
func planAlerts(budgets []budget.Budget, statuses []budget.Status, now time.Time) []*alertOutcome {
	var out []*alertOutcome
	for i, s := range statuses {
		for _, c := range s.Crossed {
			m := budgetMessage(budgets[i], s, c, now)
			base := alertOutcome{Budget: s.Budget, Period: s.Period, Threshold: c.Threshold.String(), Percent: c.Percent,
				Key: c.Key, Subject: m.Subject, msg: m}
			if len(c.Threshold.Notify) == 0 {
				a := base
				a.Result = alertNoTarget
				out = append(out, &a)
			}
			for _, t := range c.Threshold.Notify {
				a := base
				a.Target = t
				out = append(out, &a)
			}
		}
	}
	return out
}

// deliverAlerts settles each alert: already delivered per the store's log, would send (dry
// run), or sent through a Dispatcher that records every attempt in the log.
func (e *env) deliverAlerts(ctx context.Context, o budgetCheckOpts, noStore bool, targets map[string]notify.Target, alerts []*alertOutcome) error {
	pending := 0
	for _, a := range alerts {
		if a.Result == "" {
			pending++
		}
	}
	if pending == 0 || (o.dryRun && noStore) {
		markPending(alerts, alertWouldSend)
		return nil
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	log := &outcomeLog{DeliveryLog: db, last: map[[2]string]gpucost.Delivery{}}
	for _, a := range alerts {
		if a.Result != "" {
			continue
		}
		done, err := log.Delivered(ctx, a.Key, a.Target)
		if err != nil {
			return err
		}
		if done {
			a.Result = alertDelivered
		}
	}
	if o.dryRun {
		markPending(alerts, alertWouldSend)
		return nil
	}
	d := &notify.Dispatcher{Targets: targets, Log: log, MaxAttempts: o.attempts, Backoff: notify.Backoff{Base: o.backoff}}
	sendAlerts(ctx, d, log, alerts)
	return nil
}

func markPending(alerts []*alertOutcome, result string) {
	for _, a := range alerts {
		if a.Result == "" {
			a.Result = result
		}
	}
}

// sendAlerts sends every alert still pending, sendWorkers at a time, and fills in each outcome
// from the attempts the log saw.
func sendAlerts(ctx context.Context, d *notify.Dispatcher, log *outcomeLog, alerts []*alertOutcome) {
	sem := make(chan struct{}, sendWorkers)
	var wg sync.WaitGroup
	for _, a := range alerts {
		if a.Result != "" {
			continue
		}
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			err := d.Notify(ctx, a.msg, a.Target)
			last, tried := log.lastAttempt(a.Key, a.Target)
			a.Attempts, a.Status = last.Attempt, last.Status
			switch {
			case err == nil && tried:
				a.Result = alertSent
			case err == nil:
				a.Result = alertDelivered // another sender delivered it between our check and the send
			default:
				a.Result, a.Error = alertFailed, err.Error()
			}
		})
	}
	wg.Wait()
}

// outcomeLog records attempts in the store's log and keeps the last one per alert and target.
type outcomeLog struct {
	notify.DeliveryLog
	mu   sync.Mutex
	last map[[2]string]gpucost.Delivery
}

// RecordDelivery stores d in the log and remembers it.
func (l *outcomeLog) RecordDelivery(ctx context.Context, d gpucost.Delivery) error {
	l.mu.Lock()
	l.last[[2]string{d.Key, d.Target}] = d
	l.mu.Unlock()
	return l.DeliveryLog.RecordDelivery(ctx, d)
}

func (l *outcomeLog) lastAttempt(key, target string) (gpucost.Delivery, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	d, ok := l.last[[2]string{key, target}]
	return d, ok
}

// budgetMessage is the alert for crossing c of budget b with status s.
func budgetMessage(b budget.Budget, s budget.Status, c budget.Crossing, now time.Time) notify.Message {
	t := c.Threshold
	m := notify.Message{Kind: "budget.threshold", Severity: notify.SeverityInfo, At: now, Key: c.Key}
	switch {
	case t.Kind == budget.KindForecast:
		m.Kind, m.Severity = "budget.forecast", notify.SeverityWarning
		m.Subject = fmt.Sprintf("Budget %s projected to exceed %s%% in %s: forecast %s of %s",
			b.Name, trimPercent(t.Percent), s.Period, s.Forecast.Projected.Dollars(), s.Amount.Dollars())
	default:
		if t.Percent >= 100 {
			m.Severity = notify.SeverityCritical
		} else if t.Percent >= 80 {
			m.Severity = notify.SeverityWarning
		}
		m.Subject = fmt.Sprintf("Budget %s reached %.0f%% in %s: %s spent of %s",
			b.Name, s.Percent, s.Period, s.Spent.Dollars(), s.Amount.Dollars())
	}
	var text strings.Builder
	fmt.Fprintf(&text, "Budget %s has spent %s of its %s %s budget for %s (%.0f%%), crossing its %s threshold.\n",
		b.Name, s.Spent.Dollars(), s.Amount.Dollars(), b.Period, s.Period, s.Percent, t)
	fmt.Fprintf(&text, "The forecast for the period is %s (%.0f%% of the budget; p10–p90 %s–%s).\n",
		s.Forecast.Projected.Dollars(), s.ForecastPercent, s.Forecast.Low.Dollars(), s.Forecast.High.Dollars())
	if s.Remaining.Nanos >= 0 {
		fmt.Fprintf(&text, "%s is left for %d days: %s a day keeps it within budget; the burn rate is %s a day.\n",
			s.Remaining.Dollars(), s.DaysLeft, s.AllowedRate.Dollars(), s.BurnRate.Dollars())
	} else {
		fmt.Fprintf(&text, "The budget is over by %s with %d days left; the burn rate is %s a day.\n",
			s.Remaining.MulFloat(-1).Dollars(), s.DaysLeft, s.BurnRate.Dollars())
	}
	fmt.Fprintf(&text, "Alert key: %s", c.Key)
	m.Text = text.String()
	m.Fields = []notify.Field{
		{Name: "Budget", Value: b.Name},
		{Name: "Period", Value: fmt.Sprintf("%s (%s to %s)", s.Period, s.Start.Format("2 Jan"), s.End.AddDate(0, 0, -1).Format("2 Jan 2006"))},
		{Name: "Threshold", Value: t.String()},
		{Name: "Amount", Value: s.Amount.Dollars()},
		{Name: "Spent", Value: fmt.Sprintf("%s (%.1f%%)", s.Spent.Dollars(), s.Percent)},
		{Name: "Forecast", Value: fmt.Sprintf("%s (%.1f%%)", s.Forecast.Projected.Dollars(), s.ForecastPercent)},
		{Name: "Left", Value: s.Remaining.Dollars()},
		{Name: "Days left", Value: fmt.Sprint(s.DaysLeft)},
		{Name: "Burn/day", Value: s.BurnRate.Dollars()},
		{Name: "Allowed/day", Value: s.AllowedRate.Dollars()},
		{Name: "Alert key", Value: c.Key},
	}
	return m
}

// trimPercent writes 100 as "100" and 12.5 as "12.5".
func trimPercent(p float64) string { return fmt.Sprintf("%g", p) }

func countResult(alerts []*alertOutcome, result string) int {
	n := 0
	for _, a := range alerts {
		if a.Result == result {
			n++
		}
	}
	return n
}

func budgetCheckResult(sp *budgetSpend, statuses []budget.Status, alerts []*alertOutcome, dryRun bool) result {
	r := result{
		Title:   "Budget alerts",
		Columns: []string{"Budget", "Period", "Threshold", "Reached", "Target", "Result", "Attempts", "Error"},
		Right:   []int{3, 6},
		JSON:    alerts,
		Notes:   sp.notes(),
	}
	if dryRun {
		r.Title += " (dry run: nothing sent or recorded)"
	}
	if alerts == nil {
		r.JSON = []*alertOutcome{}
	}
	for _, a := range alerts {
		attempts := ""
		if a.Attempts > 0 {
			attempts = fmt.Sprint(a.Attempts)
		}
		r.Rows = append(r.Rows, []string{a.Budget, a.Period, a.Threshold, fmt.Sprintf("%.0f%%", a.Percent), a.Target,
			a.Result, attempts, a.Error})
	}
	for _, s := range statuses {
		if len(s.Crossed) == 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: no threshold crossed in %s (%.0f%% spent, forecast %.0f%%).",
				s.Budget, s.Period, s.Percent, s.ForecastPercent))
		}
	}
	var counts []string
	for _, res := range []string{alertSent, alertWouldSend, alertDelivered, alertFailed, alertNoTarget} {
		if n := countResult(alerts, res); n > 0 {
			counts = append(counts, fmt.Sprintf("%d %s", n, res))
		}
	}
	if len(counts) > 0 {
		r.Notes = append(r.Notes, "Alerts: "+strings.Join(counts, ", ")+".")
	}
	return r
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
			return e.budgetDeliveries(cmd.Context(), f)
		},
	}
	cmd.Flags().StringVar(&since, "since", "", "attempts in this look-back only, such as 7d or 24h")
	cmd.Flags().StringVar(&budgetName, "budget", "", "attempts for this budget's alerts only")
	cmd.Flags().StringVar(&target, "target", "", "attempts to this target only")
	cmd.Flags().IntVar(&limit, "limit", 200, "the latest N attempts (0: all)")
	return cmd
}

// deliveryRow is one attempt as budget deliveries prints it in JSON.
type deliveryRow struct {
	At         time.Time `json:"at"`
	Key        string    `json:"key"`
	Kind       string    `json:"kind"`
	Target     string    `json:"target"`
	Attempt    int       `json:"attempt"`
	OK         bool      `json:"ok"`
	Final      bool      `json:"final"`
	Status     int       `json:"status"`
	DurationMS float64   `json:"duration_ms"`
	Error      string    `json:"error,omitempty"`
}

func (e *env) budgetDeliveries(ctx context.Context, f gpucost.DeliveryFilter) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	if err := checkLimit(f.Limit); err != nil {
		return err
	}
	r := result{
		Title:   "Alert deliveries",
		Columns: []string{"Time", "Alert key", "Target", "Attempt", "Result", "Status", "Took", "Error"},
		Right:   []int{3, 5, 6},
		JSON:    []deliveryRow{},
	}
	if e.noStoreYet() {
		r.Notes = append(r.Notes, "No store file: no alert has been sent yet (gpucost budget check sends them).")
		return e.print(r)
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	ds, err := db.Deliveries(ctx, f)
	if err != nil {
		return err
	}
	rows := make([]deliveryRow, 0, len(ds))
	for _, d := range ds {
		rows = append(rows, deliveryRow{At: d.At, Key: d.Key, Kind: d.Kind, Target: d.Target, Attempt: d.Attempt, OK: d.OK,
			Final: d.Final, Status: d.Status, DurationMS: float64(d.Duration) / float64(time.Millisecond), Error: d.Error})
		status := ""
		if d.Status != 0 {
			status = fmt.Sprint(d.Status)
		}
		r.Rows = append(r.Rows, []string{d.At.UTC().Format(time.RFC3339), d.Key, d.Target, fmt.Sprint(d.Attempt),
			deliveryResult(d), status, d.Duration.Round(time.Millisecond).String(), d.Error})
	}
	r.JSON = rows
	if len(ds) == 0 {
		r.Notes = append(r.Notes, "No delivery matches.")
	}
	return e.print(r)
}

func deliveryResult(d gpucost.Delivery) string {
	switch {
	case d.OK:
		return "delivered"
	case d.Final:
		return "failed"
	default:
		return "failed, retried"
	}
}
