package enforce

import (
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// StoredResources are the machines of the store's inventory (gpucost import inventory) as
// resources, for rehearsing idle and off-hours policies without a live inventory: each is
// taken as running (its telemetry decides whether it is idle), of the kind its provider gives
// (aws: EC2 instance, gcp: GCE VM, azure: Azure VM), joined to its telemetry host, with the
// owner tags the inventory holds. They cannot be acted on: no adapter lists them.
func StoredResources(entries []gpucost.InventoryEntry) []Resource {
	out := make([]Resource, 0, len(entries))
	for _, e := range entries {
		kind := KindEC2
		switch strings.ToLower(e.Provider) {
		case "gcp", "google":
			kind = KindGCE
		case "azure", "microsoft":
			kind = KindAzureVM
		}
		tags := map[string]string{}
		for k, v := range e.Tags {
			tags[k] = v
		}
		out = append(out, Resource{Kind: kind, ID: e.ResourceID, Name: e.Host, Provider: strings.ToLower(e.Provider), InstanceType: e.InstanceType,
			Count: 1, GPUs: e.GPUs, State: "in the store's inventory", Running: true, Tags: tags, Hosts: []string{e.Host}, Rehearsal: true})
	}
	return out
}

// JoinInventory adds to each resource the telemetry hosts the store's inventory ties to its id
// or ARN, so that idle policies find its GPUs when the host name is neither its id nor its name,
// and the inventory's GPU count where the adapter found none.
func JoinInventory(resources []Resource, entries []gpucost.InventoryEntry) {
	byID := map[string][]gpucost.InventoryEntry{}
	for _, e := range entries {
		byID[e.ResourceID] = append(byID[e.ResourceID], e)
	}
	for i := range resources {
		r := &resources[i]
		for _, id := range []string{r.ID, r.ARN} {
			for _, e := range byID[id] {
				if id != "" && !slices.Contains(r.Hosts, e.Host) {
					r.Hosts = append(r.Hosts, e.Host)
				}
				if id != "" && r.GPUs == 0 {
					r.GPUs = e.GPUs
				}
			}
		}
	}
}

// PriceResources sets the hourly cost of each resource that has none from hourly, looked up by
// its id, name or telemetry hosts.
func PriceResources(resources []Resource, hourly map[string]gpucost.Money) {
	for i := range resources {
		r := &resources[i]
		if r.Hourly != nil {
			continue
		}
		for _, k := range append([]string{r.ID, r.Name}, r.Hosts...) {
			if m, ok := hourly[k]; ok && k != "" {
				r.Hourly = &m
				break
			}
		}
	}
}
