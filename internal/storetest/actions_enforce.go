package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// testActionsThroughEnforce checks that actions written and read through enforce.Log, the way
// the runner and the API use the log, come back whole, evidence and all: what enforce writes
// in Detail survives the store (PostgreSQL's jsonb reorders it).
func testActionsThroughEnforce(t *testing.T, open Open) {
	ctx := context.Background()
	log := enforce.Log{Store: open(t)}
	spent, amount, limit := gpucost.USD(21_000e9), gpucost.USD(20_000e9), 2
	stop := enforce.Action{Policy: "research-over-budget", Action: enforce.ActStop, Result: enforce.ResultFailed,
		Error:    "EC2 StopInstances i-2: UnsupportedOperation",
		Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-2", Region: "us-east-1"},
		Evidence: enforce.Evidence{Rule: "research-gpus actual ≥ 100%", Reason: "budget research-gpus in 2026-11: 105% of $20,000.00",
			Budget: "research-gpus", Period: "2026-11", Currency: "USD", Spent: &spent, Amount: &amount, Percent: 105, SpotCap: &limit,
			ScopeTags: map[string]string{"team": "research"}}}
	notice := enforce.Action{Policy: "research-over-budget", Action: enforce.ActNotify, Targets: []string{"ops-slack"}, DryRun: true,
		Result: enforce.ResultPlanned, Evidence: enforce.Evidence{Rule: "r", Resources: []string{"i-1", "i-2"}}}
	want := []enforce.Action{stop, notice}
	for i, a := range want {
		if _, err := log.RecordAction(ctx, actionsAt.Add(time.Duration(i)*time.Second), a); err != nil {
			t.Fatalf("RecordAction(%s) = %v", a.Action, err)
		}
	}
	got, err := log.Actions(ctx, gpucost.ActionFilter{})
	if err != nil || len(got) != len(want) {
		t.Fatalf("Actions() = %d entries, %v; want %d", len(got), err, len(want))
	}
	for i, e := range got {
		if !reflect.DeepEqual(e.Action, want[i]) || !e.At.Equal(actionsAt.Add(time.Duration(i)*time.Second)) {
			t.Errorf("entry %d = %+v at %v; want %+v", i, e.Action, e.At, want[i])
		}
	}
}
