package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// OpenActions opens a new, empty store's enforcement action log for one test.
type OpenActions func(tb testing.TB) enforce.ActionLog

// RunActions runs the cases of enforce.ActionLog: every action kept with its evidence, read
// back oldest first, filtered by time, policy and resource, the latest N, and incomplete
// actions refused. (A function of its own rather than a case of Run: Stores has no action log.)
func RunActions(t *testing.T, open OpenActions) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, OpenActions)
	}{
		{"RoundTrip", testActionsRoundTrip},
		{"Filters", testActionsFilters},
		{"RejectsIncomplete", testActionsRejectIncomplete},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

var actionsAt = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func stopAction(policy, id, result string) enforce.Action {
	spent, amount, limit := gpucost.USD(21_000e9), gpucost.USD(20_000e9), 2
	return enforce.Action{Policy: policy, Action: enforce.ActStop, Result: result,
		Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: id, Region: "us-east-1"},
		Evidence: enforce.Evidence{Rule: "research-gpus actual ≥ 100%", Reason: "budget research-gpus in 2026-11: 105% of $20,000.00",
			Budget: "research-gpus", Period: "2026-11", Spent: &spent, Amount: &amount, Percent: 105, SpotCap: &limit,
			ScopeTags: map[string]string{"team": "research"}}}
}

func testActionsRoundTrip(t *testing.T, open OpenActions) {
	ctx := context.Background()
	log := open(t)
	want := []enforce.Action{
		stopAction("research-over-budget", "i-1", enforce.ResultDone),
		{Policy: "research-over-budget", Action: enforce.ActNotify, Targets: []string{"ops-slack"}, DryRun: true, Result: enforce.ResultPlanned,
			Evidence: enforce.Evidence{Rule: "r", Resources: []string{"i-1", "i-2"}}},
	}
	want[0].Error = ""
	failed := stopAction("spot-cap", "i-2", enforce.ResultFailed)
	failed.Error = "EC2 StopInstances i-2: UnsupportedOperation"
	want = append(want, failed)
	var ids []int64
	for i, a := range want {
		id, err := log.RecordAction(ctx, actionsAt.Add(time.Duration(i)*time.Second), a)
		if err != nil {
			t.Fatalf("RecordAction(%s %s) = %v", a.Policy, a.Action, err)
		}
		ids = append(ids, id)
	}
	if ids[0] >= ids[1] || ids[1] >= ids[2] {
		t.Errorf("ids = %v, want increasing", ids)
	}
	got, err := log.Actions(ctx, enforce.LogFilter{})
	if err != nil || len(got) != 3 {
		t.Fatalf("Actions() = %d entries, %v; want 3", len(got), err)
	}
	for i, e := range got {
		a := e.Action
		if e.ID != ids[i] || !e.At.Equal(actionsAt.Add(time.Duration(i)*time.Second)) || a.Policy != want[i].Policy || a.Action != want[i].Action ||
			a.Result != want[i].Result || a.Error != want[i].Error || a.DryRun != want[i].DryRun {
			t.Errorf("entry %d = %+v at %v, want %+v", i, a, e.At, want[i])
		}
	}
	ev := got[0].Action.Evidence
	if got[0].Action.Resource == nil || got[0].Action.Resource.ID != "i-1" || ev.Spent == nil || *ev.Spent != gpucost.USD(21_000e9) ||
		ev.Percent != 105 || ev.ScopeTags["team"] != "research" || *ev.SpotCap != 2 {
		t.Errorf("entry 0 evidence = %+v, resource %+v", ev, got[0].Action.Resource)
	}
	if n := got[1].Action; len(n.Targets) != 1 || strings.Join(n.Evidence.Resources, ",") != "i-1,i-2" || n.Resource != nil {
		t.Errorf("notify entry = %+v", n)
	}
}

func testActionsFilters(t *testing.T, open OpenActions) {
	ctx := context.Background()
	log := open(t)
	for i, a := range []enforce.Action{
		stopAction("p1", "i-1", enforce.ResultDone), stopAction("p2", "i-1", enforce.ResultPlanned),
		stopAction("p1", "i-2", enforce.ResultDone), stopAction("p2", "i-3", enforce.ResultPlanned),
	} {
		if _, err := log.RecordAction(ctx, actionsAt.Add(time.Duration(i)*time.Hour), a); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		f    enforce.LogFilter
		want string
	}{
		{"all", enforce.LogFilter{}, "p1/i-1 p2/i-1 p1/i-2 p2/i-3"},
		{"policy", enforce.LogFilter{Policy: "p1"}, "p1/i-1 p1/i-2"},
		{"resource", enforce.LogFilter{Resource: "i-1"}, "p1/i-1 p2/i-1"},
		{"since", enforce.LogFilter{Since: actionsAt.Add(2 * time.Hour)}, "p1/i-2 p2/i-3"},
		{"latest 3, oldest first", enforce.LogFilter{Limit: 3}, "p2/i-1 p1/i-2 p2/i-3"},
		{"none", enforce.LogFilter{Policy: "nope"}, ""},
	} {
		got, err := log.Actions(ctx, tc.f)
		if err != nil {
			t.Fatalf("Actions(%s) = %v", tc.name, err)
		}
		var keys []string
		for _, e := range got {
			keys = append(keys, e.Action.Policy+"/"+e.Action.Resource.ID)
		}
		if s := strings.Join(keys, " "); s != tc.want {
			t.Errorf("Actions(%s) = %q, want %q", tc.name, s, tc.want)
		}
	}
}

func testActionsRejectIncomplete(t *testing.T, open OpenActions) {
	ctx := context.Background()
	log := open(t)
	for _, a := range []enforce.Action{{Action: enforce.ActStop, Result: "done"}, {Policy: "p", Result: "done"}, {Policy: "p", Action: enforce.ActStop}} {
		if _, err := log.RecordAction(ctx, actionsAt, a); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("RecordAction(%+v) = %v, want EInvalid", a, err)
		}
	}
	if got, err := log.Actions(ctx, enforce.LogFilter{}); err != nil || len(got) != 0 {
		t.Errorf("after refusals: %d entries, %v; want none", len(got), err)
	}
}
