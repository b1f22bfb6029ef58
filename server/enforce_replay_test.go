package server

import (
	"maps"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/recommend"
)

// TestReplayNames: the replay finds each resource's monthly cost under the name the
// recommender gives its machine (the id, the name, else a telemetry host), and names a resource
// by its first host.
func TestReplayNames(t *testing.T) {
	v := recommend.FleetView{Resources: []recommend.Resource{
		{ID: "i-1", Monthly: gpucost.USD(100_000_000_000)},
		{ID: "nb-host", Monthly: gpucost.USD(200_000_000_000)},
		{ID: "named", Monthly: gpucost.USD(300_000_000_000)},
	}}
	resources := []enforce.Resource{
		{ID: "i-1", Hosts: []string{"gpu-1"}},
		{ID: "notebooks/nb", Hosts: []string{"nb-host", "nb-host-2"}},
		{ID: "vm-3", Name: "named"},
		{ID: "unbilled", Hosts: []string{"elsewhere"}},
	}
	got := monthlyByResource(v, resources)
	want := map[string]gpucost.Money{"i-1": gpucost.USD(100_000_000_000), "notebooks/nb": gpucost.USD(200_000_000_000), "vm-3": gpucost.USD(300_000_000_000)}
	if !maps.Equal(got, want) {
		t.Errorf("monthlyByResource = %v, want %v", got, want)
	}
	hosts := hostsOf(resources)
	wantHosts := map[string]string{"i-1": "gpu-1", "notebooks/nb": "nb-host", "unbilled": "elsewhere"}
	if !maps.Equal(hosts, wantHosts) {
		t.Errorf("hostsOf = %v, want %v", hosts, wantHosts)
	}
}
