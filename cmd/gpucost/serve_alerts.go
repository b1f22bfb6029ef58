package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost/budget/alert"
	"github.com/gpucost/gpucost/notify"
)

// budgetAlerts is gpucost serve's budget check: every --check-every it evaluates the budgets
// the server uses (serve --budgets, or those stored through the API) as gpucost budget check
// does and sends each crossed threshold's alert through the store's delivery log, so an alert
// goes out once per threshold and period across restarts and replicas. It runs beside the
// requests: a target that times out delays the next check, never ingest.
type budgetAlerts struct {
	e       *env
	db      settingStore
	file    string // serve --budgets
	targets map[string]notify.Target
	opts    budgetCheckOpts
	log     *slog.Logger
	after   func(ctx context.Context) // run after each check (serve --policies); nil: nothing
}

// run checks at once and then every every until ctx is done.
func (a *budgetAlerts) run(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		a.check(ctx)
		if a.after != nil {
			a.after(ctx)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check evaluates the budgets once and logs every alert sent or failed; without targets
// (serve --policies alone) it sends none.
func (a *budgetAlerts) check(ctx context.Context) {
	if a.targets == nil {
		return
	}
	budgets, source, err := a.e.loadServerBudgets(ctx, a.db, a.file)
	if err != nil {
		a.log.Error("budget check: read the budgets", "err", err)
		return
	}
	if len(budgets) == 0 {
		return
	}
	if err := alert.CheckTargets(budgets, a.targets, "serve --targets"); err != nil {
		a.log.Error("budget check: the budgets of "+source+" name targets this server lacks; no alert sent", "err", err)
		return
	}
	sp, err := a.e.budgetSpend(ctx, budgets)
	if err != nil {
		a.log.Error("budget check: read the spend", "err", err)
		return
	}
	now := a.e.now()
	alerts := alert.Plan(budgets, sp.Statuses(now), now)
	if err := a.e.deliverAlerts(ctx, a.opts, sp.noStore, a.targets, alerts); err != nil {
		a.log.Error("budget check: deliver the alerts", "err", err)
		return
	}
	for _, al := range alerts {
		switch al.Result {
		case alert.Sent:
			a.log.Info("budget alert sent", "budget", al.Budget, "period", al.Period, "threshold", al.Threshold,
				"percent", al.Percent, "target", al.Target, "attempts", al.Attempts)
		case alert.Failed:
			a.log.Warn("budget alert failed; retried on the next check", "budget", al.Budget, "threshold", al.Threshold,
				"target", al.Target, "attempts", al.Attempts, "err", al.Error)
		}
	}
}
