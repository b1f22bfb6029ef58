package main

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost/budget"
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
	noStore := false
	c := alert.Checker{Targets: a.targets, Now: a.e.now, Log: a.log,
		Budgets: func(ctx context.Context) ([]budget.Budget, string, error) {
			return a.e.loadServerBudgets(ctx, a.db, a.file)
		},
		Spend: func(ctx context.Context, budgets []budget.Budget) (*budget.Spend, error) {
			sp, err := a.e.budgetSpend(ctx, budgets)
			if err != nil {
				return nil, err
			}
			noStore = sp.noStore
			return sp.Spend, nil
		},
		Deliver: func(ctx context.Context, alerts []*alert.Outcome) error {
			return a.e.deliverAlerts(ctx, a.opts, noStore, a.targets, alerts)
		}}
	c.Check(ctx)
}
