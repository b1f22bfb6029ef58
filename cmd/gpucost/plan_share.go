package main

import (
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newPlanShareCmd(e *env) *cobra.Command {
	var workloads, gpu string
	var memGiB float64
	cmd := &cobra.Command{
		Use:   "share --workloads PODS.csv [--gpu MODEL | --gpu-memory-gib GIB]",
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
GPU-hours, creation_time and deletion_time in seconds.

A gpu_memory_mib column (not openb's: its memory_mib is host memory) gives the GPU memory a pod
needs on each GPU it takes, in MiB. Memory then packs beside compute: time-slicing and MPS do
not isolate memory, so a GPU holds fractions while their thousandths sum to at most 1,000 and
their memory to at most the GPU's; under MIG a fraction takes the smallest profile with enough
compute and memory slices. One GPU's memory comes from --gpu (the catalog's datasheet memory,
taken as GiB: A100-80GB holds 81,920 MiB; its MIG profile names label the instances) or
--gpu-memory-gib, which wins over --gpu's. Every GPU of the plan is of that one model, whatever
the pods' gpu_spec.`,
		Example: `  gpucost plan share --workloads openb_pod_list_default.csv
  gpucost plan share --workloads pods.csv --output json
  gpucost plan share --workloads pods-gpu-memory.csv --gpu A100-80GB
  gpucost plan share --workloads pods-gpu-memory.csv --gpu-memory-gib 40`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			g, err := planfile.ShareGPU(gpu, memGiB, cmd.Flags().Changed("gpu-memory-gib"))
			if err != nil {
				return result{}, err
			}
			pods, err := planfile.ReadSharePodsOn(workloads, g)
			if err != nil {
				return result{}, err
			}
			return shown(present.Share)(plan.PlanShareOn(pods, g))
		}),
	}
	cmd.Flags().StringVar(&workloads, "workloads", "", "CSV of pods: name, num_gpu, gpu_milli, gpu_spec, gpu_memory_mib, creation_time, deletion_time (openb's pod list)")
	cmd.Flags().StringVar(&gpu, "gpu", "", "the GPU model the pods share, such as A100-80GB: its memory (the catalog's) and MIG profiles, for pods that give gpu_memory_mib")
	cmd.Flags().Float64Var(&memGiB, "gpu-memory-gib", 0, "GiB of memory one GPU holds, for pods that give gpu_memory_mib (wins over --gpu's)")
	return cmd
}
