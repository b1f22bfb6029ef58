package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/fakecloud"
)

const kubeToken = "kube-test-token-abcdef"

var t0 = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

func fakeKube(t *testing.T) *fakecloud.Kube {
	return fakecloud.NewKube(t, kubeToken, []fakecloud.Deployment{
		{Namespace: "research", Name: "vllm", Replicas: 3, GPUsPerPod: 1, Labels: map[string]string{"team": "research"}, Created: t0},
		{Namespace: "research", Name: "web", Replicas: 2, Labels: map[string]string{"team": "research"}, Created: t0},
		{Namespace: "infra", Name: "triton", Replicas: 1, GPUsPerPod: 2, Labels: map[string]string{"team": "infra"}, Created: t0},
	})
}

func TestKubeResources(t *testing.T) {
	k := fakeKube(t)
	rs, err := (&Client{Server: k.URL, Token: kubeToken}).Resources(context.Background())
	if err != nil {
		t.Fatalf("Resources() = %v", err)
	}
	if len(rs) != 2 || rs[0].ID != "research/vllm" || rs[1].ID != "infra/triton" {
		t.Fatalf("Resources() = %+v, want the two GPU Deployments over every page", rs)
	}
	if r := rs[0]; r.GPUs != 3 || r.Count != 3 || !r.Running || r.Namespace != "research" || r.Tags["team"] != "research" || !r.Launched.Equal(t0) {
		t.Errorf("research/vllm = %+v", r)
	}
	line := rs[0].Line()
	if line.Tags["namespace"] != "research" {
		t.Errorf("Line().Tags = %v, want the namespace as a tag", line.Tags)
	}
	calls := k.Calls()
	if len(calls) != 3 || calls[0].Path != "/apis/apps/v1/deployments" || calls[0].Authorization != "Bearer "+kubeToken || calls[1].Query != "continue=1&limit=500" {
		t.Errorf("calls = %+v", calls)
	}

	rs, err = (&Client{Server: k.URL, Token: kubeToken, Namespaces: []string{"research"}, Selector: "team=research", AllDeployments: true}).Resources(context.Background())
	if err != nil || len(rs) != 2 || rs[1].ID != "research/web" || rs[1].GPUs != 0 {
		t.Errorf("Resources(research, all) = %+v, %v", rs, err)
	}
	if c := k.Calls()[3]; c.Path != "/apis/apps/v1/namespaces/research/deployments" || !strings.Contains(c.Query, "labelSelector=team%3Dresearch") {
		t.Errorf("namespaced list = %+v", c)
	}
}

func TestKubeScaleToZeroAndAnnotate(t *testing.T) {
	k := fakeKube(t)
	c := &Client{Server: k.URL, Token: kubeToken}
	ref := &enforce.Ref{Kind: enforce.KindDeployment, ID: "research/vllm", Namespace: "research"}
	ctx := context.Background()
	if err := c.Do(ctx, enforce.Action{Action: enforce.ActScaleToZero, Resource: ref}); err != nil {
		t.Fatalf("Do(scale-to-zero) = %v", err)
	}
	if err := c.Do(ctx, enforce.Action{Action: enforce.ActTag, Resource: ref, Tags: map[string]string{"gpucost-policy": "over"}}); err != nil {
		t.Fatalf("Do(tag) = %v", err)
	}
	calls := k.Calls()
	scale := calls[0]
	if scale.Method != "PATCH" || scale.Path != "/apis/apps/v1/namespaces/research/deployments/vllm/scale" || scale.ContentType != "application/merge-patch+json" ||
		!reflect.DeepEqual(scale.Body, map[string]any{"spec": map[string]any{"replicas": float64(0)}}) {
		t.Errorf("scale request = %+v", scale)
	}
	ann := calls[1]
	if ann.Path != "/apis/apps/v1/namespaces/research/deployments/vllm" ||
		!reflect.DeepEqual(ann.Body, map[string]any{"metadata": map[string]any{"annotations": map[string]any{"gpucost-policy": "over"}}}) {
		t.Errorf("annotate request = %+v", ann)
	}
	if d := k.Deployment("research", "vllm"); d.Replicas != 0 || d.Annotations["gpucost-policy"] != "over" {
		t.Errorf("research/vllm after = %+v", d)
	}
	if d := k.Deployment("infra", "triton"); d.Replicas != 1 {
		t.Errorf("infra/triton = %d replicas, want untouched", d.Replicas)
	}
}

func TestKubeErrors(t *testing.T) {
	k := fakeKube(t)
	_, err := (&Client{Server: k.URL, Token: "wrong"}).Resources(context.Background())
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), kubeToken) {
		t.Errorf("Resources(wrong token) = %v, want EInvalid 401", err)
	}
	err = (&Client{Server: k.URL, Token: kubeToken}).Do(context.Background(), enforce.Action{Action: enforce.ActScaleToZero, Resource: &enforce.Ref{Kind: enforce.KindDeployment, ID: "research/nope"}})
	if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), `deployments.apps "nope" not found`) {
		t.Errorf("Do(scale research/nope) = %v, want ENotFound with the server's message", err)
	}
	_, err = (&Client{Server: "http://127.0.0.1:1", Token: kubeToken}).Resources(context.Background())
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || strings.Contains(err.Error(), kubeToken) {
		t.Errorf("Resources(closed port) = %v, want EUnavailable", err)
	}
}

// TestDeploymentListFile reads a DeploymentList as the API server (kubectl get deployments -o
// json) writes it: GPUs from limits, else requests; a missing replicas field is the default 1.
func TestDeploymentListFile(t *testing.T) {
	data, err := os.ReadFile("testdata/deployments.json")
	if err != nil {
		t.Fatal(err)
	}
	var list deploymentList
	if err := json.Unmarshal(data, &list); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range list.Items {
		r := d.resource(enforce.KindDeployment)
		got = append(got, fmt.Sprintf("%s replicas=%d gpus=%d running=%v team=%s launched=%s", r.ID, r.Count, r.GPUs, r.Running, r.Tags["team"], r.Launched.Format(time.DateOnly)))
	}
	want := []string{
		"ml-serving/vllm-llama3-8b replicas=4 gpus=4 running=true team=inference launched=2026-10-02",
		"research/train-dashboard replicas=1 gpus=0 running=true team=research launched=2026-09-12",
		"ml-serving/triton-ensemble replicas=0 gpus=0 running=false team=inference launched=2026-11-01",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("deployments:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func FuzzDeploymentList(f *testing.F) {
	data, err := os.ReadFile("testdata/deployments.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte(`{"items":[{"spec":{"replicas":-3,"template":{"spec":{"containers":[{"resources":{"limits":{"nvidia.com/gpu":"x"}}}]}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var list deploymentList
		if json.Unmarshal(data, &list) != nil {
			return
		}
		for _, d := range list.Items {
			r := d.resource(enforce.KindDeployment)
			if r.Running != (r.Count > 0) || r.GPUs < 0 && r.Count >= 0 {
				t.Fatalf("resource(%+v) = %+v", d, r)
			}
		}
	})
}

// TestStatefulSetScaleToZeroAndBack: a Kubeflow Notebook's StatefulSet is listed with
// StatefulSets, scaled to zero through its scale subresource, and back to the recorded size.
func TestStatefulSetScaleToZeroAndBack(t *testing.T) {
	k := fakecloud.NewKube(t, kubeToken, []fakecloud.Deployment{
		{Namespace: "kubeflow-user", Name: "vllm", Replicas: 1, GPUsPerPod: 1},
		{StatefulSet: true, Namespace: "kubeflow-user", Name: "my-notebook", Replicas: 1, GPUsPerPod: 1, Labels: map[string]string{"notebook-name": "my-notebook"}},
	})
	c := &Client{Server: k.URL, Token: kubeToken, StatefulSets: true}
	rs, err := c.Resources(context.Background())
	if err != nil || len(rs) != 2 || rs[1].Kind != enforce.KindStatefulSet || rs[1].ID != "kubeflow-user/my-notebook" || rs[1].Count != 1 || rs[1].GPUs != 1 {
		t.Fatalf("Resources() = %+v, %v; want the Deployment and the notebook's StatefulSet", rs, err)
	}
	ref := &enforce.Ref{Kind: enforce.KindStatefulSet, ID: "kubeflow-user/my-notebook"}
	if err := c.Do(context.Background(), enforce.Action{Action: enforce.ActScaleToZero, Resource: ref, Size: 1}); err != nil {
		t.Fatalf("Do(scale-to-zero) = %v", err)
	}
	if got := k.StatefulSet("kubeflow-user", "my-notebook").Replicas; got != 0 {
		t.Errorf("replicas after scale-to-zero = %d, want 0", got)
	}
	if err := c.Do(context.Background(), enforce.Action{Action: enforce.ActScaleBack, Resource: ref, Size: 1}); err != nil {
		t.Fatalf("Do(scale-back) = %v", err)
	}
	calls := k.Calls()
	want := []string{"GET /apis/apps/v1/deployments", "GET /apis/apps/v1/statefulsets",
		"PATCH /apis/apps/v1/namespaces/kubeflow-user/statefulsets/my-notebook/scale", "PATCH /apis/apps/v1/namespaces/kubeflow-user/statefulsets/my-notebook/scale"}
	var got []string
	for _, c := range calls {
		got = append(got, c.Method+" "+c.Path)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("calls = %q, want %q", got, want)
	}
	for i, n := range map[int]float64{2: 0, 3: 1} {
		spec, _ := calls[i].Body["spec"].(map[string]any)
		if spec["replicas"] != n || calls[i].ContentType != "application/merge-patch+json" {
			t.Errorf("call %d body = %v (%s), want replicas %v as a merge patch", i, calls[i].Body, calls[i].ContentType, n)
		}
	}
	if got := k.StatefulSet("kubeflow-user", "my-notebook").Replicas; got != 1 {
		t.Errorf("replicas after scale-back = %d, want 1", got)
	}
	if err := c.Do(context.Background(), enforce.Action{Action: enforce.ActScaleBack, Resource: ref}); err == nil || !strings.Contains(err.Error(), "recorded no size") {
		t.Errorf("Do(scale-back without a size) = %v, want a refusal", err)
	}
}
