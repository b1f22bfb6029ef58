package azure

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

const (
	token = "azure-test-token-value"
	vmID  = "/subscriptions/sub-1/resourceGroups/ml/providers/Microsoft.Compute/virtualMachines/dev-nc"
)

// fakeARM lists two pages of VMs, deallocates and starts one, and records every request.
type fakeARM struct {
	url   string
	mu    sync.Mutex
	calls []string
	power string
}

func (f *fakeARM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path+"?"+r.URL.RawQuery)
	if r.Header.Get("Authorization") != "Bearer "+token {
		w.WriteHeader(401)
		w.Write([]byte(`{"error": {"code": "InvalidAuthenticationToken", "message": "The access token is invalid."}}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	list := "/subscriptions/sub-1/providers/Microsoft.Compute/virtualMachines"
	switch {
	case r.Method == "GET" && r.URL.Path == list && r.URL.Query().Get("$skiptoken") == "":
		json.NewEncoder(w).Encode(map[string]any{"nextLink": f.url + list + "?api-version=" + APIVersion + "&statusOnly=true&$skiptoken=2",
			"value": []any{map[string]any{"id": vmID, "name": "dev-nc", "location": "westeurope", "tags": map[string]any{"env": "dev"},
				"properties": map[string]any{"hardwareProfile": map[string]any{"vmSize": "Standard_NC24ads_A100_v4"}, "timeCreated": "2026-11-02T09:30:00Z",
					"instanceView": map[string]any{"statuses": []any{map[string]any{"code": "ProvisioningState/succeeded"}, map[string]any{"code": "PowerState/" + f.power}}}}}}})
	case r.Method == "GET" && r.URL.Path == list:
		json.NewEncoder(w).Encode(map[string]any{"value": []any{map[string]any{"id": "/subscriptions/sub-1/resourceGroups/web/providers/Microsoft.Compute/virtualMachines/web",
			"name": "web", "location": "westeurope", "properties": map[string]any{"hardwareProfile": map[string]any{"vmSize": "Standard_B2s"},
				"instanceView": map[string]any{"statuses": []any{map[string]any{"code": "PowerState/running"}}}}}}})
	case r.Method == "POST" && r.URL.Path == vmID+"/deallocate":
		f.power = "deallocated"
		w.WriteHeader(202)
	case r.Method == "POST" && r.URL.Path == vmID+"/start":
		f.power = "running"
		w.WriteHeader(202)
	default:
		w.WriteHeader(404)
		w.Write([]byte(`{"error": {"code": "ResourceNotFound", "message": "The Resource was not found."}}`))
	}
}

func TestAzureListDeallocateStart(t *testing.T) {
	f := &fakeARM{power: "running"}
	srv := httptest.NewServer(f)
	defer srv.Close()
	f.url = srv.URL
	sizes := func(size string) (int, bool) {
		return map[string]int{"Standard_NC24ads_A100_v4": 1}[size], strings.HasPrefix(size, "Standard_NC")
	}
	c := &Client{Subscriptions: []string{"sub-1"}, Token: token, BaseURL: srv.URL, GPUSizes: sizes}
	rs, err := c.Resources(context.Background())
	if err != nil {
		t.Fatalf("Resources() = %v", err)
	}
	want := []enforce.Resource{{Kind: enforce.KindAzureVM, ID: vmID, Name: "dev-nc", Provider: "azure", Region: "westeurope", InstanceType: "Standard_NC24ads_A100_v4",
		Count: 1, GPUs: 1, State: "running", Running: true, Launched: time.Date(2026, 11, 2, 9, 30, 0, 0, time.UTC), Tags: map[string]string{"env": "dev"}}}
	if !reflect.DeepEqual(rs, want) {
		t.Fatalf("Resources() = %+v\nwant %+v (the VM without GPUs left out)", rs, want)
	}
	ref := &enforce.Ref{Kind: enforce.KindAzureVM, ID: vmID}
	if err := c.Do(context.Background(), enforce.Action{Action: enforce.ActStop, Resource: ref}); err != nil || f.power != "deallocated" {
		t.Fatalf("Do(stop) = %v, power %s; want deallocated", err, f.power)
	}
	if err := c.Do(context.Background(), enforce.Action{Action: enforce.ActStart, Resource: ref}); err != nil || f.power != "running" {
		t.Fatalf("Do(start) = %v, power %s; want running", err, f.power)
	}
	wantCalls := []string{
		"GET /subscriptions/sub-1/providers/Microsoft.Compute/virtualMachines?api-version=2024-07-01&statusOnly=true",
		"GET /subscriptions/sub-1/providers/Microsoft.Compute/virtualMachines?api-version=2024-07-01&statusOnly=true&$skiptoken=2",
		"POST " + vmID + "/deallocate?api-version=2024-07-01",
		"POST " + vmID + "/start?api-version=2024-07-01",
	}
	if !reflect.DeepEqual(f.calls, wantCalls) {
		t.Errorf("calls = %q\nwant %q", f.calls, wantCalls)
	}
}

func TestAzureRefusals(t *testing.T) {
	f := &fakeARM{power: "running"}
	srv := httptest.NewServer(f)
	defer srv.Close()
	f.url = "https://elsewhere.example"
	c := &Client{Subscriptions: []string{"sub-1"}, Token: token, BaseURL: srv.URL}
	if _, err := c.Resources(context.Background()); err == nil || !strings.Contains(err.Error(), "refusing to send the token there") {
		t.Errorf("Resources() with a nextLink to another host = %v, want a refusal", err)
	}
	bad := &Client{Subscriptions: []string{"sub-1"}, Token: "wrong", BaseURL: srv.URL}
	if _, err := bad.Resources(context.Background()); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "Virtual Machine Contributor") {
		t.Errorf("Resources() with a bad token = %v, want EInvalid naming the role", err)
	}
	for _, a := range []enforce.Action{
		{Action: enforce.ActScaleToZero, Resource: &enforce.Ref{Kind: enforce.KindAzureVM, ID: vmID}},
		{Action: enforce.ActStop, Resource: &enforce.Ref{Kind: enforce.KindAzureVM, ID: "dev-nc"}},
	} {
		if err := c.Do(context.Background(), a); err == nil {
			t.Errorf("Do(%s %s) = nil, want a refusal", a.Action, a.Resource.ID)
		}
	}
}
