package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/internal/fakecloud"
)

// serveStopPolicy stops research's unapproved instances once research-tight is 60% spent,
// which the demo bill is by 20 November.
const serveStopPolicy = `policies:
  - name: research-stop
    budget: research-tight
    over: 60%
    unless_tags: {approved: "true"}
    scope: {team: research}
    actions: [stop]
    dry_run: false
`

// enforcingServer is gpucost serve with --policies over the demo bill at budgetNow.
type enforcingServer struct {
	url, viewer string
	logs        *lockedBuffer
	stop        func()
}

func startEnforcingServer(t *testing.T, db string, o serveOptions) *enforcingServer {
	t.Helper()
	_, secret, _ := runAt(t, db, budgetNow, "token", "create", "--name", "viewer", "--role", "viewer")
	s := &enforcingServer{viewer: strings.TrimSpace(secret), logs: &lockedBuffer{}}
	environ := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDSERVETEST", "AWS_SECRET_ACCESS_KEY": enforceAWSSecret}
	e := liveEnv(db, s.logs, func(k string) string { return environ[k] })
	e.now = func() time.Time { return budgetNow }
	store, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.serve(ctx, store, ln, o) }()
	s.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		store.Close()
		if strings.Contains(s.logs.String(), enforceAWSSecret) {
			t.Error("the server log holds the AWS secret")
		}
	}
	return s
}

// actions reads GET /api/v1/actions with query.
func (s *enforcingServer) actions(t *testing.T, query string) []enforce.LogEntry {
	t.Helper()
	req, _ := http.NewRequest("GET", s.url+"/api/v1/actions"+query, nil)
	req.Header.Set("Authorization", "Bearer "+s.viewer)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	var out httpapi.ActionsResponse
	if err := json.Unmarshal(body, &out); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /api/v1/actions%s = %d %s", query, res.StatusCode, body)
	}
	return out.Actions
}

func stopCalls(aws *fakecloud.AWS) []string {
	var ids []string
	for _, c := range aws.Calls() {
		if c.Action == "StopInstances" {
			ids = append(ids, c.Form.Get("InstanceId.1"))
		}
	}
	return ids
}

// TestServeEnforce runs gpucost serve --policies against the fake EC2: without --apply the
// triggered policy's stop is logged once as planned however many checks run, and nothing is
// stopped; with --apply the unapproved instance is stopped, the approved one is not, and the
// action shows in /api/v1/actions as done with its evidence.
func TestServeEnforce(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	policies := writeFile(t, dir, "policies.yaml", serveStopPolicy)
	at := budgetNow.Add(-48 * time.Hour)
	aws := fakecloud.NewAWS(t, []fakecloud.Instance{
		{ID: "i-exp1", Type: "p3.8xlarge", State: "running", Launched: at, Tags: map[string]string{"team": "research"}},
		{ID: "i-ok", Type: "p3.8xlarge", State: "running", Launched: at, Tags: map[string]string{"team": "research", "approved": "true"}},
	}, nil)
	o := serveOptions{flush: time.Second, keepMinutes: 24 * time.Hour, viewsEvery: time.Minute, maxBill: 1 << 20,
		budgets: budgets, checkEvery: 50 * time.Millisecond,
		enforce: serveEnforceOptions{policies: policies, inv: inventoryFlags{regions: []string{"us-east-1"}, awsEndpoint: aws.URL, noSageMaker: true}}}

	dry := startEnforcingServer(t, db, o)
	waitFor(t, func() bool {
		return strings.Count(dry.logs.String(), "policy triggered") >= 3
	}, "three enforcement runs without --apply")
	got := dry.actions(t, "?policy=research-stop")
	if len(got) != 1 || got[0].Action.Result != enforce.ResultPlanned || !got[0].Action.DryRun || got[0].Action.Resource.ID != "i-exp1" {
		t.Errorf("after three dry runs the action log holds %+v; want i-exp1's stop planned once", got)
	}
	dry.stop()
	if ids := stopCalls(aws); len(ids) != 0 {
		t.Fatalf("serve without --apply stopped %v", ids)
	}

	o.enforce.apply = true
	live := startEnforcingServer(t, db, o)
	defer live.stop()
	waitFor(t, func() bool { return len(stopCalls(aws)) > 0 }, "StopInstances with --apply")
	waitFor(t, func() bool { return len(live.actions(t, "?result=done")) > 0 }, "the stop logged as done")
	done := live.actions(t, "?result=done")
	ev := done[0].Action.Evidence
	if len(done) != 1 || done[0].Action.Resource.ID != "i-exp1" || done[0].Action.DryRun || ev.Budget != "research-tight" ||
		ev.Rule != "research-tight actual ≥ 60%" || ev.Percent < 60 || ev.ScopeTags["team"] != "research" {
		t.Errorf("GET /api/v1/actions?result=done = %+v; want i-exp1 stopped with research-tight's figures as evidence", done)
	}
	time.Sleep(200 * time.Millisecond) // more checks: the stopped instance is no longer listed
	if ids := stopCalls(aws); len(ids) != 1 || ids[0] != "i-exp1" {
		t.Errorf("StopInstances calls = %v; want i-exp1 once (i-ok is approved)", ids)
	}
	if all := live.actions(t, ""); len(all) != 2 {
		t.Errorf("the action log holds %d actions; want the dry run's and the applied stop", len(all))
	}
	checkServeEnforceAudit(t, db)
}

// TestServeEnforceInventoryDown keeps serving when the cloud API cannot be reached: the error
// is logged at each check.
func TestServeEnforceInventoryDown(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	o := serveOptions{flush: time.Second, keepMinutes: 24 * time.Hour, viewsEvery: time.Minute, maxBill: 1 << 20,
		budgets: writeFile(t, dir, "budgets.yaml", demoBudgets), checkEvery: 50 * time.Millisecond,
		enforce: serveEnforceOptions{policies: writeFile(t, dir, "policies.yaml", serveStopPolicy), apply: true,
			inv: inventoryFlags{regions: []string{"us-east-1"}, awsEndpoint: closed, noSageMaker: true}}}
	s := startEnforcingServer(t, db, o)
	defer s.stop()
	waitFor(t, func() bool { return strings.Contains(s.logs.String(), "enforcement: list resources") }, "the inventory error in the log")
	res, err := http.Get(s.url + "/healthz")
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET /healthz with the cloud API down: %v %v", res, err)
	}
	res.Body.Close()
	if got := s.actions(t, ""); len(got) != 0 {
		t.Errorf("with no inventory the policy acted on %+v", got)
	}
}

// TestServeEnforceFlags refuses enforcement flags without --policies, and a policies file that
// names a budget the server lacks, before serving.
func TestServeEnforceFlags(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--apply"}, "need --policies"},
		{[]string{"--aws-region", "us-east-1"}, "need --policies"},
		{[]string{"--policies", writeFile(t, dir, "p.yaml", serveStopPolicy)}, "give --budgets FILE or PUT them"},
		{[]string{"--policies", writeFile(t, dir, "bad.yaml", "policies:\n  - name: x\n    budget: research-tight\n    over: lots\n    actions: [stop]\n"),
			"--budgets", writeFile(t, dir, "b.yaml", demoBudgets)}, "bad.yaml"},
	} {
		code, _, errOut := runAt(t, db, budgetNow, append([]string{"serve", "--listen", "127.0.0.1:0"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.says) {
			t.Errorf("serve %v: exit %d, %q; want %d saying %q", tc.args, code, errOut, exitInvalid, tc.says)
		}
	}
}
