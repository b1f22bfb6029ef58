package main

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newPlanShareCmd(e *env) *cobra.Command {
	var workloads string
	cmd := &cobra.Command{
		Use:   "share --workloads PODS.csv",
		Short: "Pack fractional GPU requests: whole GPUs, time-slicing/MPS and MIG side by side, against first-fit decreasing and a lower bound",
		Long: `share packs pods' GPU requests three ways (docs/architecture.md "Sharing GPUs beyond MIG"): whole
GPUs, one a request; fractional sharing under time-slicing or MPS, requests of thousandths of a
GPU sharing one while they sum to at most 1,000 (best-fit decreasing, beside first-fit decreasing
and Martello and Toth's lower bound); and MIG, each fraction on the smallest profile with as many
of the 7 compute slices (beside the MIG bound). Requests of whole GPUs take whole GPUs every way.
It plans for all the requests at once, at the peak of those running together, and over time as
GPU-hours, repacking whenever a request starts or ends.

PODS.csv is openb's pod list (alibaba/clusterdata cluster-trace-gpu-v2023): name, num_gpu,
gpu_milli, optionally gpu_spec (the GPU models a pod may run on, such as V100M32|A100: a
fraction shares a GPU only with fractions of the same gpu_spec or of none) and, for the peak and
GPU-hours, creation_time and deletion_time in seconds.`,
		Example: `  gpucost plan share --workloads openb_pod_list_default.csv
  gpucost plan share --workloads pods.csv --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if workloads == "" {
				return result{}, gpucost.Errorf(gpucost.EInvalid, "--workloads PODS.csv is required: name, num_gpu, gpu_milli (creation_time, deletion_time)")
			}
			pods, err := planfile.ReadSharePods(workloads)
			if err != nil {
				return result{}, err
			}
			return shown(present.Share)(plan.PlanShare(pods))
		}),
	}
	cmd.Flags().StringVar(&workloads, "workloads", "", "CSV of pods: name, num_gpu, gpu_milli, gpu_spec, creation_time, deletion_time (openb's pod list)")
	return cmd
}
