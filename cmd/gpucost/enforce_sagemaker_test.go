package main

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/fakecloud"
)

// TestEnforceSageMakerUndo: an off-hours policy scales an endpoint's two inference components
// to zero (the fake's managed instance scaling then keeps no instances); the log records their
// copy counts and the variant's instance count; gpucost enforce undo sets exactly those back,
// the components first, then the variant.
func TestEnforceSageMakerUndo(t *testing.T) {
	dir := t.TempDir()
	db := dir + "/sm.db"
	aws := fakecloud.NewAWS(t, nil, []fakecloud.Endpoint{{Name: "chat", Config: "chat-cfg", InstanceType: "ml.g5.12xlarge", Status: "InService",
		Instances: 3, Created: budgetNow.AddDate(0, 0, -7), Tags: map[string]string{"env": "dev"}, Components: map[string]int{"chat-70b": 2, "chat-8b": 4}}})
	policies := writeFile(t, dir, "off.yaml", `policies:
  - name: dev-off-hours
    schedule: {off: "Fri 08:00-12:00", zone: UTC}
    scope: {tags: {env: dev}}
    actions: [scale-to-zero]
    dry_run: false
`)
	awsFlags := []string{"--aws-region", "us-east-1", "--aws-endpoint", aws.URL}
	code, out, errb := runEnforceCLI(t, db, append([]string{"enforce", "--policies", policies, "--apply", "--replay=false"}, awsFlags...)...)
	if e := aws.Endpoint("chat"); code != exitPolicy || e.Components["chat-70b"] != 0 || e.Components["chat-8b"] != 0 || e.Instances != 0 {
		t.Fatalf("gpucost enforce --apply = %d, endpoint %+v; want 7 and no copies\n%s%s", code, e, out, errb)
	}
	zero := []sageMakerCall{
		{"UpdateInferenceComponentRuntimeConfig", map[string]any{"InferenceComponentName": "chat-70b", "DesiredRuntimeConfig": map[string]any{"CopyCount": float64(0)}}},
		{"UpdateInferenceComponentRuntimeConfig", map[string]any{"InferenceComponentName": "chat-8b", "DesiredRuntimeConfig": map[string]any{"CopyCount": float64(0)}}},
	}
	checkSageMakerChanges(t, "apply", aws.Calls(), zero)
	var logged []enforce.LogEntry
	_, js, _ := runEnforceCLI(t, db, "enforce", "log", "--output", "json")
	if err := json.Unmarshal([]byte(js), &logged); err != nil || len(logged) != 1 {
		t.Fatalf("enforce log = %v %s; want one scale-to-zero", err, js)
	}
	a := logged[0].Action
	if want := map[string]int{"chat-70b": 2, "chat-8b": 4}; !reflect.DeepEqual(a.Copies, want) || !reflect.DeepEqual(a.Variants, map[string]int{"AllTraffic": 3}) {
		t.Fatalf("logged copy counts %v and variant instances %v; want %v and AllTraffic 3", a.Copies, a.Variants, want)
	}

	before := len(aws.Calls())
	id := strconv.FormatInt(logged[0].ID, 10)
	code, out, errb = runEnforceCLI(t, db, append([]string{"enforce", "undo", id, "--apply"}, awsFlags...)...)
	if code != 0 {
		t.Fatalf("gpucost enforce undo %s = %d\n%s%s", id, code, out, errb)
	}
	checkSageMakerChanges(t, "undo", aws.Calls()[before:], []sageMakerCall{
		{"UpdateInferenceComponentRuntimeConfig", map[string]any{"InferenceComponentName": "chat-70b", "DesiredRuntimeConfig": map[string]any{"CopyCount": float64(2)}}},
		{"UpdateInferenceComponentRuntimeConfig", map[string]any{"InferenceComponentName": "chat-8b", "DesiredRuntimeConfig": map[string]any{"CopyCount": float64(4)}}},
		{"UpdateEndpointWeightsAndCapacities", map[string]any{"EndpointName": "chat",
			"DesiredWeightsAndCapacities": []any{map[string]any{"VariantName": "AllTraffic", "DesiredInstanceCount": float64(3)}}}},
	})
	if e := aws.Endpoint("chat"); e.Components["chat-70b"] != 2 || e.Components["chat-8b"] != 4 || e.Instances != 3 {
		t.Errorf("endpoint after the undo = %+v, want 2 and 4 copies on 3 instances", e)
	}
}

// sageMakerCall is a SageMaker request that changes something: its action and JSON body.
type sageMakerCall struct {
	action string
	json   map[string]any
}

// checkSageMakerChanges checks that the requests of calls other than List* and Describe* are exactly want.
func checkSageMakerChanges(t *testing.T, step string, calls []fakecloud.Call, want []sageMakerCall) {
	t.Helper()
	var got []fakecloud.Call
	for _, c := range calls {
		if !strings.HasPrefix(c.Action, "Describe") && !strings.HasPrefix(c.Action, "List") {
			got = append(got, c)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s's requests = %+v, want %d", step, got, len(want))
	}
	for i, w := range want {
		if got[i].Action != w.action || !reflect.DeepEqual(got[i].JSON, w.json) {
			t.Errorf("%s request %d = %s %v, want %s %v", step, i, got[i].Action, got[i].JSON, w.action, w.json)
		}
	}
}
