//go:build cgo

package nvml

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/workload"
)

func TestShareGPU(t *testing.T) {
	gpu := gpucost.NewSample(time.Unix(0, 0), gpucost.GPU{UUID: "GPU-1"})
	gpu.Util, gpu.MemUsedMiB = 60, 5000
	mig := gpu
	mig.GPU.Parent = "GPU-0"
	a, b := workload.Workload{PodUID: "a"}, workload.Workload{Job: "7"}
	proc := func(sm, mem float64) Process { return Process{GPU: "GPU-1", SMUtil: sm, UsedMiB: mem} }
	none := gpucost.Absent
	for _, c := range []struct {
		name     string
		s        gpucost.Sample
		procs    []Process
		ws       []workload.Workload
		sampling bool
		want     string // each sample's labels, util and memory
	}{
		{"one workload's two processes: the GPU's sample", gpu, []Process{proc(30, 1000), proc(20, 1000)}, []workload.Workload{a, a}, true,
			"[pod_uid=a 60 5000]"},
		{"two workloads: their shares of the GPU's 60%, adding up to it", gpu, []Process{proc(30, 1000), proc(10, 3000), proc(5, 500)},
			[]workload.Workload{a, b, a}, true, "[gpu_share=sm,job=7 13.333 3000 gpu_share=sm,pod_uid=a 46.667 1500]"},
		{"two workloads, no kernel since the last read: equal shares", gpu, []Process{proc(none, 1000), proc(none, none)},
			[]workload.Workload{a, b}, true, "[gpu_share=sm,job=7 30 NaN gpu_share=sm,pod_uid=a 30 1000]"},
		{"NVML does not sample processes: the GPU's sample", gpu, []Process{proc(none, 1000), proc(none, 1000)},
			[]workload.Workload{a, b}, false, "[job=7,pod_uid=a 60 5000]"},
		{"a MIG instance: the instance's sample", mig, []Process{proc(30, 1000), proc(10, 1000)},
			[]workload.Workload{a, b}, true, "[job=7,pod_uid=a 60 5000]"},
	} {
		var got []string
		for _, s := range shareGPU(c.s, c.procs, c.ws, c.sampling) {
			got = append(got, fmt.Sprintf("%s %.5g %g", s.Labels, s.Util, s.MemUsedMiB))
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("%s: shareGPU = %v, want %s", c.name, got, c.want)
		}
	}
}
