package enforce

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"github.com/gpucost/gpucost/budget"
)

// Watcher is a server's enforcement: each Run evaluates the policies against the budgets as they
// are then and the live inventory, and runs the plan as gpucost enforce does, every action
// logged by the Runner. Nothing it meets stops it: budgets it cannot read, policies that no
// longer match them and an inventory that cannot be listed are logged, and the next Run tries
// again. A dry run that plans the same action run after run logs it once (Repeats).
type Watcher struct {
	File string // the policies file, for messages
	Data []byte // its contents, loaded against the budgets of each run
	// Budgets returns the budgets as they are now and where they come from ("" when nowhere).
	Budgets func(ctx context.Context) ([]budget.Budget, string, error)
	// Snapshot returns the budgets' statuses now, without resources.
	Snapshot    func(ctx context.Context, budgets []budget.Budget) (Snapshot, error)
	Inventories []Inventory
	// Usage, when set, adds what idle and off-hours policies read from the store to the
	// snapshot (UsageSnapshot, as gpucost enforce does); without it they judge no telemetry and
	// stop nothing.
	Usage  func(ctx context.Context, policies []Policy, snap *Snapshot) ([]string, error)
	Runner *Runner
	Apply  bool // carry out the actions of policies with dry_run: false
	Log    *slog.Logger

	repeats Repeats
}

// Run evaluates the policies once, runs the plan and logs what it did.
func (w *Watcher) Run(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	budgets, source, err := w.Budgets(ctx)
	if err != nil {
		w.Log.Error("enforcement: read the budgets; nothing enforced", "err", err)
		return
	}
	policies, err := Load(w.File, w.Data, budgets)
	if err != nil {
		w.Log.Error("enforcement: the policies do not match the budgets of "+SourceOrNone(source)+"; nothing enforced", "err", err)
		return
	}
	snap, err := w.Snapshot(ctx, budgets)
	if err != nil {
		w.Log.Error("enforcement: read the spend; nothing enforced", "err", err)
		return
	}
	snap.Resources, _ = ListResources(ctx, w.Inventories, func(err error) {
		w.Log.Error("enforcement: list resources; the policies act on those of the other inventories", "err", w.Runner.Redact(err.Error()))
	})
	if w.Usage != nil && slices.ContainsFunc(policies, Policy.PerResource) {
		if _, err := w.Usage(ctx, policies, &snap); err != nil {
			w.Log.Error("enforcement: read the GPU telemetry; idle and off-hours policies act on nothing this time", "err", err)
			snap.Activity, snap.InForce = nil, nil
		}
	}
	plan := Evaluate(policies, snap, w.Apply)
	plan.Actions = w.repeats.Drop(plan.Actions)
	failed, err := w.Runner.Run(ctx, &plan)
	if err != nil {
		w.Log.Error("enforcement: log the actions", "err", err)
	}
	w.report(plan, failed)
}

// report logs each triggered policy and each action that failed or changed something.
func (w *Watcher) report(plan Plan, failed int) {
	for _, p := range plan.Policies {
		if p.Triggered {
			w.Log.Info("policy triggered", "policy", p.Policy, "trigger", p.Trigger, "reason", p.Reason, "actions", p.Actions, "dry_run", p.DryRun || !plan.Apply)
		}
	}
	for _, a := range plan.Actions {
		id := strings.Join(a.Targets, ",")
		if a.Resource != nil {
			id = a.Resource.ID
		}
		switch a.Result {
		case ResultDone:
			w.Log.Info("enforcement action done", "policy", a.Policy, "action", a.Action, "resource", id)
		case ResultFailed:
			w.Log.Warn("enforcement action failed; tried again on the next check", "policy", a.Policy, "action", a.Action, "resource", id, "err", a.Error)
		}
	}
	if failed > 0 || plan.Triggered() {
		w.Log.Info("enforcement run", "actions", len(plan.Actions), "failed", failed, "apply", plan.Apply)
	}
}

// SourceOrNone names where budgets come from in messages: source, or "none yet".
func SourceOrNone(source string) string {
	if source == "" {
		return "none yet"
	}
	return source
}
