package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/server"
)

// perResource reports whether any policy is an idle or off-hours policy.
func perResource(policies []enforce.Policy) bool {
	return slices.ContainsFunc(policies, func(p enforce.Policy) bool { return p.PerResource() })
}

// usageSnapshot adds to snap what idle and off-hours policies read from the store
// (enforce.UsageSnapshot); without a live inventory it rehearses on the store's inventory.
func (e *env) usageSnapshot(ctx context.Context, policies []enforce.Policy, snap *enforce.Snapshot, live bool) ([]string, error) {
	if !perResource(policies) {
		return nil, nil
	}
	return fromStore(ctx, e, func(db storeDB) ([]string, error) {
		return server.UsageSnapshot(ctx, db, policies, snap, live)
	})
}

// usageSavings replays the idle and off-hours policies over the last 30 days of the store's
// telemetry and bill beside recommend's idle-schedule lever (server.ReplaySavings); nil without
// such policies, and nil with a line on stderr saying why without a bill to price them.
func (e *env) usageSavings(ctx context.Context, policies []enforce.Policy, resources []enforce.Resource) (*present.Table, error) {
	if !perResource(policies) || e.noStoreYet() {
		return nil, nil
	}
	t, err := fromStore(ctx, e, func(db storeDB) (*present.Table, error) {
		return server.ReplaySavings(ctx, db, policies, resources, e.now())
	})
	if err != nil {
		return nil, noReplay(e, err)
	}
	return t, nil
}

// undoAction reverses a logged stop or scale-to-zero with the adapters the flags configure.
func (e *env) undoAction(ctx context.Context, id int64, o enforceOpts) error {
	sources, err := o.inv.sources(e)
	if err != nil {
		return err
	}
	plan, err := fromStore(ctx, e, func(db storeDB) (enforce.Plan, error) {
		entries, err := enforce.Log{Store: db}.Actions(ctx, gpucost.ActionFilter{})
		if err != nil {
			return enforce.Plan{}, err
		}
		a, err := enforce.Undo(entries, id)
		if err != nil {
			return enforce.Plan{}, err
		}
		a.DryRun = !o.apply
		a.Evidence.Reason = fmt.Sprintf("gpucost enforce undo %d by %s", id, cliActor())
		p := enforce.Plan{At: e.now(), Apply: o.apply, Actions: []enforce.Action{a}}
		_, err = sources.runner(e, db, nil).Run(ctx, &p)
		return p, err
	})
	if err != nil {
		return err
	}
	if err := e.print(present.Enforcement(plan, nil)); err != nil {
		return err
	}
	if a := plan.Actions[0]; a.Result == enforce.ResultFailed {
		return exitError{exitUnavailable}
	}
	return nil
}

// noReplay says on stderr why the policies are not replayed when the store holds no bill to
// price them (an ENotFound error), and returns nil; any other error it returns.
func noReplay(e *env, err error) error {
	if gpucost.ErrorCode(err) != gpucost.ENotFound {
		return err
	}
	fmt.Fprintf(e.stderr, "gpucost: the policies are not replayed over the last 30 days, which needs a bill to price the machines: %v\n", err)
	return nil
}
