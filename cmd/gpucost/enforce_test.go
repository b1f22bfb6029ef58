package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/fakecloud"
)

const (
	enforceAWSSecret = "enforce-cli-aws-secret-0d9e"
	enforceKubeToken = "enforce-cli-kube-token-51ab"
	opsSecret        = "ops-hmac-secret-c3d2"
)

// The policies the enforcement tests apply to the demo bill: research-tight ($50,000 of GPU
// spend) is some 70% spent by 20 November.
const enforcePolicies = `policies:
  - name: research-stop
    budget: research-tight
    over: 60%
    unless_tags: {approved: "true"}
    scope: {team: research}
    actions: [notify, tag, stop, scale-to-zero]
    notify: [ops]
    dry_run: false
  - name: spot-cap
    max_spot_instances: 1
    actions: [stop]
    dry_run: false
  - name: roomy-watch
    budget: research-roomy
    over: 90%
    actions: [tag]
`

func runEnforceCLI(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	environ := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDCLITEST", "AWS_SECRET_ACCESS_KEY": enforceAWSSecret,
		"GPUCOST_KUBE_TOKEN": enforceKubeToken, "OPS_SECRET": opsSecret}
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] },
		now: func() time.Time { return budgetNow }}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	if s := out.String() + errb.String(); strings.Contains(s, enforceAWSSecret) || strings.Contains(s, enforceKubeToken) || strings.Contains(s, opsSecret) {
		t.Errorf("a secret is in the output:\n%s", s)
	}
	return code, out.String(), errb.String()
}

func enforceFleet(t *testing.T) (*fakecloud.AWS, *fakecloud.Kube) {
	at := budgetNow.Add(-48 * time.Hour)
	research := func(kv ...string) map[string]string {
		m := map[string]string{"team": "research"}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	aws := fakecloud.NewAWS(t, []fakecloud.Instance{
		{ID: "i-exp1", Type: "p3.8xlarge", State: "running", Launched: at, Tags: research()},
		{ID: "i-ok", Type: "p3.8xlarge", State: "running", Launched: at, Tags: research("approved", "true")},
		{ID: "i-spotA", Type: "g5.xlarge", State: "running", Spot: true, Launched: at, Tags: map[string]string{"team": "inference"}},
		{ID: "i-spotB", Type: "g5.xlarge", State: "running", Spot: true, Launched: at.Add(time.Hour), Tags: map[string]string{"team": "inference"}},
	}, []fakecloud.Endpoint{
		{Name: "research-llm", Config: "research-llm-cfg", InstanceType: "ml.g5.2xlarge", Status: "InService", Instances: 1, Created: at,
			Tags: research(), Components: map[string]int{"llm-7b": 1}},
	})
	kube := fakecloud.NewKube(t, enforceKubeToken, []fakecloud.Deployment{
		{Namespace: "research", Name: "notebook-gpu", Replicas: 2, GPUsPerPod: 1, Labels: research(), Created: at},
	})
	return aws, kube
}

func TestEnforceDryRunThenApply(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	policies := writeFile(t, dir, "policies.yaml", enforcePolicies)
	hook := &hookReceiver{t: t, secret: opsSecret}
	srv := httptest.NewServer(hook)
	defer srv.Close()
	targets := writeFile(t, dir, "targets.yaml", fmt.Sprintf("targets:\n  ops: {webhook: {url: %s, secret_env: OPS_SECRET}}\n", srv.URL))
	aws, kube := enforceFleet(t)
	args := []string{"enforce", "--policies", policies, "--budgets", budgets, "--targets", targets,
		"--aws-region", "us-east-1", "--aws-endpoint", aws.URL, "--kube-server", kube.URL}

	code, out, errOut := runEnforceCLI(t, db, args...)
	if code != exitPolicy {
		t.Fatalf("enforce (dry run): exit %d, want %d; stderr %s\n%s", code, exitPolicy, errOut, out)
	}
	for _, want := range []string{"dry run: nothing changed", "research-stop", "stop", "i-exp1", "planned (dry run)", "research-tight 2026-11 actual",
		"spot-cap", "i-spotB", "spot 2 > cap 1, newest #1", "exempt: i-ok", "roomy-watch [research-roomy actual ≥ 90%]: not triggered"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	for _, c := range aws.Calls() {
		if c.Action != "DescribeInstances" && !strings.HasPrefix(c.Action, "List") && !strings.HasPrefix(c.Action, "Describe") {
			t.Errorf("dry run called %s %s", c.Service, c.Action)
		}
	}
	if len(kube.Calls()) != 1 || hook.hits.Load() != 0 {
		t.Errorf("dry run: %d Kubernetes calls, %d webhook hits; want the list only", len(kube.Calls()), hook.hits.Load())
	}

	code, out, errOut = runEnforceCLI(t, db, append(args, "--apply", "--output", "json")...)
	if code != exitPolicy {
		t.Fatalf("enforce --apply: exit %d; stderr %s\n%s", code, errOut, out)
	}
	var plan struct {
		Apply   bool
		Actions []struct {
			Policy, Action, Result, Error string
			Resource                      *struct{ ID string }
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("enforce --apply json: %v\n%s", err, out)
	}
	var got []string
	for _, a := range plan.Actions {
		id := "-"
		if a.Resource != nil {
			id = a.Resource.ID
		}
		got = append(got, a.Policy+" "+a.Action+" "+id+" "+a.Result)
	}
	want := []string{
		"research-stop notify - done",
		"research-stop tag i-exp1 done", "research-stop tag research-llm done", "research-stop tag research/notebook-gpu done",
		"research-stop stop i-exp1 done",
		"research-stop scale-to-zero research-llm done", "research-stop scale-to-zero research/notebook-gpu done",
		"spot-cap stop i-spotB done",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("enforce --apply actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if aws.Instance("i-exp1").State != "stopping" || aws.Instance("i-ok").State != "running" || aws.Instance("i-spotB").State != "stopping" ||
		aws.Instance("i-spotA").State != "running" || aws.Instance("i-exp1").Tags["gpucost-policy"] != "research-stop" {
		t.Errorf("instances after --apply: %+v %+v %+v", aws.Instance("i-exp1"), aws.Instance("i-ok"), aws.Instance("i-spotB"))
	}
	if e := aws.Endpoint("research-llm"); e.Components["llm-7b"] != 0 {
		t.Errorf("research-llm after --apply: %+v", e)
	}
	if d := kube.Deployment("research", "notebook-gpu"); d.Replicas != 0 || d.Annotations["gpucost-policy"] != "research-stop" {
		t.Errorf("notebook-gpu after --apply: %+v", d)
	}
	if p := hook.payloads(); len(p) != 1 || p[0].Key != "policy:research-stop:2026-11" || !strings.Contains(p[0].Text, "i-exp1") {
		t.Errorf("webhook payloads = %+v", p)
	}

	// Run again: the stopped instances are no longer running, and the alert went out already.
	code, out, errOut = runEnforceCLI(t, db, append(args, "--apply")...)
	if code != exitPolicy || strings.Contains(out, "i-exp1") || hook.hits.Load() != 1 {
		t.Errorf("second --apply: exit %d, webhook hits %d; stderr %s\n%s", code, hook.hits.Load(), errOut, out)
	}

	checkEnforceLog(t, db)
	checkEnforceAudit(t, db)
}

// checkEnforceLog checks the log of a dry run and an applied run: both logged, with evidence.
func checkEnforceLog(t *testing.T, db string) {
	code, out, errOut := runEnforceCLI(t, db, "enforce", "log", "--policy", "spot-cap")
	if code != exitOK || strings.Count(out, "i-spotB") != 2 || !strings.Contains(out, "planned") || !strings.Contains(out, "done") {
		t.Errorf("enforce log --policy spot-cap: exit %d; stderr %s\n%s", code, errOut, out)
	}
	code, out, _ = runEnforceCLI(t, db, "enforce", "log", "--output", "json", "--resource", "i-exp1")
	var entries []struct {
		Action struct {
			Action, Result string
			DryRun         bool `json:"dry_run"`
			Evidence       struct {
				Budget, Spent string
				ScopeTags     map[string]string `json:"scope_tags"`
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &entries); code != exitOK || err != nil || len(entries) != 4 {
		t.Fatalf("enforce log json: exit %d, %v\n%s", code, err, out)
	}
	if ev := entries[3].Action.Evidence; ev.Budget != "research-tight" || ev.Spent == "" || ev.ScopeTags["team"] != "research" || entries[0].Action.Result != "planned" || !entries[0].Action.DryRun {
		t.Errorf("enforce log entries = %+v", entries)
	}
}

func TestEnforceInvalid(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	policies := writeFile(t, dir, "policies.yaml", enforcePolicies)
	bad := writeFile(t, dir, "bad.yaml", "policies:\n  - name: p\n    budget: research-tihgt\n    over: 100%\n    actions: [stop]\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"enforce"}, "--policies is required"},
		{[]string{"enforce", "--policies", bad, "--budgets", budgets}, `bad.yaml line 3: policies[0].budget: "research-tihgt" is not a budget`},
		{[]string{"enforce", "--policies", policies}, "no budgets were given; pass the budgets file (--budgets)"},
		{[]string{"enforce", "--policies", policies, "--budgets", budgets, "--apply"}, "--targets is required: policy research-stop"},
		{[]string{"enforce", "--policies", policies, "--budgets", budgets, "--kube-server", "http://127.0.0.1:1", "--kube-token-file", dir + "/none"}, "--kube-token-file"},
	} {
		code, out, errOut := runEnforceCLI(t, db, tc.args...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q, want %d and %q\n%s", tc.args, code, errOut, exitInvalid, tc.want, out)
		}
	}
	code, _, errOut := runEnforceCLI(t, db, "enforce", "--policies", policies, "--budgets", budgets, "--aws-region", "us-east-1", "--aws-endpoint", "http://127.0.0.1:1")
	if code != exitUnavailable || !strings.Contains(errOut, "cannot be reached") {
		t.Errorf("unreachable AWS: exit %d, stderr %s", code, errOut)
	}
}

func TestEstimateWithPolicies(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	roomy := writeFile(t, dir, "roomy.yaml", strings.Split(demoBudgets, "  - name: research-tight")[0])
	job := writeFile(t, dir, "job.yaml", demoJob)
	_, out, _ := runBudgetCLI(t, db, "budget", "status", "--file", roomy, "--output", "json")
	var st []struct{ Percent float64 }
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st) != 1 {
		t.Fatalf("budget status: %v\n%s", err, out)
	}
	// A guard just above the spend so far: the $2,107.93 job (2.1% of $100,000) takes it over.
	over := strconv.FormatFloat(st[0].Percent+1, 'f', 2, 64)
	guard := writeFile(t, dir, "guard.yaml", "policies:\n  - name: roomy-guard\n    budget: research-roomy\n    over: "+over+"%\n"+
		"    unless_tags: {approved: \"true\"}\n    actions: [notify, stop]\n    notify: [ops]\n")
	code, out, errOut := runEnforceCLI(t, db, "estimate", job, "--budgets", roomy, "--policies", guard, "--against", "actual")
	if code != exitPolicy || !strings.Contains(out, "BLOCKED: policy roomy-guard would stop it") || !strings.Contains(errOut, "plus the job's $2,107.93") {
		t.Errorf("estimate over the guard: exit %d, want %d; stderr %s\n%s", code, exitPolicy, errOut, out)
	}
	approved := writeFile(t, dir, "approved.yaml", strings.Replace(demoJob, "scope: {team: research}", "scope: {team: research, tags: {approved: \"true\"}}", 1))
	if code, out, errOut := runEnforceCLI(t, db, "estimate", approved, "--budgets", roomy, "--policies", guard, "--against", "actual", "--output", "json"); code != exitOK ||
		!strings.Contains(out, `"policy_blocks": []`) {
		t.Errorf("approved job: exit %d; stderr %s\n%s", code, errOut, out)
	}

	aws, _ := enforceFleet(t)
	spot := writeFile(t, dir, "spot.yaml", "name: sweep\ninstance_type: g5.xlarge\ncount: 2\nhours: 4\npricing: spot\nprice_per_hour: 0.5\nscope: {team: inference}\n")
	capFile := writeFile(t, dir, "cap.yaml", "policies:\n  - name: spot-cap\n    max_spot_instances: 3\n    actions: [stop]\n")
	if code, out, errOut := runEnforceCLI(t, db, "estimate", spot, "--policies", capFile); code != exitOK || !strings.Contains(out, "no --aws-region given") {
		t.Errorf("spot job, nothing running counted: exit %d; stderr %s\n%s", code, errOut, out)
	}
	code, out, errOut = runEnforceCLI(t, db, "estimate", spot, "--policies", capFile, "--aws-region", "us-east-1", "--aws-endpoint", aws.URL)
	if code != exitPolicy || !strings.Contains(errOut, "2 spot instances running in scope plus the job's 2 make 4, over the cap of 3") {
		t.Errorf("spot job over the cap: exit %d; stderr %s\n%s", code, errOut, out)
	}
	if c := aws.Calls(); len(c) != 1 || c[0].Form.Get("Filter.2.Name") != "instance-lifecycle" {
		t.Errorf("spot count calls = %+v, want one DescribeInstances with the spot filter", c)
	}
}
