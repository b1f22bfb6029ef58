package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/budget/alert"
	"github.com/gpucost/gpucost/notify"
)

// Alert delivery: each alert and target is tried this many times, the first retry after this long.
const (
	alertAttempts = 5
	alertBackoff  = time.Second
)

// budgetAlerts is the server's budget check: every Options.CheckEvery it evaluates the budgets
// the server uses (the budgets file, or those stored through the API) as gpucost budget check
// does and sends each crossed threshold's alert through the store's delivery log, so an alert
// goes out once per threshold and period across restarts and replicas. It runs beside the
// requests: a target that times out delays the next check, never ingest.
type budgetAlerts struct {
	store   gpucost.Store
	file    string
	targets map[string]notify.Target
	now     func() time.Time
	log     *slog.Logger
	after   func(ctx context.Context) // run after each check (the enforcer); nil: nothing
}

// once checks the budgets, then runs what comes after (the enforcer).
func (a *budgetAlerts) once(ctx context.Context) {
	a.check(ctx)
	if a.after != nil {
		a.after(ctx)
	}
}

// repeat runs fn at once and then every every until ctx is done: serve's check loops.
func repeat(ctx context.Context, every time.Duration, fn func(context.Context)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		fn(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// check evaluates the budgets once and logs every alert sent or failed; without targets
// (policies alone) it sends none.
func (a *budgetAlerts) check(ctx context.Context) {
	c := alert.Checker{Targets: a.targets, Now: a.now, Log: a.log,
		Budgets: func(ctx context.Context) ([]budget.Budget, string, error) {
			return LoadBudgets(ctx, a.store, a.file)
		},
		Spend: func(ctx context.Context, budgets []budget.Budget) (*budget.Spend, error) {
			sp, _, err := budget.ReadSpend(ctx, a.store, budgets, a.now().UTC())
			return sp, err
		},
		Deliver: func(ctx context.Context, alerts []*alert.Outcome) error {
			if alert.Count(alerts, "") == 0 {
				alert.MarkPending(alerts, alert.WouldSend)
				return nil
			}
			s := alert.Sender{Log: a.store, Targets: a.targets, MaxAttempts: alertAttempts, Backoff: alertBackoff}
			return s.Deliver(ctx, alerts)
		}}
	c.Check(ctx)
}
