//go:build cgo

package nvml

import (
	"maps"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/workload"
)

// shareGPU returns the samples of a GPU whose processes belong to several workloads: one per
// workload, labelled with it and gpucost.LabelGPUShare, whose Util is the workload's share of
// the GPU's time (its processes' SM share, scaled so that the shares add up to the GPU's
// utilisation; equal where none ran a kernel since the last read) and whose memory is its
// processes' own. Where the processes are one workload's, or NVML does not sample processes on
// the device (sampling false; MIG instances), it returns s labelled with every workload on the
// GPU. See docs/architecture.md "Time-sliced GPUs: per-process samples".
func shareGPU(s gpucost.Sample, procs []Process, ws []workload.Workload, sampling bool) []gpucost.Sample {
	type use struct {
		labels   gpucost.Labels
		sm, mem  float64
		memKnown bool
	}
	byKey := map[string]*use{}
	var total float64
	for i, p := range procs {
		l := workload.Labels(ws[i : i+1])
		k := l.String()
		u := byKey[k]
		if u == nil {
			u = &use{labels: l}
			byKey[k] = u
		}
		if !gpucost.IsAbsent(p.SMUtil) {
			u.sm += p.SMUtil
			total += p.SMUtil
		}
		if !gpucost.IsAbsent(p.UsedMiB) {
			u.mem += p.UsedMiB
			u.memKnown = true
		}
	}
	if len(byKey) < 2 || !sampling || s.GPU.Parent != "" {
		s.Labels = workload.Labels(ws)
		return []gpucost.Sample{s}
	}
	util := s.Util
	if gpucost.IsAbsent(util) {
		util = min(total, 100)
	}
	out := make([]gpucost.Sample, 0, len(byKey))
	for _, k := range slices.Sorted(maps.Keys(byKey)) {
		u := byKey[k]
		w := s
		w.Labels = gpucost.Labels{gpucost.LabelGPUShare: gpucost.GPUShareSM}
		maps.Copy(w.Labels, u.labels)
		w.Util = util / float64(len(byKey)) // none ran a kernel: an equal share of nothing much
		if total > 0 {
			w.Util = util * u.sm / total
		}
		w.MemUsedMiB = gpucost.Absent
		if u.memKnown {
			w.MemUsedMiB = u.mem
		}
		out = append(out, w)
	}
	return out
}
