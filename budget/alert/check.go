package alert

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/notify"
)

// Checker is a server's budget check: each Check evaluates the budgets as they are then and
// sends the alerts of the thresholds crossed, logging each one sent or failed. Nothing it meets
// stops the server: budgets it cannot read, or that name targets it lacks, are logged, and the
// next Check tries again.
type Checker struct {
	Targets map[string]notify.Target // nil: no alert is sent
	// Budgets returns the budgets as they are now and where they come from.
	Budgets func(ctx context.Context) ([]budget.Budget, string, error)
	// Spend returns the daily spend of the budgets' scopes.
	Spend func(ctx context.Context, budgets []budget.Budget) (*budget.Spend, error)
	// Deliver settles the alerts (a Sender's Deliver, through the store's delivery log).
	Deliver func(ctx context.Context, alerts []*Outcome) error
	Now     func() time.Time
	Log     *slog.Logger
}

// Check evaluates the budgets once and sends the alerts due.
func (c *Checker) Check(ctx context.Context) {
	if c.Targets == nil {
		return
	}
	budgets, source, err := c.Budgets(ctx)
	if err != nil {
		c.Log.Error("budget check: read the budgets", "err", err)
		return
	}
	if len(budgets) == 0 {
		return
	}
	if err := CheckTargets(budgets, c.Targets, "serve --targets"); err != nil {
		c.Log.Error("budget check: the budgets of "+source+" name targets this server lacks; no alert sent", "err", err)
		return
	}
	sp, err := c.Spend(ctx, budgets)
	if err != nil {
		c.Log.Error("budget check: read the spend", "err", err)
		return
	}
	now := c.Now()
	alerts := Plan(budgets, sp.Statuses(now), now)
	if err := c.Deliver(ctx, alerts); err != nil {
		c.Log.Error("budget check: deliver the alerts", "err", err)
		return
	}
	for _, a := range alerts {
		switch a.Result {
		case Sent:
			c.Log.Info("budget alert sent", "budget", a.Budget, "period", a.Period, "threshold", a.Threshold,
				"percent", a.Percent, "target", a.Target, "attempts", a.Attempts)
		case Failed:
			c.Log.Warn("budget alert failed; retried on the next check", "budget", a.Budget, "threshold", a.Threshold,
				"target", a.Target, "attempts", a.Attempts, "err", a.Error)
		}
	}
}
