package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/spf13/cobra"
)

func newImportInventoryCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "inventory FILE.csv",
		Short: "Tie billed resources to the hosts their GPUs report telemetry from",
		Long: `inventory reads a CSV that maps the resource ids of the bill to the host names of
telemetry, for fleets where neither the instance id nor the host name shows in both. Columns,
by header name: resource_id and host (required), provider, instance_type, gpu_model, gpus; any
other column is an owner tag for the resource (team, project, …), used where the bill has none.
Entries replace earlier ones with the same resource id.`,
		Example: `  gpucost import inventory fleet.csv

  fleet.csv:
    resource_id,host,instance_type,gpus,team
    i-0abc123,gpu-node-7,p4d.24xlarge,8,ml-platform`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			entries, err := readInventory(args[0])
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			added, replaced, err := db.PutInventory(ctx, entries)
			if err != nil {
				return err
			}
			return e.print(result{
				Columns: []string{"File", "Entries", "Added", "Replaced"},
				Rows:    [][]string{{args[0], fmt.Sprint(len(entries)), fmt.Sprint(added), fmt.Sprint(replaced)}},
				Right:   []int{1, 2, 3},
			})
		},
	}
}

// readInventory reads an inventory CSV; a bad value is an error naming file, line and column.
func readInventory(name string) ([]gpucost.InventoryEntry, error) {
	c, err := openCSV("import", name, "resource_id", "host")
	if err != nil {
		return nil, err
	}
	var out []gpucost.InventoryEntry
	err = c.each(func(rec []string) error {
		ent, err := inventoryEntry(c, rec)
		out = append(out, ent)
		return err
	})
	return out, err
}

// inventoryColumns are the inventory's own columns; any other is an owner tag.
var inventoryColumns = map[string]bool{"resource_id": true, "host": true, "provider": true, "instance_type": true, "gpu_model": true, "gpus": true}

func inventoryEntry(c *csvFile, rec []string) (gpucost.InventoryEntry, error) {
	ent := gpucost.InventoryEntry{ResourceID: c.get(rec, "resource_id"), Host: c.get(rec, "host"), Provider: c.get(rec, "provider"),
		InstanceType: c.get(rec, "instance_type")}
	if ent.ResourceID == "" || ent.Host == "" {
		return ent, c.errorf("resource_id", "resource_id and host must not be empty")
	}
	if m := c.get(rec, "gpu_model"); m != "" {
		canon, ok := catalog.Normalize(m)
		if !ok {
			return ent, c.errorf("gpu_model", "gpu_model %q is not a GPU the catalog knows (see gpucost catalog specs)", m)
		}
		ent.GPUModel = canon
	}
	if g := c.get(rec, "gpus"); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || n < 0 {
			return ent, c.errorf("gpus", "gpus %q is not a whole number of GPUs", g)
		}
		ent.GPUs = n
	}
	for i, h := range c.header {
		k := strings.TrimSpace(h)
		if i >= len(rec) || inventoryColumns[strings.ToLower(k)] {
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
