package planfile

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/plan"
)

// ShareGPU is the GPU plan share packs onto: the catalog's model (--gpu) with its datasheet
// memory taken as GiB and its MIG profiles, or memGiB (--gpu-memory-gib) where set says the flag
// was given, which wins over the model's memory. The zero GPU, with neither, packs by compute
// alone.
func ShareGPU(model string, memGiB float64, set bool) (plan.ShareGPU, error) {
	var g plan.ShareGPU
	if set && (math.IsNaN(memGiB) || memGiB*1024 < 1 || memGiB > 1<<20) {
		return g, gpucost.Errorf(gpucost.EInvalid, "--gpu-memory-gib %v: give the GiB one GPU holds, above 0, such as 80", memGiB)
	}
	if model != "" {
		spec, ok := catalog.Spec(model)
		if !ok || spec.MemoryGB <= 0 {
			var known []string
			for _, s := range catalog.Specs() {
				if s.MemoryGB > 0 {
					known = append(known, s.Name)
				}
			}
			return g, gpucost.Errorf(gpucost.EInvalid, "--gpu %q: the catalog knows no such GPU model; use one of %s, or give its memory with --gpu-memory-gib", model, strings.Join(known, ", "))
		}
		g = plan.ShareGPU{Name: spec.Name, MemoryMiB: int(math.Round(spec.MemoryGB * 1024)), MIGProfiles: catalog.MIGProfiles(spec.Name)}
	}
	if set {
		g.MemoryMiB = int(math.Floor(memGiB * 1024))
		if g.Name != "" {
			g.Name = fmt.Sprintf("%s at %v GiB", g.Name, memGiB)
		}
	}
	return g, nil
}

// ReadSharePodsOn reads the pod list name (ReadSharePodsFor) to pack onto g, refusing a list
// whose pods give GPU memory when g's memory is not known.
func ReadSharePodsOn(name string, g plan.ShareGPU) ([]plan.SharePod, error) {
	if name == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--workloads PODS.csv is required: name, num_gpu, gpu_milli (gpu_spec, gpu_memory_mib, creation_time, deletion_time)")
	}
	pods, err := ReadSharePodsFor(name, g.MemoryMiB)
	if err != nil || g.MemoryMiB != 0 {
		return pods, err
	}
	for _, p := range pods {
		if p.MemoryMiB > 0 && p.GPUs > 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--workloads %s gives GPU memory (gpu_memory_mib; pod %q needs %d MiB), so the plan needs one GPU's memory: give --gpu MODEL, such as A100-80GB, or --gpu-memory-gib, such as 80", name, p.Name, p.MemoryMiB)
		}
	}
	return pods, nil
}
