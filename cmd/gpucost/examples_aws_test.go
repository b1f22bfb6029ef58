package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/fakecloud"
	"github.com/gpucost/gpucost/internal/storeopen"
)

// The AWS account the enforcement examples reach through $AWS_ENDPOINT_URL: internal/fakecloud's
// EC2 and SageMaker on loopback, with keys of the test's.
const (
	exampleAWSKey    = "AKIDEXAMPLES"
	exampleAWSSecret = "examples-aws-secret-7f41"
	exampleKubeToken = "examples-kube-token-2b9c"
)

// exampleAWSFleet is what the fake EC2 holds for each example that reads AWS: three running
// spot GPU instances, one over policies.yaml's spot-cap of two (the newest, i-spot3, is the one
// it stops), and a research p4d.24xlarge that research-over-budget scopes.
func exampleAWSFleet() []fakecloud.Instance {
	at := time.Now().Add(-48 * time.Hour)
	spot := func(id string, h int) fakecloud.Instance {
		return fakecloud.Instance{ID: id, Type: "g5.xlarge", State: "running", Spot: true, Launched: at.Add(time.Duration(h) * time.Hour),
			Tags: map[string]string{"team": "inference"}}
	}
	return []fakecloud.Instance{
		spot("i-spot1", 0), spot("i-spot2", 1), spot("i-spot3", 2),
		{ID: "i-research", Type: "p4d.24xlarge", State: "running", Launched: at, Tags: map[string]string{"team": "research"}},
	}
}

// awsExample is an example that reads AWS or the cluster at 10.0.0.1: the fakes it runs
// against, the environment that reaches them, and what it must leave there.
type awsExample struct {
	aws     *fakecloud.AWS
	kube    *fakecloud.Kube
	environ map[string]string
	check   func(x *awsExample, out string) string // "" or what is wrong
}

// awsExamples are the examples that read AWS or the cluster at 10.0.0.1, by the start of their
// command with its spaces made single: each runs against a fresh internal/fakecloud EC2 holding
// exampleAWSFleet and Kubernetes API holding exampleKubeFleet, as setup (where given) leaves
// them, and check says what it must have done there.
var awsExamples = []struct {
	prefix string
	setup  func(t *testing.T, dir string, x *awsExample, fleet []fakecloud.Instance, deps []fakecloud.Deployment)
	check  func(x *awsExample, out string) string
}{
	{"gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1 --kube-server {kube} --kube-token-file", tokenFile, spotCapAppliedListed},
	{"gpucost enforce --policies policies.yaml --budgets budgets.yaml --aws-region us-east-1", nil, spotCapPlanned},
	{"gpucost estimate job.yaml --budgets budgets.yaml --policies policies.yaml --aws-region us-east-1", nil, nothingChanged},
	{"gpucost serve --budgets budgets.yaml --targets targets.yaml --policies policies.yaml --aws-region us-east-1 --apply", nil, spotCapApplied},
	{"gpucost enforce undo 42 --aws-region us-east-1 --apply", storeWithStop42, startedSpot3},
	{"gpucost enforce undo 43 --kube-server {kube} --apply", storeWithScaleDown43, scaledBack},
}

// exampleKubeFleet is what the fake Kubernetes API holds: a research notebook Deployment of two
// one-GPU replicas.
func exampleKubeFleet() []fakecloud.Deployment {
	return []fakecloud.Deployment{{Namespace: "research", Name: "notebook-gpu", Replicas: 2, GPUsPerPod: 1,
		Labels: map[string]string{"team": "research"}, Created: time.Now().Add(-48 * time.Hour)}}
}

// isAWSExample reports whether line's command reads EC2 or SageMaker (names --aws-region) or
// the cluster at 10.0.0.1.
func isAWSExample(line string) bool {
	cmd := exampleCommand(line)
	return strings.Contains(cmd, " --aws-region ") || strings.Contains(cmd, "{kube}")
}

// startExampleAWS starts the fakes line reads and returns line with the cluster's URL in place
// and the fakes with the environment that reaches them, or nil where line reads neither; it
// fails the test for such an example that awsExamples lacks.
func startExampleAWS(t *testing.T, line, dir string) (string, *awsExample) {
	t.Helper()
	if !isAWSExample(line) {
		return line, nil
	}
	cmd := strings.Join(strings.Fields(exampleCommand(line)), " ")
	for _, a := range awsExamples {
		if !strings.HasPrefix(cmd, a.prefix) {
			continue
		}
		x := &awsExample{check: a.check, environ: map[string]string{"AWS_ACCESS_KEY_ID": exampleAWSKey,
			"AWS_SECRET_ACCESS_KEY": exampleAWSSecret, "AWS_EC2_METADATA_DISABLED": "true"}}
		fleet, deps := exampleAWSFleet(), exampleKubeFleet()
		if a.setup != nil {
			a.setup(t, dir, x, fleet, deps)
		}
		x.aws, x.kube = fakecloud.NewAWS(t, fleet, nil), fakecloud.NewKube(t, exampleKubeToken, deps)
		x.environ["AWS_ENDPOINT_URL"] = x.aws.URL
		return strings.ReplaceAll(line, "{kube}", x.kube.URL), x
	}
	t.Fatalf("%s reads AWS or a cluster: add it to awsExamples with what it must do there", line)
	return line, nil
}

// checkAWS reports what the example left in the fake that it should not have, and a secret in
// its output.
func (x *awsExample) checkAWS(t *testing.T, where, line, out string) {
	t.Helper()
	if strings.Contains(out, exampleAWSSecret) || strings.Contains(out, exampleKubeToken) {
		t.Errorf("%s: %s\na secret is in the output:\n%s", where, line, out)
	}
	if bad := x.check(x, out); bad != "" {
		t.Errorf("%s: %s\n%s\n%s", where, line, bad, out)
	}
}

// changes returns the EC2 and SageMaker calls that change something (not a list or describe).
func (x *awsExample) changes() []string {
	var got []string
	for _, c := range x.aws.Calls() {
		if !strings.HasPrefix(c.Action, "Describe") && !strings.HasPrefix(c.Action, "List") {
			got = append(got, c.Service+" "+c.Action)
		}
	}
	return got
}

// states returns the fake's instances as "id state", in exampleAWSFleet's order.
func (x *awsExample) states() string {
	var got []string
	for _, in := range exampleAWSFleet() {
		got = append(got, in.ID+" "+x.aws.Instance(in.ID).State)
	}
	return strings.Join(got, ", ")
}

// spotCapPlanned checks a dry run: spot-cap planned i-spot3's stop, and nothing changed.
func spotCapPlanned(x *awsExample, out string) string {
	if !regexp.MustCompile(`(?s)dry run: nothing changed.*spot-cap.*i-spot3`).MatchString(out) {
		return "the output does not plan spot-cap's stop of i-spot3 as a dry run"
	}
	if c := x.changes(); len(c) > 0 {
		return fmt.Sprintf("a dry run called %s", strings.Join(c, ", "))
	}
	return ""
}

// spotCapApplied checks an applied run: i-spot3 stopped, the other spot instances left running,
// and research's machines too, research-gpus being under its budget (the 3-day demo's research
// spend is some $5,000 of $20,000).
func spotCapApplied(x *awsExample, out string) string {
	want := "i-spot1 running, i-spot2 running, i-spot3 stopping, i-research running"
	if got := x.states(); got != want {
		return fmt.Sprintf("instances: %s; want %s", got, want)
	}
	if x.kube.Deployment("research", "notebook-gpu").Replicas != 2 {
		return "research/notebook-gpu was scaled, but research-gpus is under its budget"
	}
	return ""
}

// spotCapAppliedListed checks an applied run over EC2 and the cluster: spotCapApplied, and the
// cluster's Deployments were listed.
func spotCapAppliedListed(x *awsExample, out string) string {
	if len(x.kube.Calls()) == 0 {
		return "the cluster at --kube-server was not listed"
	}
	return spotCapApplied(x, out)
}

// nothingChanged checks estimate --policies: the job is on-demand, so spot-cap counts no
// running spot instances for it; nothing in AWS changes.
func nothingChanged(x *awsExample, out string) string {
	if c := x.changes(); len(c) > 0 {
		return fmt.Sprintf("estimate called %s", strings.Join(c, ", "))
	}
	return ""
}

// startedSpot3 checks enforce undo 42 --apply: i-spot3, stopped by action 42, started again.
func startedSpot3(x *awsExample, out string) string {
	if got := x.aws.Instance("i-spot3").State; got != "pending" {
		return fmt.Sprintf("i-spot3 is %s after the undo; want pending (StartInstances)", got)
	}
	if c := x.changes(); strings.Join(c, ",") != "ec2 StartInstances" {
		return fmt.Sprintf("the undo called %v; want StartInstances alone", c)
	}
	return ""
}

// tokenFile writes the pod's service account token the example names, the fake cluster's.
func tokenFile(t *testing.T, dir string, x *awsExample, _ []fakecloud.Instance, _ []fakecloud.Deployment) {
	t.Helper()
	path := filepath.Join(dir, "var/run/secrets/kubernetes.io/serviceaccount/token")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(exampleKubeToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// storeWithStop42 gives the example a new store whose action 42 is policies.yaml's spot-cap
// stop of i-spot3, carried out (the fake holds it stopped).
func storeWithStop42(t *testing.T, dir string, x *awsExample, fleet []fakecloud.Instance, _ []fakecloud.Deployment) {
	t.Helper()
	fleet[2].State = "stopped"
	storeWithAction(t, dir, x, 42, enforce.Action{Policy: "spot-cap", Action: enforce.ActStop, GPUs: 1,
		Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: fleet[2].ID, Region: "us-east-1"},
		Evidence: enforce.Evidence{Rule: "max_spot_instances 2", Reason: "spot 3 > cap 2, newest #1"}})
}

// storeWithScaleDown43 gives the example a new store whose action 43 is research-over-budget's
// scale-to-zero of research/notebook-gpu from 2 replicas, carried out (the fake holds it at 0),
// and the cluster's token in $GPUCOST_KUBE_TOKEN, since the example names no token file.
func storeWithScaleDown43(t *testing.T, dir string, x *awsExample, _ []fakecloud.Instance, deps []fakecloud.Deployment) {
	t.Helper()
	deps[0].Replicas = 0
	storeWithAction(t, dir, x, 43, enforce.Action{Policy: "research-over-budget", Action: enforce.ActScaleToZero, Size: 2, GPUs: 2,
		Resource: &enforce.Ref{Kind: enforce.KindDeployment, ID: "research/notebook-gpu", Namespace: "research"},
		Evidence: enforce.Evidence{Rule: "research-gpus actual ≥ 100%", Reason: "research-gpus over its budget"}})
	x.environ["GPUCOST_KUBE_TOKEN"] = exampleKubeToken
}

// storeWithAction gives the example a new store whose action id is a, carried out an hour ago,
// after id-1 dry runs of it.
func storeWithAction(t *testing.T, dir string, x *awsExample, id int64, a enforce.Action) {
	t.Helper()
	env, _ := newStore(t, dir)
	ctx := context.Background()
	db, err := storeopen.Open(ctx, env["GPUCOST_DB"])
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	at := time.Now().Add(-time.Hour)
	for n := int64(1); n <= id; n++ {
		a.DryRun, a.Result = n < id, enforce.ResultPlanned
		if n == id {
			a.Result = enforce.ResultDone
		}
		got, err := enforce.Log{Store: db}.RecordAction(ctx, at.Add(time.Duration(n-id)*time.Second), a)
		if err != nil || got != n {
			t.Fatalf("record action %d: got id %d, %v", n, got, err)
		}
	}
	x.environ["GPUCOST_DB"] = env["GPUCOST_DB"]
}

// scaledBack checks enforce undo 43 --apply: research/notebook-gpu, scaled to zero by action
// 43, back at its 2 replicas, and nothing else changed.
func scaledBack(x *awsExample, out string) string {
	if got := x.kube.Deployment("research", "notebook-gpu").Replicas; got != 2 {
		return fmt.Sprintf("research/notebook-gpu has %d replicas after the undo; want 2", got)
	}
	if c := x.changes(); len(c) > 0 {
		return fmt.Sprintf("the undo called AWS: %s", strings.Join(c, ", "))
	}
	return ""
}
