package planfile

import (
	"math"
	"testing"

	"github.com/gpucost/gpucost/plan"
)

// TestShareGPU takes one GPU's memory from the catalog's model, or from --gpu-memory-gib, which
// wins, and refuses a model the catalog does not know and a memory of nothing.
func TestShareGPU(t *testing.T) {
	g, err := ShareGPU("A100-80GB", 0, false)
	if err != nil || g.Name != "A100-80GB" || g.MemoryMiB != 81920 || len(g.MIGProfiles) == 0 {
		t.Errorf("ShareGPU(A100-80GB) = %+v, %v; want 81,920 MiB with MIG profiles", g, err)
	}
	g, err = ShareGPU("A100-80GB", 40, true)
	if err != nil || g.Name != "A100-80GB at 40 GiB" || g.MemoryMiB != 40960 {
		t.Errorf("ShareGPU(A100-80GB, 40 GiB) = %+v, %v; want 40,960 MiB", g, err)
	}
	if g, err = ShareGPU("", 0, false); err != nil || g.MemoryMiB != 0 || g.Name != "" {
		t.Errorf("ShareGPU(none) = %+v, %v; want the zero GPU", g, err)
	}
	_, err = ShareGPU("Z9000", 0, false)
	wantInvalid(t, "ShareGPU(Z9000)", err, `--gpu "Z9000": the catalog knows no such GPU model`)
	for _, gib := range []float64{0, -1, math.NaN()} {
		_, err = ShareGPU("", gib, true)
		wantInvalid(t, "ShareGPU(memory)", err, "--gpu-memory-gib")
	}
}

// TestReadSharePodsOn refuses a pod list without a name, and one whose pods give GPU memory for
// GPUs whose memory is not known.
func TestReadSharePodsOn(t *testing.T) {
	_, err := ReadSharePodsOn("", plan.ShareGPU{})
	wantInvalid(t, "ReadSharePodsOn(no file)", err, "--workloads PODS.csv is required")
	pods := write(t, "pods.csv", "name,num_gpu,gpu_milli,gpu_memory_mib\na,1,250,2048\n")
	_, err = ReadSharePodsOn(pods, plan.ShareGPU{})
	wantInvalid(t, "ReadSharePodsOn(memory, no GPU)", err, `pod "a" needs 2048 MiB`)
	if got, err := ReadSharePodsOn(pods, plan.ShareGPU{MemoryMiB: 81920}); err != nil || len(got) != 1 {
		t.Errorf("ReadSharePodsOn(80 GiB GPU) = %+v, %v; want one pod", got, err)
	}
}
