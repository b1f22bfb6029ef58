package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/gpucost/gpucost"
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

// serveEnforcer is gpucost serve's enforcement: after each budget check it evaluates the
// policies against the server's budgets (serve --budgets, or those stored through the API) and
// the live inventory, and runs the plan as gpucost enforce does, every action logged in the
// store's action log. Nothing it meets stops the server: a cloud API that cannot be listed or
// budgets the policies no longer match are logged, and the next check tries again.
type serveEnforcer struct {
	e           *env
	db          storeDB
	file        string // --policies
	data        []byte
	budgetsFile string // serve --budgets
	apply       bool
	src         *enforceSources
	runner      *enforce.Runner
	log         *slog.Logger

	// repeats drops the dry-run actions logged by the last run, so that a dry run planning the
	// same action check after check logs it once, not every --check-every.
	repeats enforce.Repeats
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
	data, err := os.ReadFile(eo.policies)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read policies: %w", err)
	}
	budgets, source, err := e.loadServerBudgets(ctx, db, o.budgets)
	if err != nil {
		return nil, err
	}
	policies, err := enforce.Load(eo.policies, data, budgets)
	if err != nil {
		if o.budgets == "" {
			return nil, fmt.Errorf("%w (the budgets are %s; give --budgets FILE or PUT them to /api/v1/budgets before starting with --policies)", err, orNone(source))
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
	return &serveEnforcer{e: e, db: db, file: eo.policies, data: data, budgetsFile: o.budgets, apply: eo.apply, src: src,
		runner: runner, log: log}, nil
}

// serveActor names gpucost serve's enforcement in the audit log: "serve HOST (policies)". It
// acts on its own, on the policies it was started with, not on a person's request.
func serveActor() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("serve %s (policies)", host)
}

func orNone(source string) string {
	if source == "" {
		return "none yet"
	}
	return source
}

// run evaluates the policies once and runs the plan. A nil enforcer does nothing.
func (s *serveEnforcer) run(ctx context.Context) {
	if s == nil || ctx.Err() != nil {
		return
	}
	budgets, source, err := s.e.loadServerBudgets(ctx, s.db, s.budgetsFile)
	if err != nil {
		s.log.Error("enforcement: read the budgets; nothing enforced", "err", err)
		return
	}
	policies, err := enforce.Load(s.file, s.data, budgets)
	if err != nil {
		s.log.Error("enforcement: the policies do not match the budgets of "+orNone(source)+"; nothing enforced", "err", err)
		return
	}
	snap, _, err := s.e.budgetSnapshot(ctx, budgets)
	if err != nil {
		s.log.Error("enforcement: read the spend; nothing enforced", "err", err)
		return
	}
	snap.Resources, _ = enforce.ListResources(ctx, s.src.inventories, func(err error) {
		s.log.Error("enforcement: list resources; the policies act on those of the other inventories", "err", s.runner.Redact(err.Error()))
	})
	plan := enforce.Evaluate(policies, snap, s.apply)
	plan.Actions = s.repeats.Drop(plan.Actions)
	failed, err := s.runner.Run(ctx, &plan)
	if err != nil {
		s.log.Error("enforcement: log the actions", "err", err)
	}
	s.report(plan, failed)
}

// report logs each triggered policy and each action that failed or changed something.
func (s *serveEnforcer) report(plan enforce.Plan, failed int) {
	for _, p := range plan.Policies {
		if p.Triggered {
			s.log.Info("policy triggered", "policy", p.Policy, "trigger", p.Trigger, "reason", p.Reason, "actions", p.Actions, "dry_run", p.DryRun || !plan.Apply)
		}
	}
	for _, a := range plan.Actions {
		id := strings.Join(a.Targets, ",")
		if a.Resource != nil {
			id = a.Resource.ID
		}
		switch a.Result {
		case enforce.ResultDone:
			s.log.Info("enforcement action done", "policy", a.Policy, "action", a.Action, "resource", id)
		case enforce.ResultFailed:
			s.log.Warn("enforcement action failed; tried again on the next check", "policy", a.Policy, "action", a.Action, "resource", id, "err", a.Error)
		}
	}
	if failed > 0 || plan.Triggered() {
		s.log.Info("enforcement run", "actions", len(plan.Actions), "failed", failed, "apply", plan.Apply)
	}
}
