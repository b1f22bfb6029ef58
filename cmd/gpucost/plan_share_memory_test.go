package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanShareGPUMemory plans plan/testdata/share_gpu_memory.csv (six pods of 100 thousandths and
// 30 GiB, one whole GPU): on an A100-80GB memory lets two share a GPU, so 4 GPUs where compute
// alone packs into 2, and MIG 3g.40gb for each; the JSON carries it; a file with GPU memory and no
// GPU size, a pod larger than the GPU and a bad --gpu are refused with exit 2.
func TestPlanShareGPUMemory(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../../plan/testdata/share_gpu_memory.csv")
	if err != nil {
		t.Fatal(err)
	}
	pods := filepath.Join(dir, "pods.csv")
	os.WriteFile(pods, data, 0o644)
	code, out, errOut := runCLI(t, dir, "plan", "share", "--workloads", pods, "--gpu", "A100-80GB", "--output", "json")
	for _, want := range []string{`"fractional_gpus": 4`, `"mig_gpus": 4`, `"gpu_memory": {`, `"capacity_mib": 81920`, `"fractional_gpus_compute_only": 2`, `"memory_lower_bound": 4`, `"3g.40gb": 6`} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("plan share --gpu A100-80GB --output json: exit %d, lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	code, out, errOut = runCLI(t, dir, "plan", "share", "--workloads", pods, "--gpu-memory-gib", "40")
	if code != exitOK || !strings.Contains(out, "Memory decides: all at once time-slicing or MPS needs 7 GPUs where compute alone would pack into 2") {
		t.Errorf("plan share --gpu-memory-gib 40: exit %d; want 7 GPUs where compute alone packs 2\n%s%s", code, out, errOut)
	}
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, append(data, "huge,1,500,90000,0,3600\n"...), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workloads", pods}, "give --gpu MODEL, such as A100-80GB, or --gpu-memory-gib"},
		{[]string{"--workloads", big, "--gpu", "A100-80GB"}, `big.csv:10:4: pod "huge" needs 90000 MiB of GPU memory on each GPU, more than one GPU holds (81920 MiB`},
		{[]string{"--workloads", pods, "--gpu", "Z9000"}, `--gpu "Z9000": the catalog knows no such GPU model`},
		{[]string{"--workloads", pods, "--gpu-memory-gib", "0"}, "--gpu-memory-gib 0: give the GiB one GPU holds"},
	} {
		code, _, errOut := runCLI(t, dir, append([]string{"plan", "share"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("plan share %v: exit %d, %q; want exit 2 with %q", tc.args, code, errOut, tc.want)
		}
	}
}
