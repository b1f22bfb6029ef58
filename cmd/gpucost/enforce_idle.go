package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/recommend"
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
// telemetry and bill (enforce.Replay) and sets the result beside recommend's idle-schedule
// lever on the same machines; nil without such policies, and nil with a line on stderr saying
// why without a bill to price them.
func (e *env) usageSavings(ctx context.Context, policies []enforce.Policy, resources []enforce.Resource) (*present.Table, error) {
	if !perResource(policies) || e.noStoreYet() {
		return nil, nil
	}
	cf := costFlags{policy: gpucost.PolicyUsed, weight: 0.5}
	s, err := cf.open(ctx, e)
	if err != nil {
		return nil, noReplay(e, err)
	}
	defer s.Close()
	v, prices, err := s.Recommendable(ctx)
	if err != nil {
		return nil, noReplay(e, err)
	}
	if len(v.Resources) == 0 {
		return nil, nil
	}
	below, err := query.IdleBelow(ctx, s.db)
	if err != nil {
		return nil, err
	}
	var replays []enforce.Replayed
	var notes []string
	for _, p := range policies {
		if !p.PerResource() {
			continue
		}
		b := below
		if p.Idle != nil {
			b = p.Idle.Below
		}
		traces, err := enforce.ReadTraces(ctx, s.db, b, v.From, v.To)
		if err != nil {
			return nil, err
		}
		replays = append(replays, enforce.Replay(p, resources, traces, monthlyByResource(v, resources))...)
	}
	opts, err := recommend.NewOptions("0", false, 1000)
	if err != nil {
		return nil, err
	}
	recs, err := recommend.Recommend(v, prices, opts)
	if err != nil {
		notes = append(notes, "recommend's idle-schedule lever could not be computed: "+err.Error())
	}
	var lever []gpucost.Recommendation
	for _, r := range recs {
		if r.Kind == gpucost.RecIdleSchedule {
			lever = append(lever, r)
		}
	}
	t := present.EnforceSavings(replays, lever, v.From, v.To, hostsOf(resources))
	t.Notes = append(t.Notes, notes...)
	return &t, nil
}

// monthlyByResource is each resource's monthly cost from the bill, as recommend reads it,
// by the resource's id: the recommender names a machine by its host when it has one.
func monthlyByResource(v recommend.FleetView, resources []enforce.Resource) map[string]gpucost.Money {
	byName := map[string]gpucost.Money{}
	for _, r := range v.Resources {
		byName[r.ID] = r.Monthly
	}
	out := map[string]gpucost.Money{}
	for _, r := range resources {
		for _, k := range append([]string{r.ID, r.Name}, r.Hosts...) {
			if m, ok := byName[k]; ok && k != "" {
				out[r.ID] = m
				break
			}
		}
	}
	return out
}

// hostsOf names each resource by its first telemetry host, as recommend names machines.
func hostsOf(resources []enforce.Resource) map[string]string {
	out := map[string]string{}
	for _, r := range resources {
		if len(r.Hosts) > 0 {
			out[r.ID] = r.Hosts[0]
		}
	}
	return out
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
		i := slices.IndexFunc(entries, func(en enforce.LogEntry) bool { return en.ID == id })
		if i < 0 {
			return enforce.Plan{}, gpucost.Errorf(gpucost.ENotFound, "no action %d in the action log; gpucost enforce log lists them with their ids", id)
		}
		if !slices.ContainsFunc(enforce.InForce(entries), func(en enforce.LogEntry) bool { return en.ID == id }) {
			if _, err := enforce.Reverse(entries[i]); err != nil {
				return enforce.Plan{}, err
			}
			return enforce.Plan{}, gpucost.Errorf(gpucost.EConflict, "action %d was already reversed or superseded (see gpucost enforce log --resource %s)", id, entries[i].Action.Resource.ID)
		}
		a, err := enforce.Reverse(entries[i])
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
