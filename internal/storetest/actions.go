package storetest

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// RunActions runs the cases of gpucost.ActionLog, the enforcement action log: every record
// kept with its columns and its detail, read back oldest first, filtered by time, policy and
// resource, the latest N, incomplete records refused, and enforce's actions kept whole.
func RunActions(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"RoundTrip", testActionsRoundTrip},
		{"Filters", testActionsFilters},
		{"RejectsIncomplete", testActionsRejectIncomplete},
		{"ThroughEnforce", testActionsThroughEnforce},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

var actionsAt = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

// stopRecord is a stop action's record, with detail as package enforce writes it.
func stopRecord(at time.Time, policy, id, result string) gpucost.ActionRecord {
	return gpucost.ActionRecord{At: at, Policy: policy, Action: "stop", ResourceKind: "ec2-instance", ResourceID: id, Result: result,
		Detail: []byte(`{"policy":"` + policy + `","action":"stop","resource":{"kind":"ec2-instance","id":"` + id + `","region":"us-east-1"},` +
			`"dry_run":false,"evidence":{"rule":"research-gpus actual ≥ 100%","reason":"budget research-gpus in 2026-11: 105% of $20,000.00",` +
			`"spent":"21000","amount":"20000","percent":105,"spot_cap":2,"scope_tags":{"team":"research"}},"result":"` + result + `"}`)}
}

// sameJSON reports whether a and b hold the same JSON value, whatever their spacing and key
// order (PostgreSQL keeps detail as jsonb, which normalises both).
func sameJSON(a, b []byte) bool {
	var va, vb any
	return json.Unmarshal(a, &va) == nil && json.Unmarshal(b, &vb) == nil && reflect.DeepEqual(va, vb)
}

func testActionsRoundTrip(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	failed := stopRecord(actionsAt.Add(2*time.Second), "spot-cap", "i-2", "failed")
	failed.Error = "EC2 StopInstances i-2: UnsupportedOperation"
	want := []gpucost.ActionRecord{
		stopRecord(actionsAt.Add(123), "research-over-budget", "i-1", "done"),
		{At: actionsAt.Add(time.Second), Policy: "research-over-budget", Action: "notify", DryRun: true, Result: "planned",
			Detail: []byte(`{"policy":"research-over-budget","action":"notify","targets":["ops-slack"],"dry_run":true,` +
				`"evidence":{"rule":"r","reason":"","resources":["i-1","i-2"]},"result":"planned"}`)},
		failed,
	}
	var ids []int64
	for _, r := range want {
		r.ID = 99 // ignored
		id, err := log.RecordAction(ctx, r)
		if err != nil {
			t.Fatalf("RecordAction(%s %s) = %v", r.Policy, r.Action, err)
		}
		ids = append(ids, id)
	}
	if ids[0] >= ids[1] || ids[1] >= ids[2] {
		t.Errorf("ids = %v, want increasing", ids)
	}
	got, err := log.Actions(ctx, gpucost.ActionFilter{})
	if err != nil || len(got) != 3 {
		t.Fatalf("Actions() = %d records, %v; want 3", len(got), err)
	}
	for i, r := range got {
		w := want[i]
		w.ID = ids[i]
		if !sameJSON(r.Detail, w.Detail) || !r.At.Equal(w.At) || r.At.Location() != time.UTC {
			t.Errorf("record %d detail %s at %v; want %s at %v", i, r.Detail, r.At, w.Detail, w.At)
		}
		r.Detail, w.Detail, r.At, w.At = nil, nil, time.Time{}, time.Time{}
		if !reflect.DeepEqual(r, w) {
			t.Errorf("record %d = %+v, want %+v", i, r, w)
		}
	}
}

func testActionsFilters(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	for i, r := range []gpucost.ActionRecord{
		stopRecord(actionsAt, "p1", "i-1", "done"), stopRecord(actionsAt.Add(time.Hour), "p2", "i-1", "planned"),
		stopRecord(actionsAt.Add(2*time.Hour), "p1", "i-2", "done"), stopRecord(actionsAt.Add(3*time.Hour), "p2", "i-3", "planned"),
	} {
		if _, err := log.RecordAction(ctx, r); err != nil {
			t.Fatalf("RecordAction(%d) = %v", i, err)
		}
	}
	for _, tc := range []struct {
		name string
		f    gpucost.ActionFilter
		want string
	}{
		{"all", gpucost.ActionFilter{}, "p1/i-1 p2/i-1 p1/i-2 p2/i-3"},
		{"policy", gpucost.ActionFilter{Policy: "p1"}, "p1/i-1 p1/i-2"},
		{"resource", gpucost.ActionFilter{Resource: "i-1"}, "p1/i-1 p2/i-1"},
		{"since", gpucost.ActionFilter{Since: actionsAt.Add(2 * time.Hour)}, "p1/i-2 p2/i-3"},
		{"latest 3, oldest first", gpucost.ActionFilter{Limit: 3}, "p2/i-1 p1/i-2 p2/i-3"},
		{"none", gpucost.ActionFilter{Policy: "nope"}, ""},
	} {
		got, err := log.Actions(ctx, tc.f)
		if err != nil {
			t.Fatalf("Actions(%s) = %v", tc.name, err)
		}
		var keys []string
		for _, r := range got {
			keys = append(keys, r.Policy+"/"+r.ResourceID)
		}
		if s := strings.Join(keys, " "); s != tc.want {
			t.Errorf("Actions(%s) = %q, want %q", tc.name, s, tc.want)
		}
	}
	if _, err := log.Actions(ctx, gpucost.ActionFilter{Limit: -1}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Actions(limit -1) = %v, want EInvalid", err)
	}
}

func testActionsRejectIncomplete(t *testing.T, open Open) {
	ctx := context.Background()
	log := open(t)
	ok := stopRecord(actionsAt, "p", "i-1", "done")
	for name, change := range map[string]func(*gpucost.ActionRecord){
		"no time":         func(r *gpucost.ActionRecord) { r.At = time.Time{} },
		"no policy":       func(r *gpucost.ActionRecord) { r.Policy = "" },
		"no action":       func(r *gpucost.ActionRecord) { r.Action = "" },
		"no result":       func(r *gpucost.ActionRecord) { r.Result = "" },
		"no detail":       func(r *gpucost.ActionRecord) { r.Detail = nil },
		"detail not JSON": func(r *gpucost.ActionRecord) { r.Detail = []byte("{stop") },
		"detail a list":   func(r *gpucost.ActionRecord) { r.Detail = []byte("[]") },
	} {
		r := ok
		change(&r)
		if _, err := log.RecordAction(ctx, r); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("RecordAction(%s) = %v, want EInvalid", name, err)
		}
	}
	if got, err := log.Actions(ctx, gpucost.ActionFilter{}); err != nil || len(got) != 0 {
		t.Errorf("after refusals: %d records, %v; want none", len(got), err)
	}
}
