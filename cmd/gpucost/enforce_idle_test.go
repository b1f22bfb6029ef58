package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/fakecloud"
)

// idlePolicy stops machines whose GPUs sat below 5% for an hour.
const idlePolicy = `policies:
  - name: idle-dev
    idle: {below: 5%, for: 60m}
    actions: [stop]
    dry_run: false
`

// idleStore is a store holding two machines of the inventory: nb-idle's GPU at 1% and
// nb-busy's at 50% for the two hours before budgetNow, and nb-silent that stopped reporting an
// hour before.
func idleStore(t *testing.T, dir string) string {
	t.Helper()
	return idleStoreIn(t, dir+"/idle.db")
}

// idleStoreIn adds idleStore's inventory and telemetry to the store db.
func idleStoreIn(t *testing.T, db string) string {
	t.Helper()
	e := &env{getenv: func(string) string { return "" }, now: func() time.Time { return budgetNow }, dbPath: db}
	ctx := context.Background()
	st, err := e.openDB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	inv := []gpucost.InventoryEntry{{ResourceID: "i-idle", Host: "nb-idle", Provider: "aws", InstanceType: "g5.2xlarge", GPUs: 1},
		{ResourceID: "i-busy", Host: "nb-busy", Provider: "aws", InstanceType: "g5.2xlarge", GPUs: 1},
		{ResourceID: "i-silent", Host: "nb-silent", Provider: "aws", InstanceType: "g5.2xlarge", GPUs: 1}}
	if _, _, err := st.PutInventory(ctx, inv); err != nil {
		t.Fatal(err)
	}
	w, err := e.rollupWriter(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	for at := budgetNow.Add(-2 * time.Hour); at.Before(budgetNow); at = at.Add(time.Minute) {
		for host, util := range map[string]float64{"nb-idle": 1, "nb-busy": 50, "nb-silent": 0} {
			if host == "nb-silent" && !at.Before(budgetNow.Add(-time.Hour)) {
				continue
			}
			s := gpucost.NewSample(at.Add(10*time.Second), gpucost.GPU{UUID: "GPU-" + host, Host: host})
			s.Util = util
			if err := w.Add(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	return db
}

// decision is what a plan decided of one resource, in a form two runs compare by.
func decisions(actions []enforce.Action) []string {
	var out []string
	for _, a := range actions {
		v := a.Evidence.Idle
		out = append(out, fmt.Sprintf("%s %s %s dry=%v %s covered=%d max=%.1f", a.Policy, a.Action, a.Resource.ID, a.DryRun, v.State, v.Covered, v.MaxUtil))
	}
	return out
}

// TestEnforceIdleSameInServe: gpucost enforce from cron and serve's check loop decide the same
// on the same store at the same time: only the idle machine is stopped (a rehearsal on the
// store's inventory, so planned as a dry run), the busy one and the one that stopped reporting
// are left alone.
func TestEnforceIdleSameInServe(t *testing.T) {
	dir := t.TempDir()
	db := idleStore(t, dir)
	policies := writeFile(t, dir, "idle.yaml", idlePolicy)

	o := serveOptions{flush: time.Second, keepMinutes: 24 * time.Hour, viewsEvery: time.Minute, maxBill: 1 << 20, checkEvery: 50 * time.Millisecond,
		enforce: serveEnforceOptions{policies: policies}}
	srv := startEnforcingServer(t, db, o)
	waitFor(t, func() bool { return strings.Contains(srv.logs.String(), "policy triggered") }, "serve's idle policy triggered")
	logged := srv.actions(t, "?policy=idle-dev")
	srv.stop()
	var served []enforce.Action
	for _, en := range logged {
		served = append(served, en.Action)
	}

	code, out, errb := runEnforceCLI(t, db, "enforce", "--policies", policies, "--apply", "--replay=false", "--output", "json")
	if code != exitPolicy {
		t.Fatalf("gpucost enforce = %d, want %d (a policy triggered)\n%s%s", code, exitPolicy, out, errb)
	}
	var plan enforce.Plan
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("gpucost enforce --output json: %v\n%s", err, out)
	}
	want := []string{"idle-dev stop i-idle dry=true idle covered=60 max=1.0"}
	if got := decisions(plan.Actions); !reflect.DeepEqual(got, want) {
		t.Errorf("gpucost enforce decided %q, want %q", got, want)
	}
	if got := decisions(served); !reflect.DeepEqual(got, want) {
		t.Errorf("serve decided %q, want %q as gpucost enforce did", got, want)
	}
	r := plan.Policies[0]
	if !strings.Contains(r.Reason, "1 of 3 running resources in scope idle") || !strings.Contains(r.Reason, "1 busy, 1 without data") {
		t.Errorf("reason = %q, want 1 of 3 idle, 1 busy, 1 without data", r.Reason)
	}
}

// TestEnforceScheduleUndo: an off-hours policy scales a notebook's StatefulSet to zero with
// --apply; gpucost enforce avoided counts its GPU-hours while it is in force; gpucost enforce
// undo scales it back to the recorded 2 replicas, after which nothing is in force.
func TestEnforceScheduleUndo(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/undo.db"
	kube := fakecloud.NewKube(t, enforceKubeToken, []fakecloud.Deployment{
		{StatefulSet: true, Namespace: "kubeflow-ada", Name: "ada-notebook", Replicas: 2, GPUsPerPod: 1, Labels: map[string]string{"env": "dev"}},
	})
	policies := writeFile(t, dir, "off.yaml", `policies:
  - name: dev-off-hours
    schedule: {off: "Fri 08:00-12:00", zone: UTC}
    scope: {tags: {env: dev}}
    actions: [scale-to-zero]
    dry_run: false
`)
	kubeFlags := []string{"--kube-server", kube.URL, "--kube-statefulsets"}
	code, out, errb := runEnforceCLI(t, db, append([]string{"enforce", "--policies", policies, "--apply", "--replay=false"}, kubeFlags...)...)
	if code != exitPolicy || kube.StatefulSet("kubeflow-ada", "ada-notebook").Replicas != 0 {
		t.Fatalf("gpucost enforce --apply = %d, replicas %d; want 7 and the StatefulSet at 0\n%s%s", code, kube.StatefulSet("kubeflow-ada", "ada-notebook").Replicas, out, errb)
	}
	if !strings.Contains(out, "off-hours until Fri 12:00 UTC") {
		t.Errorf("the plan lacks the schedule's evidence:\n%s", out)
	}
	var logged []enforce.LogEntry
	_, js, _ := runEnforceCLI(t, db, "enforce", "log", "--output", "json")
	if err := json.Unmarshal([]byte(js), &logged); err != nil || len(logged) != 1 || logged[0].Action.Size != 2 || logged[0].Action.GPUs != 2 {
		t.Fatalf("enforce log = %v %s; want one scale-to-zero recording 2 replicas and 2 GPUs", err, js)
	}
	id := strconv.FormatInt(logged[0].ID, 10)
	_, avoided, _ := runEnforceCLI(t, db, "enforce", "avoided")
	if !strings.Contains(avoided, "in force (now)") {
		t.Errorf("enforce avoided:\n%s\nwant the scale-down in force", avoided)
	}

	code, out, errb = runEnforceCLI(t, db, append([]string{"enforce", "undo", id, "--apply"}, kubeFlags...)...)
	if code != 0 || kube.StatefulSet("kubeflow-ada", "ada-notebook").Replicas != 2 {
		t.Fatalf("gpucost enforce undo %s = %d, replicas %d; want 0 and 2 replicas again\n%s%s", id, code, kube.StatefulSet("kubeflow-ada", "ada-notebook").Replicas, out, errb)
	}
	if code, _, errb := runEnforceCLI(t, db, append([]string{"enforce", "undo", id, "--apply"}, kubeFlags...)...); code == 0 || !strings.Contains(errb, "already reversed") {
		t.Errorf("a second undo = %d %s; want a refusal", code, errb)
	}
	_, js, _ = runEnforceCLI(t, db, "enforce", "avoided", "--output", "json")
	var av []struct {
		InForce bool `json:"in_force"`
	}
	if err := json.Unmarshal([]byte(js), &av); err != nil || len(av) != 1 || av[0].InForce {
		t.Errorf("enforce avoided after the undo = %v %s; want the scale-down closed", err, js)
	}
	if code, _, errb := runEnforceCLI(t, db, "enforce", "undo", "999"); code == 0 || !strings.Contains(errb, "no action 999") {
		t.Errorf("undo 999 = %d %s; want not found", code, errb)
	}
}

// TestEnforceReplayOneDocument: with the replay on, --output json is one document (the plan,
// with the replay under "replay") and --output csv the plan's rows alone, so that scripts read
// one document either way; without a bill to price the replay, the plan comes alone and stderr
// says why.
func TestEnforceReplayOneDocument(t *testing.T) {
	type doc struct {
		Actions []enforce.Action `json:"actions"`
		Replay  map[string]any   `json:"replay"`
	}
	read := func(t *testing.T, out, errb string) doc {
		t.Helper()
		var d doc
		dec := json.NewDecoder(strings.NewReader(out))
		if err := dec.Decode(&d); err != nil {
			t.Fatalf("gpucost enforce --output json: %v\n%s%s", err, out, errb)
		}
		if dec.More() {
			t.Errorf("gpucost enforce --output json wrote more than one document:\n%s", out)
		}
		return d
	}
	dir := t.TempDir()
	policies := writeFile(t, dir, "idle.yaml", idlePolicy)

	db := idleStore(t, dir)
	_, out, errb := runEnforceCLI(t, db, "enforce", "--policies", policies, "--output", "json")
	if d := read(t, out, errb); len(d.Actions) != 1 || d.Replay != nil || !strings.Contains(errb, "not replayed") {
		t.Errorf("without a bill: %d actions, replay %v, stderr %q; want the idle machine's stop, no replay and why", len(d.Actions), d.Replay, errb)
	}

	db = idleStoreIn(t, demoBillStore(t, t.TempDir()))
	_, out, errb = runEnforceCLI(t, db, "enforce", "--policies", policies, "--output", "json")
	if d := read(t, out, errb); len(d.Actions) != 1 || d.Replay == nil {
		t.Errorf("with a bill: %d actions, replay %v; want the idle machine's stop and the replay\n%s%s", len(d.Actions), d.Replay, out, errb)
	}
	_, out, errb = runEnforceCLI(t, db, "enforce", "--policies", policies, "--output", "csv")
	if n := strings.Count(out, "policy,action,"); n != 1 || !strings.Contains(errb, "left out of CSV") {
		t.Errorf("gpucost enforce --output csv: %d headers (want 1), stderr %q\n%s", n, errb, out)
	}
}
