package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlanShareGPUSpec reads openb's gpu_spec column: pods that name GPU models are counted and
// share GPUs only with their own gpu_spec or with pods that name none (a, 600 of a V100 or
// A100, and c, 300 of a T4, cannot share; b, of any model, joins a).
func TestPlanShareGPUSpec(t *testing.T) {
	dir := t.TempDir()
	pods := filepath.Join(dir, "pods.csv")
	os.WriteFile(pods, []byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
		"a,1000,1024,1,600,V100M32|A100,LS,Running,0,3600,0\nb,1000,1024,1,400,,LS,Running,0,3600,0\nc,1000,1024,1,300,T4,LS,Running,0,3600,0\n"), 0o644)
	code, out, errOut := runCLI(t, dir, "plan", "share", "--workloads", pods, "--output", "json")
	if code != exitOK || !strings.Contains(out, `"typed_pods": 2`) || !strings.Contains(out, "2 GPU pods name the GPU models they may run on (gpu_spec)") || !strings.Contains(out, `"fractional_gpus": 2`) {
		t.Errorf("plan share with gpu_spec: exit %d; want 2 typed pods and the note\n%s%s", code, out, errOut)
	}
}
