package notice

import (
	"fmt"
	"strings"
)

// The IDs Describe records in Machine.InstanceID are the ones each cloud's bill names the
// machine's resource by, so report spot can tell a run's instance among the bill's lines
// (docs/architecture.md "Spot risk"): AWS's instance-id, the ResourceId of its CUR and FOCUS
// lines; on GCP the VM's full resource name, the resource.global_name of the detailed billing
// export (billing/gcp keeps it as the ResourceId); on Azure the VM's ARM resource ID, the
// ResourceId (InstanceId) of the cost exports.

// gcpComputePrefix starts the full resource name of a Compute Engine resource.
const gcpComputePrefix = "//compute.googleapis.com/projects/"

// GCPResourceName builds a VM's full resource name,
// //compute.googleapis.com/projects/PROJECT/zones/ZONE/instances/ID, from the metadata
// server's project/project-id, instance/zone (projects/NUM/zones/ZONE) and instance/id (the
// VM's number). PROJECT is the project ID, else the number instance/zone gives. An empty
// instance/id or instance/zone gives an empty name and no error: the VM is described without
// it (ParseGCPMachine names a missing zone).
func GCPResourceName(projectID, zone, instanceID string) (string, error) {
	if instanceID == "" || zone == "" {
		return "", nil
	}
	if !digits(instanceID) {
		return "", fmt.Errorf("instance/id %q is not a number", snippet([]byte(instanceID)))
	}
	parts := strings.Split(zone, "/")
	if len(parts) != 4 || parts[0] != "projects" || parts[2] != gcpZonesSeg || !validName(parts[3]) {
		return "", fmt.Errorf("instance/zone %q is not projects/NUM/zones/ZONE, so instance %s has no resource name", snippet([]byte(zone)), instanceID)
	}
	project := projectID
	if project == "" {
		project = parts[1]
	}
	if !gcpProject(project) {
		return "", fmt.Errorf("project/project-id %q is not a project ID", snippet([]byte(project)))
	}
	return gcpComputePrefix + project + "/zones/" + parts[3] + "/instances/" + instanceID, nil
}

// digits reports whether s is 1 to 20 decimal digits, as GCE's unsigned 64-bit IDs are.
func digits(s string) bool {
	if s == "" || len(s) > 20 {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// gcpProject accepts project IDs (my-project-123), domain-scoped ones (example.com:my-project)
// and project numbers.
func gcpProject(s string) bool {
	if s == "" || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == ':') {
			return false
		}
	}
	return true
}

// azureCompute is the part of the compute section that names the VM's resource.
type azureCompute struct {
	ResourceID        string `json:"resourceId"`
	SubscriptionID    string `json:"subscriptionId"`
	ResourceGroupName string `json:"resourceGroupName"`
	Name              string `json:"name"`
	VMScaleSetName    string `json:"vmScaleSetName"`
}

// armID returns the VM's ARM resource ID as the compute section gives it (resourceId, since
// api-version 2019-03-11), else built from subscriptionId, resourceGroupName and name for a VM
// outside a scale set; empty, without an error, where neither is there. The case is kept:
// report spot compares resource IDs without case, as Azure's exports vary it.
func (c azureCompute) armID() (string, error) {
	if c.ResourceID != "" {
		if !armResourceID(c.ResourceID) {
			return "", fmt.Errorf("compute field resourceId %q is not an ARM resource ID (/subscriptions/…/providers/…)", snippet([]byte(c.ResourceID)))
		}
		return c.ResourceID, nil
	}
	if c.VMScaleSetName != "" || c.SubscriptionID == "" || c.ResourceGroupName == "" || c.Name == "" {
		return "", nil // a scale set's instance ID cannot be built from its name
	}
	id := "/subscriptions/" + c.SubscriptionID + "/resourceGroups/" + c.ResourceGroupName + "/providers/Microsoft.Compute/virtualMachines/" + c.Name
	if strings.Count(id, "/") != 8 || !armResourceID(id) {
		return "", fmt.Errorf("compute fields subscriptionId %q, resourceGroupName %q and name %q do not make a resource ID",
			snippet([]byte(c.SubscriptionID)), snippet([]byte(c.ResourceGroupName)), snippet([]byte(c.Name)))
	}
	return id, nil
}

// armResourceID accepts /subscriptions/…/providers/… without spaces, quotes or control
// characters, at most 1,024 bytes.
func armResourceID(s string) bool {
	if len(s) > 1024 || !strings.HasPrefix(strings.ToLower(s), "/subscriptions/") || !strings.Contains(strings.ToLower(s), "/providers/") {
		return false
	}
	for _, r := range s {
		if r <= ' ' || r == 0x7f || r == '"' || r == '\'' || r == '\\' || r == '?' || r == '#' {
			return false
		}
	}
	return true
}
