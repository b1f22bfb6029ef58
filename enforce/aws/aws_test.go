package aws

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/fakecloud"
)

const (
	testKeyID  = "AKIDENFORCETEST"
	testSecret = "enforce-test-secret-key-value"
)

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func fakeFleet(t *testing.T) *fakecloud.AWS {
	return fakecloud.NewAWS(t, []fakecloud.Instance{
		{ID: "i-train1", Type: "p4d.24xlarge", State: "running", Launched: t0, Tags: map[string]string{"team": "research", "Name": "train-1"}},
		{ID: "i-spot1", Type: "g5.xlarge", State: "running", Spot: true, Launched: t0.Add(time.Hour), Tags: map[string]string{"team": "research"}},
		{ID: "i-spot2", Type: "g5.xlarge", State: "pending", Spot: true, Launched: t0.Add(2 * time.Hour), Tags: map[string]string{"team": "research", "approved": "true"}},
		{ID: "i-spot3", Type: "g5.xlarge", State: "running", Spot: true, Launched: t0.Add(3 * time.Hour), Tags: map[string]string{"team": "infra"}},
		{ID: "i-old", Type: "p3.8xlarge", State: "stopped", Launched: t0.Add(-48 * time.Hour), Tags: map[string]string{"team": "research"}},
	}, []fakecloud.Endpoint{
		{Name: "llm-serve", Config: "llm-serve-cfg", InstanceType: "ml.g5.2xlarge", Status: "InService", Instances: 2, Created: t0,
			Tags: map[string]string{"team": "research"}, Components: map[string]int{"llm-a": 2, "llm-b": 1}},
		{Name: "classic", Config: "classic-cfg", InstanceType: "ml.g5.xlarge", Status: "InService", Instances: 1, Created: t0,
			Tags: map[string]string{"team": "infra"}},
	})
}

func testAWS(url string) *Client {
	creds := awssdk.Credentials{AccessKeyID: testKeyID, SecretAccessKey: testSecret, Source: "test"}
	return &Client{Regions: []string{"us-east-1"}, BaseURL: url, MaxAttempts: 1,
		Credentials: awssdk.CredentialsProviderFunc(func(context.Context) (awssdk.Credentials, error) { return creds, nil })}
}

func TestAWSResources(t *testing.T) {
	f := fakeFleet(t)
	rs, err := testAWS(f.URL).Resources(context.Background())
	if err != nil {
		t.Fatalf("Resources() = %v", err)
	}
	var ids []string
	for _, r := range rs {
		ids = append(ids, r.Kind+":"+r.ID)
	}
	want := []string{"ec2-instance:i-train1", "ec2-instance:i-spot1", "ec2-instance:i-spot2", "ec2-instance:i-spot3",
		"sagemaker-endpoint:llm-serve", "sagemaker-endpoint:classic"}
	if !reflect.DeepEqual(ids, want) {
		t.Fatalf("Resources() = %v, want %v (the stopped instance left out, every page read)", ids, want)
	}
	if r := rs[1]; !r.Spot || !r.Running || r.InstanceType != "g5.xlarge" || !r.Launched.Equal(t0.Add(time.Hour)) || r.Tags["team"] != "research" || r.Region != "us-east-1" {
		t.Errorf("i-spot1 = %+v", r)
	}
	if r := rs[0]; r.Spot || r.Name != "train-1" || r.State != "running" {
		t.Errorf("i-train1 = %+v", r)
	}
	ep := rs[4]
	if ep.Count != 2 || ep.InstanceType != "ml.g5.2xlarge" || !reflect.DeepEqual(ep.Components, []string{"llm-a", "llm-b"}) ||
		ep.ARN != fakecloud.ARN("llm-serve") || ep.Tags["team"] != "research" || !ep.Running {
		t.Errorf("llm-serve = %+v", ep)
	}
	if !reflect.DeepEqual(ep.Copies, map[string]int{"llm-a": 2, "llm-b": 1}) || !reflect.DeepEqual(ep.Variants, map[string]int{"AllTraffic": 2}) {
		t.Errorf("llm-serve copies %v, variants %v; want llm-a 2, llm-b 1 on AllTraffic's 2 instances", ep.Copies, ep.Variants)
	}
	if len(rs[5].Components) != 0 {
		t.Errorf("classic components = %v, want none", rs[5].Components)
	}
	for _, c := range f.Calls() {
		if !strings.Contains(c.Authorization, testKeyID) || strings.Contains(c.Authorization, testSecret) {
			t.Errorf("%s %s Authorization = %q: want a SigV4 signature with the key id and never the secret", c.Service, c.Action, c.Authorization)
		}
		if c.Action == "DescribeInstances" && (c.Form.Get("Filter.1.Name") != "instance-state-name" || c.Form.Get("Filter.1.Value.1") != "pending" || c.Form.Get("Filter.1.Value.2") != "running") {
			t.Errorf("DescribeInstances form = %v, want the pending and running filter", c.Form)
		}
	}
}

func TestAWSSpotInstances(t *testing.T) {
	f := fakeFleet(t)
	rs, err := testAWS(f.URL).SpotInstances(context.Background(), map[string]string{"team": "research"})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].ID != "i-spot1" || rs[1].ID != "i-spot2" {
		t.Fatalf("SpotInstances(team=research) = %+v, want i-spot1 and i-spot2", rs)
	}
	c := f.Calls()[0]
	want := map[string]string{"Action": "DescribeInstances", "Filter.2.Name": "instance-lifecycle", "Filter.2.Value.1": "spot",
		"Filter.3.Name": "tag:team", "Filter.3.Value.1": "research"}
	for k, v := range want {
		if c.Form.Get(k) != v {
			t.Errorf("DescribeInstances %s = %q, want %q (form %v)", k, c.Form.Get(k), v, c.Form)
		}
	}
}

func TestAWSStopAndTag(t *testing.T) {
	f := fakeFleet(t)
	c := testAWS(f.URL)
	ctx := context.Background()
	ref := &enforce.Ref{Kind: enforce.KindEC2, ID: "i-spot1", Region: "us-east-1"}
	if err := c.Do(ctx, enforce.Action{Action: enforce.ActTag, Resource: ref, Tags: map[string]string{"gpucost-policy": "spot-cap", "b": "2"}}); err != nil {
		t.Fatalf("Do(tag) = %v", err)
	}
	if err := c.Do(ctx, enforce.Action{Action: enforce.ActStop, Resource: ref}); err != nil {
		t.Fatalf("Do(stop) = %v", err)
	}
	calls := f.Calls()
	if len(calls) != 2 {
		t.Fatalf("calls = %+v, want CreateTags and StopInstances", calls)
	}
	tag := calls[0].Form
	if tag.Get("Action") != "CreateTags" || tag.Get("ResourceId.1") != "i-spot1" || tag.Has("ResourceId.2") ||
		tag.Get("Tag.1.Key") != "b" || tag.Get("Tag.1.Value") != "2" || tag.Get("Tag.2.Key") != "gpucost-policy" || tag.Get("Tag.2.Value") != "spot-cap" {
		t.Errorf("CreateTags form = %v", tag)
	}
	stop := calls[1].Form
	if stop.Get("Action") != "StopInstances" || stop.Get("InstanceId.1") != "i-spot1" || stop.Has("InstanceId.2") || stop.Has("Force") {
		t.Errorf("StopInstances form = %v, want exactly InstanceId.1=i-spot1", stop)
	}
	if got := f.Instance("i-spot1"); got.State != "stopping" || got.Tags["gpucost-policy"] != "spot-cap" {
		t.Errorf("i-spot1 after = %+v", got)
	}
	if got := f.Instance("i-spot3"); got.State != "running" {
		t.Errorf("i-spot3 = %s, want untouched", got.State)
	}
}

func TestAWSStopUnknownInstance(t *testing.T) {
	f := fakeFleet(t)
	err := testAWS(f.URL).Do(context.Background(), enforce.Action{Action: enforce.ActStop, Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-nope", Region: "us-east-1"}})
	if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "InvalidInstanceID.NotFound") {
		t.Fatalf("Do(stop i-nope) = %v, want an EInvalid InvalidInstanceID.NotFound", err)
	}
	if strings.Contains(err.Error(), testSecret) {
		t.Errorf("error holds the secret key: %v", err)
	}
}

func TestAWSSageMakerScaleToZeroAndTag(t *testing.T) {
	f := fakeFleet(t)
	c := testAWS(f.URL)
	ctx := context.Background()
	ref := &enforce.Ref{Kind: enforce.KindSageMaker, ID: "llm-serve", Region: "us-east-1", ARN: fakecloud.ARN("llm-serve")}
	if err := c.Do(ctx, enforce.Action{Action: enforce.ActScaleToZero, Resource: ref, Components: []string{"llm-a", "llm-b"}}); err != nil {
		t.Fatalf("Do(scale-to-zero) = %v", err)
	}
	if err := c.Do(ctx, enforce.Action{Action: enforce.ActTag, Resource: ref, Tags: map[string]string{"gpucost-policy": "over"}}); err != nil {
		t.Fatalf("Do(tag) = %v", err)
	}
	calls := f.Calls()
	if len(calls) != 3 {
		t.Fatalf("calls = %+v", calls)
	}
	for i, ic := range []string{"llm-a", "llm-b"} {
		c := calls[i]
		want := map[string]any{"InferenceComponentName": ic, "DesiredRuntimeConfig": map[string]any{"CopyCount": float64(0)}}
		if c.Action != "UpdateInferenceComponentRuntimeConfig" || !reflect.DeepEqual(c.JSON, want) {
			t.Errorf("call %d = %s %v, want UpdateInferenceComponentRuntimeConfig %v", i, c.Action, c.JSON, want)
		}
	}
	wantTags := map[string]any{"ResourceArn": fakecloud.ARN("llm-serve"), "Tags": []any{map[string]any{"Key": "gpucost-policy", "Value": "over"}}}
	if calls[2].Action != "AddTags" || !reflect.DeepEqual(calls[2].JSON, wantTags) {
		t.Errorf("AddTags = %v, want %v", calls[2].JSON, wantTags)
	}
	if e := f.Endpoint("llm-serve"); e.Components["llm-a"] != 0 || e.Components["llm-b"] != 0 || e.Tags["gpucost-policy"] != "over" {
		t.Errorf("llm-serve after = %+v", e)
	}
	err := c.Do(ctx, enforce.Action{Action: enforce.ActScaleToZero, Resource: &enforce.Ref{Kind: enforce.KindSageMaker, ID: "classic", Region: "us-east-1"}})
	if err == nil || !strings.Contains(err.Error(), "no inference components") {
		t.Errorf("Do(scale-to-zero classic) = %v, want a refusal naming inference components", err)
	}
}

func TestAWSUnreachable(t *testing.T) {
	c := testAWS("http://127.0.0.1:1")
	_, err := c.Resources(context.Background())
	if gpucost.ErrorCode(err) != gpucost.EUnavailable {
		t.Fatalf("Resources() against a closed port = %v, want EUnavailable", err)
	}
}

// TestAWSStartInstance: the start that reverses a stop is one StartInstances of the instance.
func TestAWSStartInstance(t *testing.T) {
	f := fakeFleet(t)
	a := enforce.Action{Policy: "dev-off-hours", Action: enforce.ActStart, Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-old", Region: "us-east-1"}}
	if err := testAWS(f.URL).Do(context.Background(), a); err != nil {
		t.Fatalf("Do(start i-old) = %v", err)
	}
	calls := f.Calls()
	if len(calls) != 1 || calls[0].Action != "StartInstances" || calls[0].Form.Get("InstanceId.1") != "i-old" || calls[0].Form.Has("InstanceId.2") {
		t.Fatalf("calls = %+v, want one StartInstances of i-old", calls)
	}
	if got := f.Instance("i-old").State; got != "pending" {
		t.Errorf("i-old state = %q, want pending", got)
	}
	a.Action, a.Resource = enforce.ActScaleBack, &enforce.Ref{Kind: enforce.KindSageMaker, ID: "llm-serve", Region: "us-east-1"}
	if err := testAWS(f.URL).Do(context.Background(), a); err == nil {
		t.Errorf("Do(scale-back llm-serve) = nil, want a refusal: the action records no copy counts")
	}
}
