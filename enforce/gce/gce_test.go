package gce

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

const token = "ya29.gce-test-token"

// fakeGCE answers aggregatedList in two pages and records every request.
type fakeGCE struct {
	mu    sync.Mutex
	calls []string
	state map[string]string // zone/name → status
}

func (f *fakeGCE) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(401)
		w.Write([]byte(`{"error": {"code": 401, "message": "Request had invalid authentication credentials."}}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.Method == "GET" && r.URL.Path == "/compute/v1/projects/ml-dev/aggregated/instances" && r.URL.Query().Get("pageToken") == "":
		json.NewEncoder(w).Encode(map[string]any{"nextPageToken": "p2", "items": map[string]any{
			"zones/europe-west4-a": map[string]any{"instances": []any{map[string]any{
				"name": "dev-a100", "zone": "https://www.googleapis.com/compute/v1/projects/ml-dev/zones/europe-west4-a",
				"machineType": "https://www.googleapis.com/compute/v1/projects/ml-dev/zones/europe-west4-a/machineTypes/a2-highgpu-1g",
				"status":      f.state["europe-west4-a/dev-a100"], "creationTimestamp": "2026-11-01T08:00:00.000-07:00", "labels": map[string]any{"env": "dev"},
				"guestAccelerators": []any{map[string]any{"acceleratorType": "nvidia-tesla-a100", "acceleratorCount": 1}}}}},
			"zones/us-central1-a": map[string]any{"warning": map[string]any{"code": "NO_RESULTS_ON_PAGE"}}}})
	case r.Method == "GET" && r.URL.Path == "/compute/v1/projects/ml-dev/aggregated/instances":
		json.NewEncoder(w).Encode(map[string]any{"items": map[string]any{
			"zones/us-central1-b": map[string]any{"instances": []any{
				map[string]any{"name": "web", "zone": "zones/us-central1-b", "machineType": "zones/us-central1-b/machineTypes/e2-small", "status": "RUNNING"},
				map[string]any{"name": "spot-l4", "zone": "zones/us-central1-b", "machineType": "zones/us-central1-b/machineTypes/g2-standard-8", "status": "RUNNING",
					"scheduling": map[string]any{"provisioningModel": "SPOT"}, "guestAccelerators": []any{map[string]any{"acceleratorCount": 1}}},
			}}}})
	case r.Method == "POST" && strings.HasPrefix(r.URL.Path, "/compute/v1/projects/ml-dev/zones/europe-west4-a/instances/dev-a100/"):
		next := map[string]string{"stop": "TERMINATED", "start": "RUNNING"}[r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]]
		f.state["europe-west4-a/dev-a100"] = next
		json.NewEncoder(w).Encode(map[string]any{"kind": "compute#operation", "status": "RUNNING"})
	default:
		w.WriteHeader(404)
		w.Write([]byte(`{"error": {"code": 404, "message": "The resource was not found"}}`))
	}
}

func TestGCEListStopStart(t *testing.T) {
	f := &fakeGCE{state: map[string]string{"europe-west4-a/dev-a100": "RUNNING"}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	c := &Client{Projects: []string{"ml-dev"}, Token: token, BaseURL: srv.URL}
	rs, err := c.Resources(context.Background())
	if err != nil {
		t.Fatalf("Resources() = %v", err)
	}
	if len(rs) != 2 {
		t.Fatalf("Resources() = %+v, want the two VMs with GPUs", rs)
	}
	want := enforce.Resource{Kind: enforce.KindGCE, ID: "ml-dev/europe-west4-a/dev-a100", Name: "dev-a100", Provider: "gcp", Region: "europe-west4-a",
		InstanceType: "a2-highgpu-1g", Count: 1, GPUs: 1, State: "RUNNING", Running: true, Launched: time.Date(2026, 11, 1, 15, 0, 0, 0, time.UTC),
		Tags: map[string]string{"env": "dev"}}
	if !reflect.DeepEqual(rs[0], want) {
		t.Errorf("dev-a100 = %+v\nwant %+v", rs[0], want)
	}
	if !rs[1].Spot || rs[1].ID != "ml-dev/us-central1-b/spot-l4" {
		t.Errorf("spot-l4 = %+v, want a spot VM", rs[1])
	}
	ref := &enforce.Ref{Kind: enforce.KindGCE, ID: "ml-dev/europe-west4-a/dev-a100"}
	for _, act := range []string{enforce.ActStop, enforce.ActStart} {
		if err := c.Do(context.Background(), enforce.Action{Action: act, Resource: ref}); err != nil {
			t.Fatalf("Do(%s) = %v", act, err)
		}
	}
	wantCalls := []string{
		"GET /compute/v1/projects/ml-dev/aggregated/instances?maxResults=500",
		"GET /compute/v1/projects/ml-dev/aggregated/instances?maxResults=500&pageToken=p2",
		"POST /compute/v1/projects/ml-dev/zones/europe-west4-a/instances/dev-a100/stop?",
		"POST /compute/v1/projects/ml-dev/zones/europe-west4-a/instances/dev-a100/start?",
	}
	if !reflect.DeepEqual(f.calls, wantCalls) {
		t.Errorf("calls = %q\nwant %q", f.calls, wantCalls)
	}
	if f.state["europe-west4-a/dev-a100"] != "RUNNING" {
		t.Errorf("dev-a100 is %s after stop and start, want RUNNING", f.state["europe-west4-a/dev-a100"])
	}
}

func TestGCERefusals(t *testing.T) {
	f := &fakeGCE{state: map[string]string{}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	bad := &Client{Projects: []string{"ml-dev"}, Token: "wrong", BaseURL: srv.URL}
	if _, err := bad.Resources(context.Background()); err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "roles/compute.instanceAdmin.v1") ||
		strings.Contains(err.Error(), token) {
		t.Errorf("Resources() with a bad token = %v, want EInvalid naming the role", err)
	}
	c := &Client{Token: token, BaseURL: srv.URL}
	cases := []enforce.Action{
		{Action: enforce.ActScaleToZero, Resource: &enforce.Ref{Kind: enforce.KindGCE, ID: "ml-dev/europe-west4-a/dev-a100"}},
		{Action: enforce.ActStop, Resource: &enforce.Ref{Kind: enforce.KindGCE, ID: "dev-a100"}},
		{Action: enforce.ActStop, Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-1"}},
	}
	for _, a := range cases {
		if err := c.Do(context.Background(), a); err == nil {
			t.Errorf("Do(%s %s %s) = nil, want a refusal", a.Action, a.Resource.Kind, a.Resource.ID)
		}
	}
	if err := c.Do(context.Background(), enforce.Action{Action: enforce.ActStop, Resource: &enforce.Ref{Kind: enforce.KindGCE, ID: "ml-dev/us-east1-b/gone"}}); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Do(stop a missing VM) = %v, want ENotFound", err)
	}
	if len(f.calls) != 2 {
		t.Errorf("%d requests, want 2: malformed actions never reach the API", len(f.calls))
	}
}
