// Package inventory reads the inventory files that tie billed resources to the hosts their
// GPUs report telemetry from (gpucost import inventory), for fleets where neither the instance
// id nor the host name shows in both the bill and the telemetry.
package inventory

import (
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/internal/csvin"
)

// columns are the inventory's own columns; any other is an owner tag.
var columns = map[string]bool{"resource_id": true, "host": true, "provider": true, "instance_type": true, "gpu_model": true, "gpus": true}

// IsColumn reports whether a header name, in any case, is one of the inventory's own columns
// rather than an owner tag.
func IsColumn(name string) bool { return columns[strings.ToLower(strings.TrimSpace(name))] }

// ReadFile reads an inventory CSV: resource_id and host (required), provider, instance_type,
// gpu_model and gpus by header name, and any other column as an owner tag. A bad value is an
// EInvalid error naming the file, line and column.
func ReadFile(name string) ([]gpucost.InventoryEntry, error) {
	c, err := csvin.Open("import", name, "resource_id", "host")
	if err != nil {
		return nil, err
	}
	var out []gpucost.InventoryEntry
	err = c.Each(func(rec []string) error {
		ent, err := entry(c, rec)
		out = append(out, ent)
		return err
	})
	return out, err
}

// entry reads one record.
func entry(c *csvin.File, rec []string) (gpucost.InventoryEntry, error) {
	ent := gpucost.InventoryEntry{ResourceID: c.Get(rec, "resource_id"), Host: c.Get(rec, "host"), Provider: c.Get(rec, "provider"),
		InstanceType: c.Get(rec, "instance_type")}
	if ent.ResourceID == "" || ent.Host == "" {
		return ent, c.Errorf("resource_id", "resource_id and host must not be empty")
	}
	if m := c.Get(rec, "gpu_model"); m != "" {
		canon, ok := catalog.Normalize(m)
		if !ok {
			return ent, c.Errorf("gpu_model", "gpu_model %q is not a GPU the catalog knows (see gpucost catalog specs)", m)
		}
		ent.GPUModel = canon
	}
	if g := c.Get(rec, "gpus"); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || n < 0 {
			return ent, c.Errorf("gpus", "gpus %q is not a whole number of GPUs", g)
		}
		ent.GPUs = n
	}
	for i, h := range c.Header() {
		k := strings.TrimSpace(h)
		if i >= len(rec) || IsColumn(k) {
			continue
		}
		if v := strings.TrimSpace(rec[i]); v != "" {
			if ent.Tags == nil {
				ent.Tags = gpucost.Labels{}
			}
			ent.Tags[k] = v
		}
	}
	return ent, nil
}
