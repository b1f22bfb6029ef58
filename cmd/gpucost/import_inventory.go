package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
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
	f, err := os.Open(name)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: reading the header: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	for _, need := range []string{"resource_id", "host"} {
		if _, ok := col[need]; !ok {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: line 1: the header has no %s column; an inventory needs resource_id and host", name, need)
		}
	}
	var out []gpucost.InventoryEntry
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
		}
		line, _ := r.FieldPos(0)
		ent, err := inventoryEntry(rec, header, col)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s:%d: %w", name, line, err)
		}
		out = append(out, ent)
	}
}

func inventoryEntry(rec, header []string, col map[string]int) (gpucost.InventoryEntry, error) {
	get := func(k string) string {
		if i, ok := col[k]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	ent := gpucost.InventoryEntry{ResourceID: get("resource_id"), Host: get("host"), Provider: get("provider"),
		InstanceType: get("instance_type")}
	if ent.ResourceID == "" || ent.Host == "" {
		return ent, fmt.Errorf("column %d: resource_id and host must not be empty", col["resource_id"]+1)
	}
	if m := get("gpu_model"); m != "" {
		canon, ok := catalog.Normalize(m)
		if !ok {
			return ent, fmt.Errorf("column %d: gpu_model %q is not a GPU the catalog knows (see gpucost catalog specs)", col["gpu_model"]+1, m)
		}
		ent.GPUModel = canon
	}
	if g := get("gpus"); g != "" {
		n, err := strconv.Atoi(g)
		if err != nil || n < 0 {
			return ent, fmt.Errorf("column %d: gpus %q is not a whole number of GPUs", col["gpus"]+1, g)
		}
		ent.GPUs = n
	}
	for i, h := range header {
		k := strings.TrimSpace(h)
		switch strings.ToLower(k) {
		case "resource_id", "host", "provider", "instance_type", "gpu_model", "gpus":
			continue
		}
		if i < len(rec) && rec[i] != "" {
			if ent.Tags == nil {
				ent.Tags = gpucost.Labels{}
			}
			ent.Tags[k] = strings.TrimSpace(rec[i])
		}
	}
	return ent, nil
}
