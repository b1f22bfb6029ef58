package server

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
)

// Enforce are the policies a server evaluates after each budget check, against its budgets and
// the live inventory, running the plan as gpucost enforce does.
type Enforce struct {
	File        string // the policies file, for messages
	Data        []byte // its contents
	Apply       bool   // carry out the actions of policies with dry_run: false; else log them as planned
	Inventories []enforce.Inventory
	Runner      *enforce.Runner // its Actor and Source are set to the server's
}

// enforcer is the server's enforcement (enforce.Watcher).
type enforcer struct{ enforce.Watcher }

// run evaluates the policies once and runs the plan. A nil enforcer does nothing.
func (e *enforcer) run(ctx context.Context) {
	if e != nil {
		e.Run(ctx)
	}
}

// newEnforcer checks o.Enforce's policies against the server's budgets and targets; it returns
// nil without policies.
func newEnforcer(ctx context.Context, st gpucost.Store, o Options) (*enforcer, error) {
	eo := o.Enforce
	if eo == nil {
		return nil, nil
	}
	budgets, source, err := LoadBudgets(ctx, st, o.BudgetsFile)
	if err != nil {
		return nil, err
	}
	policies, err := enforce.Load(eo.File, eo.Data, budgets)
	if err != nil {
		if o.BudgetsFile == "" {
			return nil, fmt.Errorf("%w (the budgets are %s; give --budgets FILE or PUT them to /api/v1/budgets before starting with --policies)", err, enforce.SourceOrNone(source))
		}
		return nil, err
	}
	if err := enforce.CheckTargets(policies, o.Targets, o.TargetsFile, eo.Apply); err != nil {
		return nil, err
	}
	if len(eo.Inventories) == 0 {
		o.Log.Warn("enforcement: no inventory (give --aws-region, --gce-project, --azure-subscription or --kube-server); policies can only notify, and idle and off-hours policies are rehearsed on the store's inventory as dry runs")
	}
	eo.Runner.Actor, eo.Runner.Source = Actor(), "serve"
	live := len(eo.Inventories) > 0
	return &enforcer{enforce.Watcher{File: eo.File, Data: eo.Data, Inventories: eo.Inventories, Runner: eo.Runner, Apply: eo.Apply, Log: o.Log,
		Usage: func(ctx context.Context, policies []enforce.Policy, snap *enforce.Snapshot) ([]string, error) {
			return UsageSnapshot(ctx, st, policies, snap, live)
		},
		Budgets: func(ctx context.Context) ([]budget.Budget, string, error) {
			return LoadBudgets(ctx, st, o.BudgetsFile)
		},
		Snapshot: func(ctx context.Context, budgets []budget.Budget) (enforce.Snapshot, error) {
			return budgetSnapshot(ctx, st, budgets, o.Now())
		}}}, nil
}

// budgetSnapshot is the budgets' statuses at now, without resources.
func budgetSnapshot(ctx context.Context, st budget.SpendStore, budgets []budget.Budget, now time.Time) (enforce.Snapshot, error) {
	snap := enforce.Snapshot{Now: now, Budgets: budgets}
	if len(budgets) == 0 {
		return snap, nil
	}
	sp, _, err := budget.ReadSpend(ctx, st, budgets, now.UTC())
	if err != nil {
		return snap, err
	}
	snap.Statuses = sp.Statuses(now)
	return snap, nil
}

// Actor names the server's enforcement in the audit log: "serve HOST (policies)". It acts on
// its own, on the policies it was started with, not on a person's request.
func Actor() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("serve %s (policies)", host)
}
