package planfile

import (
	"testing"
)

// TestReadSharePodsMemory reads gpu_memory_mib: MiB per GPU, rounded up; empty only where a pod
// takes no fraction; at most one GPU's memory; a GPU-memory column in another name is refused.
func TestReadSharePodsMemory(t *testing.T) {
	head := "name,num_gpu,gpu_milli,gpu_memory_mib\n"
	pods, err := ReadSharePodsFor(write(t, "pods.csv", head+"a,1,250,20480.5\nb,2,0,\nc,0,0,\n"), 81920)
	if err != nil || len(pods) != 3 || pods[0].MemoryMiB != 20481 || pods[1].MemoryMiB != 0 || pods[2].MemoryMiB != 0 {
		t.Fatalf("ReadSharePodsFor = %+v, %v; want 20481, 0 and 0 MiB", pods, err)
	}
	if pods, err := ReadSharePods(write(t, "pods.csv", head+"a,1,250,90000\n")); err != nil || pods[0].MemoryMiB != 90000 {
		t.Errorf("ReadSharePods(no GPU size) = %+v, %v; want 90000 MiB read, left to the planner", pods, err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"too big", head + "a,1,250,20480\nbig,1,500,90000\n", `pods.csv:3:4: pod "big" needs 90000 MiB of GPU memory on each GPU, more than one GPU holds (81920 MiB`},
		{"empty for a fraction", head + "a,1,250,\n", `pods.csv:2:4: pod "a" takes 250 thousandths of a GPU but gives no GPU memory`},
		{"not a number", head + "a,1,250,lots\n", `pods.csv:2:4: gpu_memory_mib "lots" is not a non-negative number`},
		{"infinite", head + "a,1,250,Inf\n", `more than any GPU holds`},
		{"another unit", "name,num_gpu,gpu_milli,gpu_mem_gib\na,1,250,20\n", "column gpu_mem_gib: plan share reads GPU memory as gpu_memory_mib"},
	} {
		_, err := ReadSharePodsFor(write(t, "pods.csv", tc.data), 81920)
		wantInvalid(t, "ReadSharePodsFor("+tc.name+")", err, tc.want)
	}
}
