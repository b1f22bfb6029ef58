package main

import (
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newPlanMIGCmd(e *env) *cobra.Command {
	var gpu, workloads string
	cmd := &cobra.Command{
		Use:   "mig --gpu A100-80GB --workloads FILE.csv",
		Short: "Pack serving workloads onto MIG slices: layouts, GPUs needed, stranded slices",
		Long: `mig gives each workload the smallest MIG profile that holds its memory and compute share
(share × 7 compute slices, rounded up) and packs the profiles onto as few GPUs as the MIG
placement rules allow (docs/architecture.md: 7 compute × 8 memory slices, fixed start positions per
profile). It prints each GPU's layout with placements, the GPUs needed against one whole GPU per
workload, and the slices left stranded. Small inputs are solved exactly; large ones by first-fit
decreasing, checked against a lower bound.

FILE.csv has a header with name, memory_gb and compute_share (0–1) columns.`,
		Example: `  gpucost plan mig --gpu A100-80GB --workloads serving.csv
  gpucost plan mig --gpu H100-80GB --workloads serving.csv --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			ws, err := planfile.ReadMIGWorkloads(workloads)
			if err != nil {
				return result{}, err
			}
			return shown(present.MIG)(plan.PlanMIG(plan.MIGInput{GPU: gpu, Workloads: ws, Profiles: catalog.MIGProfiles(gpu)}))
		}),
	}
	cmd.Flags().StringVar(&gpu, "gpu", "A100-80GB", "the GPU: A100-40GB, A100-80GB, H100-80GB, H100-94GB, H200, or another MIG GPU of the catalog")
	cmd.Flags().StringVar(&workloads, "workloads", "", "CSV of workloads: name, memory_gb, compute_share")
	return cmd
}
