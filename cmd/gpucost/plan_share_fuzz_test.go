package main

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
)

// FuzzReadSharePods reads arbitrary files as plan share's pod list, on GPUs of 80 GiB: an
// EInvalid error naming the flag, or pods that plan to no fewer GPUs than their bounds and no
// more than whole GPUs.
func FuzzReadSharePods(f *testing.F) {
	f.Add("name,num_gpu,gpu_milli,creation_time,deletion_time\na,1,500,0,10\nb,1,600,5,20\nc,8,1000,0,3600\n")
	f.Add("name,num_gpu,gpu_milli\na,1,1001\n")
	f.Add("name,num_gpu,gpu_milli\na,2,300\nb,0,0\n")
	f.Add("name,num_gpu,gpu_milli,creation_time,deletion_time\na,1,1e3,9,1\n")
	f.Add("name,num_gpu,gpu_milli,gpu_memory_mib,creation_time,deletion_time\na,1,100,30720,0,10\nb,1,100,50000,5,20\nc,2,0,,0,3600\nd,1,300,90000,0,1\n")
	file := newCSVFuzzFile(f, "pods.csv")
	f.Fuzz(func(t *testing.T, data string) {
		file.write(t, data)
		pods, err := planfile.ReadSharePodsFor(file.path, 80<<10)
		if err == nil {
			var r plan.ShareResult
			if r, err = plan.PlanShareOn(pods, plan.ShareGPU{MemoryMiB: 80 << 10}); err == nil {
				a := r.AllAtOnce
				if a.Bound > a.Fractional || a.Fractional > a.Whole || a.MIGBound > a.MIG || a.MIG > a.Whole {
					t.Fatalf("PlanShare(%q) = %+v: a packing beats its bound or needs more than whole GPUs", data, a)
				}
				return
			}
		}
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "workloads") && !strings.Contains(err.Error(), "pod") && !strings.Contains(err.Error(), "GPU") {
			t.Fatalf("plan share on %q: %v (code %s); want an EInvalid error about the pods", data, err, gpucost.ErrorCode(err))
		}
	})
}
