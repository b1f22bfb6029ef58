package main

import (
	"github.com/gpucost/gpucost/inventory"
	"github.com/gpucost/gpucost/present"
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
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			entries, err := inventory.ReadFile(args[0])
			if err != nil {
				return result{}, err
			}
			ctx := cmd.Context()
			db, err := e.openDB(ctx)
			if err != nil {
				return result{}, err
			}
			defer db.Close()
			added, replaced, err := db.PutInventory(ctx, entries)
			return present.InventoryImport(args[0], len(entries), added, replaced), err
		}),
	}
}
