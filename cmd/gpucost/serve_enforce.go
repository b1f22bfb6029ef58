package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/enforce"
	"github.com/spf13/cobra"
)

// serveEnforceOptions are gpucost serve's enforcement flags: the policies file, --apply and the
// inventory flags gpucost enforce takes.
type serveEnforceOptions struct {
	policies string
	apply    bool
	inv      inventoryFlags
}

func (o *serveEnforceOptions) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.policies, "policies", "", "policies YAML file (as gpucost enforce takes): after each budget check, evaluate them and run their actions, each logged")
	cmd.Flags().BoolVar(&o.apply, "apply", false, "with --policies: carry out the actions of policies with dry_run: false (default: log them as planned only)")
	o.inv.add(cmd)
}

// serveEnforcer is gpucost serve's enforcement (enforce.Watcher): after each budget check it
// evaluates the policies against the server's budgets (serve --budgets, or those stored through
// the API) and the live inventory, and runs the plan as gpucost enforce does.
type serveEnforcer struct{ enforce.Watcher }

// run evaluates the policies once and runs the plan. A nil enforcer does nothing.
func (s *serveEnforcer) run(ctx context.Context) {
	if s != nil {
		s.Run(ctx)
	}
}

// newServeEnforcer reads and checks the policies against the server's budgets and targets and
// builds the inventory adapters; it returns nil without --policies.
func (e *env) newServeEnforcer(ctx context.Context, db storeDB, o serveOptions, log *slog.Logger) (*serveEnforcer, error) {
	eo := o.enforce
	if eo.policies == "" {
		if eo.apply || eo.inv.given() {
			return nil, usageError{fmt.Errorf("--apply and the inventory flags (--aws-region, --kube-server, …) need --policies: the policies YAML file")}
		}
		return nil, nil
	}
	data, err := readInput("policies", eo.policies)
	if err != nil {
		return nil, err
	}
	budgets, source, err := e.loadServerBudgets(ctx, db, o.budgets)
	if err != nil {
		return nil, err
	}
	policies, err := enforce.Load(eo.policies, data, budgets)
	if err != nil {
		if o.budgets == "" {
			return nil, fmt.Errorf("%w (the budgets are %s; give --budgets FILE or PUT them to /api/v1/budgets before starting with --policies)", err, enforce.SourceOrNone(source))
		}
		return nil, err
	}
	if err := enforce.CheckTargets(policies, o.targets, o.targetsFile, eo.apply); err != nil {
		return nil, err
	}
	src, err := eo.inv.sources(e)
	if err != nil {
		return nil, err
	}
	if len(src.inventories) == 0 {
		log.Warn("enforcement: no inventory (give --aws-region or --kube-server); policies can only notify")
	}
	runner := src.runner(e, db, o.targets)
	runner.Actor, runner.Source = serveActor(), "serve"
	return &serveEnforcer{enforce.Watcher{File: eo.policies, Data: data, Inventories: src.inventories, Runner: runner, Apply: eo.apply, Log: log,
		Budgets: func(ctx context.Context) ([]budget.Budget, string, error) {
			return e.loadServerBudgets(ctx, db, o.budgets)
		},
		Snapshot: func(ctx context.Context, budgets []budget.Budget) (enforce.Snapshot, error) {
			snap, _, err := e.budgetSnapshot(ctx, budgets)
			return snap, err
		}}}, nil
}

// serveActor names gpucost serve's enforcement in the audit log: "serve HOST (policies)". It
// acts on its own, on the policies it was started with, not on a person's request.
func serveActor() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("serve %s (policies)", host)
}
