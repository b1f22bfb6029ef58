package main

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/spf13/cobra"
)

func newPlanMIGCmd(e *env) *cobra.Command {
	var (
		gpu, workloads string
	)
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
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			if workloads == "" {
				return gpucost.Errorf(gpucost.EInvalid, "--workloads FILE.csv is required: name, memory_gb, compute_share")
			}
			ws, err := planfile.ReadMIGWorkloads(workloads)
			if err != nil {
				return err
			}
			in := plan.MIGInput{GPU: gpu, Workloads: ws}
			if canon, ok := catalog.Normalize(gpu); ok {
				if spec, ok := catalog.Spec(canon); ok && len(spec.MIG) > 0 {
					in.Profiles = spec.MIG
				}
			}
			res, err := plan.PlanMIG(in)
			if err != nil {
				return err
			}
			return e.print(migResult(res))
		},
	}
	cmd.Flags().StringVar(&gpu, "gpu", "A100-80GB", "the GPU: A100-40GB, A100-80GB, H100-80GB, H100-94GB, H200, or another MIG GPU of the catalog")
	cmd.Flags().StringVar(&workloads, "workloads", "", "CSV of workloads: name, memory_gb, compute_share")
	return cmd
}

func migResult(r plan.MIGResult) result {
	out := result{
		Title: fmt.Sprintf("%d workloads on %s: %d GPUs with MIG against %d whole GPUs (%d saved, %.0f%%)",
			r.Workloads, r.GPU, r.GPUsNeeded, r.WholeGPUs, r.GPUsSaved, r.SavedPercent),
		Columns: []string{"GPU", "Layout", "Workloads", "Free compute", "Free memory", "Stranded compute", "Stranded memory"},
		Right:   []int{0, 3, 4, 5, 6},
		JSON:    r,
	}
	for _, g := range r.GPUs {
		names := make([]string, len(g.Instances))
		for i, in := range g.Instances {
			names[i] = in.Workload
		}
		out.Rows = append(out.Rows, []string{fmt.Sprint(g.GPU), g.Layout, strings.Join(names, ", "), fmt.Sprint(g.FreeComputeSlices),
			fmt.Sprint(g.FreeMemorySlices), fmt.Sprint(g.StrandedComputeSlices), fmt.Sprint(g.StrandedMemorySlices)})
	}
	proof := "optimal"
	if !r.Optimal {
		proof = fmt.Sprintf("at most %d GPUs above the optimum", r.GPUsNeeded-r.LowerBound)
	}
	out.Notes = append(out.Notes, fmt.Sprintf("Method: %s (%s; lower bound %d GPUs).", r.Method, proof, r.LowerBound))
	return out
}
