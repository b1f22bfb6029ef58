package notice_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// TestDescribeAWSInstanceID checks that Describe reads the instance ID, which report spot
// matches with the bill's resource IDs, and that an instance without one is described all the
// same.
func TestDescribeAWSInstanceID(t *testing.T) {
	imds := noticetest.NewAWS(t)
	imds.SetInstance("g5.xlarge", "us-east-1", "us-east-1a", "use1-az4", "spot")
	imds.SetMetaData("instance-id", "i-0abc1234def567890")
	got, err := notice.Describe(t.Context(), notice.CloudAWS, notice.Probe{AWS: imds.URL})
	if err != nil || got.InstanceID != "i-0abc1234def567890" || got.ZoneID != "use1-az4" {
		t.Errorf("Describe(aws) = %+v, %v; want instance i-0abc1234def567890 in use1-az4", got, err)
	}
	imds.SetMetaData("instance-id", "")
	if got, err = notice.Describe(t.Context(), notice.CloudAWS, notice.Probe{AWS: imds.URL}); err != nil || got.InstanceID != "" || !got.Spot {
		t.Errorf("Describe(aws, no instance-id) = %+v, %v; want the machine without an ID and no error", got, err)
	}
}

// TestDescribeGCPInstanceID checks that Describe names a GCE VM as the detailed billing
// export's resource.global_name does (//compute.googleapis.com/projects/PROJECT/zones/ZONE/
// instances/ID, billing/gcp's ResourceId), by the project ID, else by the project number of
// instance/zone; and that a VM without instance/id is described all the same.
func TestDescribeGCPInstanceID(t *testing.T) {
	for _, tc := range []struct {
		name, project, id, want string
	}{
		{"project id", "ml-prod-4471", "8800112233445566778", "//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-b/instances/8800112233445566778"},
		{"domain-scoped project", "example.com:ml", "42", "//compute.googleapis.com/projects/example.com:ml/zones/us-central1-b/instances/42"},
		{"project number", "", "8800112233445566778", "//compute.googleapis.com/projects/123456789012/zones/us-central1-b/instances/8800112233445566778"},
		{"no instance id", "ml-prod-4471", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md := noticetest.NewGCP(t)
			md.SetInstance("a2-highgpu-1g", "us-central1-b", "SPOT", "FALSE")
			md.SetIdentity(tc.project, "sweep-a100-spot-3", tc.id)
			got, err := notice.Describe(t.Context(), notice.CloudGCP, notice.Probe{GCPHost: md.Host})
			if err != nil || got.InstanceID != tc.want || !got.Spot || got.Zone != "us-central1-b" {
				t.Errorf("Describe(gcp, project %q, id %q) = %+v, %v; want instance %q, spot in us-central1-b", tc.project, tc.id, got, err, tc.want)
			}
		})
	}
	md := noticetest.NewGCP(t)
	md.SetInstance("a2-highgpu-1g", "us-central1-b", "SPOT", "FALSE")
	md.SetIdentity("ml-prod-4471", "vm", "12ab")
	got, err := notice.Describe(t.Context(), notice.CloudGCP, notice.Probe{GCPHost: md.Host})
	if err == nil || !strings.Contains(err.Error(), `instance/id "12ab" is not a number`) || got.InstanceID != "" || got.InstanceType != "a2-highgpu-1g" {
		t.Errorf("Describe(gcp, id 12ab) = %+v, %v; want the machine without an ID and an error naming instance/id", got, err)
	}
}

func TestGCPResourceName(t *testing.T) {
	for _, tc := range []struct {
		project, zone, id, want, err string
	}{
		{"p-1", "projects/9/zones/europe-west4-a", "7", "//compute.googleapis.com/projects/p-1/zones/europe-west4-a/instances/7", ""},
		{"", "projects/9/zones/europe-west4-a", "7", "//compute.googleapis.com/projects/9/zones/europe-west4-a/instances/7", ""},
		{"p-1", "", "7", "", ""},
		{"p-1", "europe-west4-a", "7", "", "is not projects/NUM/zones/ZONE"},
		{"P 1", "projects/9/zones/europe-west4-a", "7", "", `project/project-id "P 1"`},
		{"p-1", "projects/9/zones/europe-west4-a", "123456789012345678901", "", "is not a number"},
	} {
		got, err := notice.GCPResourceName(tc.project, tc.zone, tc.id)
		if got != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("GCPResourceName(%q, %q, %q) = %q, %v; want %q, error %q", tc.project, tc.zone, tc.id, got, err, tc.want, tc.err)
		}
	}
}

// TestParseAzureResourceID checks the VM's ARM resource ID: resourceId as the service gives
// it, case kept; built from subscriptionId, resourceGroupName and name where an older
// api-version lacks it; none for a scale set's instance without it; an error for a malformed one.
func TestParseAzureResourceID(t *testing.T) {
	const sub = `"subscriptionId": "3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d", "resourceGroupName": "ML-Finetune", "name": "spot-t4-07"`
	for _, tc := range []struct {
		name, doc, want, err string
	}{
		{"resourceId", `{"resourceId": "/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourceGroups/ML-Finetune/providers/Microsoft.Compute/virtualMachines/spot-t4-07", ` + sub + `}`,
			"/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourceGroups/ML-Finetune/providers/Microsoft.Compute/virtualMachines/spot-t4-07", ""},
		{"built", `{` + sub + `, "vmScaleSetName": ""}`,
			"/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourceGroups/ML-Finetune/providers/Microsoft.Compute/virtualMachines/spot-t4-07", ""},
		{"scale set instance", `{` + sub + `, "vmScaleSetName": "pool-vmss"}`, "", ""},
		{"scale set resourceId", `{"resourceId": "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool-vmss/virtualMachines/3"}`,
			"/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/pool-vmss/virtualMachines/3", ""},
		{"not an ARM id", `{"resourceId": "spot-t4-07"}`, "", "resourceId \"spot-t4-07\" is not an ARM resource ID"},
		{"slash in a name", `{"subscriptionId": "s", "resourceGroupName": "a/b", "name": "vm"}`, "", "do not make a resource ID"},
	} {
		doc := `{"vmSize": "Standard_NC4as_T4_v3", "location": "eastus", "priority": "Spot", ` + tc.doc[1:]
		m, err := notice.ParseAzureCompute([]byte(doc))
		if m.InstanceID != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) || !m.Spot {
			t.Errorf("%s: ParseAzureCompute(%s) = %q, %v; want %q, error %q", tc.name, doc, m.InstanceID, err, tc.want, tc.err)
		}
	}
}

// gceName is the full resource name of a VM named by its number.
var gceName = regexp.MustCompile(`^//compute\.googleapis\.com/projects/[a-z0-9.:-]+/zones/[A-Za-z0-9._-]+/instances/[0-9]+$`)

func FuzzGCPResourceName(f *testing.F) {
	f.Add("ml-prod-4471", "projects/123456789012/zones/us-central1-a", "8800112233445566778")
	f.Add("", "projects/1/zones/us-east1-c", "1")
	f.Add("p", "zones/x", "")
	f.Fuzz(func(t *testing.T, project, zone, id string) {
		name, err := notice.GCPResourceName(project, zone, id)
		if (err == nil && name != "" && !gceName.MatchString(name)) || (err != nil && name != "") {
			t.Fatalf("GCPResourceName(%q, %q, %q) = %q, %v; want a VM's full resource name or an error", project, zone, id, name, err)
		}
	})
}
