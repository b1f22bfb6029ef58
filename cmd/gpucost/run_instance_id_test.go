package main

import (
	"testing"

	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// TestRunRecordsInstanceID: on GCP and Azure, gpucost run records in its events the ID the
// cloud's bill names the VM by, which report spot matches with the bill's resource IDs: the
// VM's full resource name on GCP, its ARM resource ID on Azure (docs/architecture.md "Spot risk").
func TestRunRecordsInstanceID(t *testing.T) {
	md := noticetest.NewGCP(t)
	md.SetInstance("a2-highgpu-1g", "us-central1-a", "SPOT", "FALSE")
	md.SetIdentity("ml-prod-4471", "train-a100-0", "4917253315550087010")
	ev, _, _ := startEvent(t, map[string]string{"GCE_METADATA_HOST": md.Host}, "--cloud", "gcp")
	if want := "//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-a/instances/4917253315550087010"; ev.InstanceID != want {
		t.Errorf("gcp start event instance_id = %q, want %q", ev.InstanceID, want)
	}
	az := noticetest.NewAzure(t, "vm0")
	az.SetCompute("Standard_NC24ads_A100_v4", "eastus", "1", "Spot")
	ev, _, _ = startEvent(t, nil, "--cloud", "azure", "--azure-metadata-url", az.URL)
	if want := noticetest.ResourceID("vm0"); ev.InstanceID != want {
		t.Errorf("azure start event instance_id = %q, want %q", ev.InstanceID, want)
	}
}
