package notice_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

func TestDescribeAWS(t *testing.T) {
	for _, tc := range []struct {
		name                                      string
		instanceType, region, zone, id, lifecycle string
		want                                      notice.Machine
	}{
		{"spot", "g5.xlarge", "us-east-1", "us-east-1a", "use1-az4", "spot",
			notice.Machine{Cloud: "aws", InstanceType: "g5.xlarge", Region: "us-east-1", Zone: "us-east-1a", ZoneID: "use1-az4", Lifecycle: "spot", Spot: true, KnowsSpot: true}},
		{"on-demand", "p5.48xlarge", "us-west-2", "us-west-2b", "usw2-az1", "on-demand",
			notice.Machine{Cloud: "aws", InstanceType: "p5.48xlarge", Region: "us-west-2", Zone: "us-west-2b", ZoneID: "usw2-az1", Lifecycle: "on-demand", KnowsSpot: true}},
		// An instance from before placement/region and availability-zone-id: the zone gives the region.
		{"old instance", "p3.2xlarge", "", "eu-west-1c", "", "scheduled",
			notice.Machine{Cloud: "aws", InstanceType: "p3.2xlarge", Region: "eu-west-1", Zone: "eu-west-1c", Lifecycle: "scheduled", KnowsSpot: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imds := noticetest.NewAWS(t)
			imds.SetInstance(tc.instanceType, tc.region, tc.zone, tc.id, tc.lifecycle)
			got, err := notice.Describe(t.Context(), notice.CloudAWS, notice.Probe{AWS: imds.URL})
			if err != nil || got != tc.want {
				t.Errorf("Describe(aws) = %+v, %v; want %+v", got, err, tc.want)
			}
			if imds.TokenRequests() != 1 {
				t.Errorf("Describe fetched %d IMDSv2 tokens, want 1", imds.TokenRequests())
			}
		})
	}
}

func TestDescribeGCP(t *testing.T) {
	for _, tc := range []struct {
		name                            string
		machineType, zone, model, preem string
		want                            notice.Machine
	}{
		{"spot", "a2-highgpu-1g", "us-central1-a", "SPOT", "FALSE",
			notice.Machine{Cloud: "gcp", InstanceType: "a2-highgpu-1g", Region: "us-central1", Zone: "us-central1-a", Lifecycle: "SPOT", Spot: true, KnowsSpot: true}},
		{"standard", "g2-standard-8", "europe-west4-b", "STANDARD", "FALSE",
			notice.Machine{Cloud: "gcp", InstanceType: "g2-standard-8", Region: "europe-west4", Zone: "europe-west4-b", Lifecycle: "STANDARD", KnowsSpot: true}},
		{"preemptible", "n1-standard-8", "us-east1-c", "", "TRUE",
			notice.Machine{Cloud: "gcp", InstanceType: "n1-standard-8", Region: "us-east1", Zone: "us-east1-c", Lifecycle: "preemptible", Spot: true, KnowsSpot: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := noticetest.NewGCP(t)
			md.SetInstance(tc.machineType, tc.zone, tc.model, tc.preem)
			got, err := notice.Describe(t.Context(), notice.CloudGCP, notice.Probe{GCPHost: md.Host})
			if err != nil || got != tc.want {
				t.Errorf("Describe(gcp) = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestDescribeAzure(t *testing.T) {
	for _, tc := range []struct {
		name                           string
		size, location, zone, priority string
		want                           notice.Machine
	}{
		{"spot", "Standard_NC24ads_A100_v4", "eastus", "1", "Spot",
			notice.Machine{Cloud: "azure", InstanceType: "Standard_NC24ads_A100_v4", Region: "eastus", Zone: "1", Lifecycle: "Spot", Spot: true, KnowsSpot: true}},
		{"low priority", "Standard_NC6s_v3", "westus2", "", "Low",
			notice.Machine{Cloud: "azure", InstanceType: "Standard_NC6s_v3", Region: "westus2", Lifecycle: "Low", Spot: true, KnowsSpot: true}},
		{"regular", "Standard_ND96asr_v4", "southcentralus", "2", "Regular",
			notice.Machine{Cloud: "azure", InstanceType: "Standard_ND96asr_v4", Region: "southcentralus", Zone: "2", Lifecycle: "Regular", KnowsSpot: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imds := noticetest.NewAzure(t, "vm0")
			imds.SetCompute(tc.size, tc.location, tc.zone, tc.priority)
			got, err := notice.Describe(t.Context(), notice.CloudAzure, notice.Probe{AzureURL: imds.URL})
			tc.want.InstanceID = noticetest.ResourceID("vm0")
			if err != nil || got != tc.want {
				t.Errorf("Describe(azure) = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

// TestDescribeUnreachable: no service, or one that hangs, gives an empty machine and an
// EUnavailable error within the timeout; none asks nothing.
func TestDescribeUnreachable(t *testing.T) {
	refused := closedURL(t)
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }))
	t.Cleanup(hang.Close)
	for _, tc := range []struct {
		cloud string
		p     notice.Probe
	}{
		{"aws", notice.Probe{AWS: refused}},
		{"gcp", notice.Probe{GCPHost: hostOf(refused)}},
		{"azure", notice.Probe{AzureURL: refused}},
		{"aws", notice.Probe{AWS: hang.URL, Timeout: 50 * time.Millisecond}},
		{"gcp", notice.Probe{GCPHost: hostOf(hang.URL), Timeout: 50 * time.Millisecond}},
		{"azure", notice.Probe{AzureURL: hang.URL, Timeout: 50 * time.Millisecond}},
	} {
		start := time.Now()
		m, err := notice.Describe(t.Context(), tc.cloud, tc.p)
		if gpucost.ErrorCode(err) != gpucost.EUnavailable || m != (notice.Machine{}) {
			t.Errorf("Describe(%s, %+v) = %+v, %v; want an empty machine and EUnavailable", tc.cloud, tc.p, m, err)
		}
		if time.Since(start) > 3*time.Second {
			t.Errorf("Describe(%s) took %v", tc.cloud, time.Since(start))
		}
	}
	if m, err := notice.Describe(t.Context(), notice.CloudNone, notice.Probe{}); err != nil || m != (notice.Machine{}) {
		t.Errorf("Describe(none) = %+v, %v; want nothing", m, err)
	}
	if _, err := notice.Describe(t.Context(), "ibm", notice.Probe{}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Describe(ibm) = %v, want EInvalid", err)
	}
}

// TestDescribePartial: what can be read is returned, with an error naming what cannot.
func TestDescribePartial(t *testing.T) {
	imds := noticetest.NewAWS(t)
	imds.SetInstance("g6.xlarge", "us-east-2", "us-east-2a", "use2-az1", "")
	imds.SetMetaData("instance-life-cycle", "reserved")
	m, err := notice.Describe(t.Context(), notice.CloudAWS, notice.Probe{AWS: imds.URL})
	if m.InstanceType != "g6.xlarge" || m.Region != "us-east-2" || m.KnowsSpot || err == nil ||
		!strings.Contains(err.Error(), `instance-life-cycle "reserved" is not spot, on-demand or scheduled`) {
		t.Errorf("Describe with an odd life cycle = %+v, %v; want the type and region, and the life cycle named", m, err)
	}

	md := noticetest.NewGCP(t)
	md.SetMetadata("instance/zone", "projects/1/zones/us-central1-b")
	m, err = notice.Describe(t.Context(), notice.CloudGCP, notice.Probe{GCPHost: md.Host})
	if m.Zone != "us-central1-b" || m.InstanceType != "" || err == nil || !strings.Contains(err.Error(), "instance/machine-type") {
		t.Errorf("Describe without a machine type = %+v, %v; want the zone and an error naming machine-type", m, err)
	}

	az := noticetest.NewAzure(t, "vm0")
	az.SetComputeDocument(`{"vmSize": "Standard_NC6s_v3"`)
	if m, err := notice.Describe(t.Context(), notice.CloudAzure, notice.Probe{AzureURL: az.URL}); err == nil || !strings.Contains(err.Error(), "malformed compute metadata JSON") {
		t.Errorf("Describe with truncated compute JSON = %+v, %v", m, err)
	}
}

// TestParseMachineDocumented reads the compute sections as Azure documents them, and the
// values AWS and GCP document.
func TestParseMachineDocumented(t *testing.T) {
	m, err := notice.ParseAzureCompute(readTestdata(t, "azure-compute.json"))
	want := notice.Machine{Cloud: "azure", InstanceType: "Standard_NC24ads_A100_v4", Region: "eastus", Zone: "1", Lifecycle: "Spot", Spot: true, KnowsSpot: true,
		InstanceID: "/subscriptions/00000000-0000-4000-8000-000000000000/resourceGroups/training/providers/Microsoft.Compute/virtualMachines/train-a100-0"}
	if err != nil || m != want {
		t.Errorf("ParseAzureCompute(azure-compute.json) = %+v, %v; want %+v", m, err, want)
	}
	m, err = notice.ParseAzureCompute(readTestdata(t, "azure-compute-regular.json"))
	want = notice.Machine{Cloud: "azure", InstanceType: "Standard_NV36ads_A10_v5", Region: "westeurope", Lifecycle: "Regular", KnowsSpot: true}
	if err != nil || m != want {
		t.Errorf("ParseAzureCompute(azure-compute-regular.json) = %+v, %v; want %+v", m, err, want)
	}
	m, err = notice.ParseGCPMachine("projects/123456789012/machineTypes/a3-highgpu-8g", "projects/123456789012/zones/us-central1-a", "SPOT", "FALSE")
	if err != nil || m.InstanceType != "a3-highgpu-8g" || m.Region != "us-central1" || !m.Spot {
		t.Errorf("ParseGCPMachine(documented) = %+v, %v", m, err)
	}
	for _, tc := range []struct {
		name, body, want string
		parse            func() error
	}{
		{"gcp machine type", "n1-standard-8", "machineTypes/NAME", func() error {
			_, err := notice.ParseGCPMachine("n1-standard-8", "", "", "")
			return err
		}},
		{"gcp model", "RESERVED", `provisioning-model "RESERVED"`, func() error {
			_, err := notice.ParseGCPMachine("", "", "RESERVED", "")
			return err
		}},
		{"aws type", "g5 xlarge", `instance-type "g5 xlarge" is not a name`, func() error {
			_, err := notice.ParseAWSMachine("g5 xlarge", "", "", "", "spot")
			return err
		}},
		{"azure priority", "Premium", `priority "Premium"`, func() error {
			_, err := notice.ParseAzureCompute([]byte(`{"vmSize":"Standard_A1","location":"eastus","priority":"Premium"}`))
			return err
		}},
		{"azure size", "", "vmSize is missing", func() error {
			_, err := notice.ParseAzureCompute([]byte(`{"location":"eastus","priority":"Spot"}`))
			return err
		}},
	} {
		if err := tc.parse(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %q gave %v; want an error saying %q", tc.name, tc.body, err, tc.want)
		}
	}
}

// checkMachine is what every parse must give: names without odd characters, and Spot only
// when the life cycle was read.
func checkMachine(t *testing.T, m notice.Machine) {
	for _, s := range []string{m.InstanceType, m.Region, m.Zone, m.ZoneID} {
		if strings.ContainsAny(s, " /\n\t\"") {
			t.Fatalf("machine %+v has a field with odd characters: %q", m, s)
		}
	}
	if strings.ContainsAny(m.InstanceID, " \n\t\"?#") {
		t.Fatalf("machine %+v has an instance ID with odd characters", m)
	}
	if m.Spot && !m.KnowsSpot {
		t.Fatalf("machine %+v is spot without a known life cycle", m)
	}
}

func FuzzParseAzureCompute(f *testing.F) {
	f.Add(readTestdata(f, "azure-compute.json"))
	f.Add(readTestdata(f, "azure-compute-regular.json"))
	f.Add([]byte(`{"vmSize":"Standard_NC6s_v3","location":"westus2","priority":"Low"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, _ := notice.ParseAzureCompute(b)
		checkMachine(t, m)
	})
}

func FuzzParseGCPMachine(f *testing.F) {
	f.Add("projects/123456789012/machineTypes/a2-highgpu-1g", "projects/123456789012/zones/us-central1-a", "SPOT", "FALSE")
	f.Add("projects/1/machineTypes/n1-standard-8", "projects/1/zones/us-east1-c", "", "TRUE")
	f.Fuzz(func(t *testing.T, machineType, zone, model, preemptible string) {
		m, err := notice.ParseGCPMachine(machineType, zone, model, preemptible)
		checkMachine(t, m)
		if err == nil && m.Zone != "" && !strings.HasPrefix(m.Zone, m.Region+"-") {
			t.Fatalf("zone %q is not in region %q", m.Zone, m.Region)
		}
	})
}

func FuzzParseAWSMachine(f *testing.F) {
	f.Add("g5.xlarge", "us-east-1", "us-east-1a", "use1-az4", "spot")
	f.Add("p3.2xlarge", "", "eu-west-1c", "", "on-demand")
	f.Add("g4dn.xlarge", "us-west-2", "us-west-2-lax-1a", "usw2-lax1-az1", "scheduled")
	f.Fuzz(func(t *testing.T, instanceType, region, zone, zoneID, lifecycle string) {
		m, _ := notice.ParseAWSMachine(instanceType, region, zone, zoneID, lifecycle)
		checkMachine(t, m)
	})
}

// BenchmarkDescribe measures one whole description against the fakes on loopback: the time
// gpucost run adds at start.
func BenchmarkDescribe(b *testing.B) {
	imds := noticetest.NewAWS(b)
	imds.SetInstance("g5.xlarge", "us-east-1", "us-east-1d", "use1-az4", "spot")
	md := noticetest.NewGCP(b)
	md.SetInstance("a2-highgpu-1g", "us-central1-a", "SPOT", "FALSE")
	az := noticetest.NewAzure(b, "vm0")
	az.SetCompute("Standard_NC24ads_A100_v4", "eastus", "1", "Spot")
	for _, c := range []struct {
		cloud string
		p     notice.Probe
	}{{"aws", notice.Probe{AWS: imds.URL}}, {"gcp", notice.Probe{GCPHost: md.Host}}, {"azure", notice.Probe{AzureURL: az.URL}}} {
		b.Run(c.cloud, func(b *testing.B) {
			for b.Loop() {
				if m, err := notice.Describe(b.Context(), c.cloud, c.p); err != nil || !m.Spot {
					b.Fatalf("Describe = %+v, %v", m, err)
				}
			}
		})
	}
}
