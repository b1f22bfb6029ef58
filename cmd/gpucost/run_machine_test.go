package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// startEvent runs gpucost run on a one-step trainer with args and returns the job's start event
// and the run's stderr.
func startEvent(t *testing.T, environ map[string]string, args ...string) (spot.Event, string, string) {
	t.Helper()
	store := t.TempDir()
	all := append([]string{"run", "--name", "m", "--checkpoint-dir", t.TempDir(), "--store", "file://" + store}, args...)
	all = append(all, trainer("-steps", "20", "-every", "10", "-step-time", "1ms", "-result", filepath.Join(t.TempDir(), "r.json"))...)
	code, _, errOut := runGpucost(t, environ, all...)
	if code != exitOK {
		t.Fatalf("gpucost %s = exit %d; stderr %s", strings.Join(all, " "), code, errOut)
	}
	fs, err := file.New(store)
	if err != nil {
		t.Fatal(err)
	}
	events, _, err := spot.ReadEvents(context.Background(), fs, "m", slog.New(slog.DiscardHandler))
	if err != nil || len(events) == 0 || events[0].Kind != spot.EventStart {
		t.Fatalf("events = %+v, %v; want a start event first", events, err)
	}
	return events[0], store, errOut
}

// TestRunDetectsMachine: on AWS, gpucost run reads the instance type, zone and spot life cycle
// from IMDSv2, prices the machine at its zone's catalog spot price, records it in the start
// event, and report jobs prices the job with it.
func TestRunDetectsMachine(t *testing.T) {
	imds := noticetest.NewAWS(t)
	imds.SetInstance("g5.xlarge", "us-east-1", "us-east-1d", "use1-az4", "spot")
	environ := map[string]string{"AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL}
	ev, store, _ := startEvent(t, environ, "--cloud", "auto")
	// The bundled catalog: g5.xlarge in us-east-1 is 1.006 on demand and 0.4886 on spot in use1-az4.
	if ev.Cloud != "aws" || ev.InstanceType != "g5.xlarge" || !ev.Spot || ev.Region != "us-east-1" || ev.Zone != "us-east-1d" ||
		ev.Price != "0.4886" || ev.OnDemand != "1.006" || !strings.Contains(ev.Detail, "aws metadata (spot)") {
		t.Errorf("start event = %+v; want aws g5.xlarge spot in us-east-1d at 0.4886/h (on demand 1.006) from the metadata", ev)
	}
	code, out, errOut := runGpucost(t, nil, "report", "jobs", "--store", store, "--output", "json")
	var jobs []jobJSON
	if code != exitOK || json.Unmarshal([]byte(out), &jobs) != nil || len(jobs) != 1 {
		t.Fatalf("report jobs = exit %d, %q; %s", code, out, errOut)
	}
	if j := jobs[0]; j.Cost == nil || j.OnDemand == nil || j.Savings == nil || *j.Cost == *j.OnDemand {
		t.Errorf("report jobs = %+v; want the job priced at spot against on-demand", j)
	}

	// Flags win over what is detected.
	ev, _, _ = startEvent(t, environ, "--cloud", "aws", "--instance-type", "g5.2xlarge", "--spot=false")
	if ev.InstanceType != "g5.2xlarge" || ev.Spot || ev.Region != "us-east-1" || ev.Price == "" || ev.Price != ev.OnDemand {
		t.Errorf("start event with flags = %+v; want g5.2xlarge on demand in us-east-1", ev)
	}
	ev, _, _ = startEvent(t, environ, "--cloud", "aws", "--price", "0.40")
	if ev.InstanceType != "g5.xlarge" || ev.Price != "0.4" || ev.OnDemand != "1.006" {
		t.Errorf("start event with --price = %+v; want g5.xlarge at 0.4 with its on-demand price", ev)
	}
}

// TestRunDetectsMachineGCPAzure: the same from the GCE metadata server and Azure IMDS.
func TestRunDetectsMachineGCPAzure(t *testing.T) {
	md := noticetest.NewGCP(t)
	md.SetInstance("a2-highgpu-1g", "us-central1-a", "SPOT", "FALSE")
	ev, _, _ := startEvent(t, map[string]string{"GCE_METADATA_HOST": md.Host}, "--cloud", "gcp")
	if ev.InstanceType != "a2-highgpu-1g" || !ev.Spot || ev.Region != "us-central1" || ev.Price != "1.92802" || ev.OnDemand != "3.673385" {
		t.Errorf("gcp start event = %+v; want a2-highgpu-1g spot in us-central1 at 1.92802/h (the bundled pricing.yml price)", ev)
	}
	az := noticetest.NewAzure(t, "vm0")
	az.SetCompute("Standard_NC24ads_A100_v4", "eastus", "1", "Regular")
	ev, _, errOut := startEvent(t, nil, "--cloud", "azure", "--azure-metadata-url", az.URL)
	if ev.InstanceType != "Standard_NC24ads_A100_v4" || ev.Spot || ev.Region != "eastus" || ev.Zone != "1" {
		t.Errorf("azure start event = %+v; want Standard_NC24ads_A100_v4 regular in eastus", ev)
	}
	if ev.Price == "" && !strings.Contains(errOut, "no catalog price for this machine") {
		t.Errorf("an unpriced machine gave no warning: %s", errOut)
	}
}

// TestRunMetadataUnreachable: a metadata service that does not answer leaves the fields to the
// flags, with a warning, and the job runs.
func TestRunMetadataUnreachable(t *testing.T) {
	s := httptest.NewServer(nil)
	s.Close()
	ev, _, errOut := startEvent(t, map[string]string{"GCE_METADATA_HOST": strings.TrimPrefix(s.URL, "http://")}, "--cloud", "gcp")
	if ev.InstanceType != "" || ev.Region != "" || !ev.Spot || ev.Price != "" {
		t.Errorf("start event without metadata = %+v; want no type, region or price, and the --spot default", ev)
	}
	if !strings.Contains(errOut, "the metadata service did not describe the whole machine") {
		t.Errorf("no warning about the unreachable metadata service:\n%s", errOut)
	}
}
