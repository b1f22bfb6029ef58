package profile

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// twoGPUs reports GPU-a busy at 80% with 30 GiB used and GPU-b idle.
type twoGPUs struct{}

func (twoGPUs) Collect(ctx context.Context) ([]gpucost.Sample, error) {
	a := gpucost.NewSample(time.Now(), gpucost.GPU{UUID: "GPU-a", Model: "NVIDIA A100-SXM4-80GB"})
	a.Util, a.MemUsedMiB, a.MemTotalMiB, a.PowerW = 80, 30720, 81920, 300
	b := gpucost.NewSample(time.Now(), gpucost.GPU{UUID: "GPU-b", Model: "NVIDIA A100-SXM4-80GB"})
	b.Util, b.MemUsedMiB, b.MemTotalMiB, b.PowerW = 0, 0, 81920, 60
	return []gpucost.Sample{a, b}, nil
}

func TestRunPassesExitCodeAndProfilesAllGPUsWithoutProcessInfo(t *testing.T) {
	p := &Profiler{Source: twoGPUs{}, Interval: 20 * time.Millisecond}
	res, err := p.Run(context.Background(), exec.Command("sh", "-c", "sleep 0.2; exit 3"))
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 3 {
		t.Errorf("ExitCode = %d, want 3", res.ExitCode)
	}
	if !res.AllGPUs || len(res.GPUs) != 2 || res.Samples < 4 {
		t.Errorf("AllGPUs, GPUs, Samples = %v, %v, %d; want true, both, several", res.AllGPUs, res.GPUs, res.Samples)
	}
	if res.UtilMean != 40 || res.MemPeakMiB != 30720 || res.Verdict != "underutilized" {
		t.Errorf("mean, peak, verdict = %v, %v, %q; want 40, 30720, underutilized", res.UtilMean, res.MemPeakMiB, res.Verdict)
	}
}

func TestRunProfilesOnlyTheCommandsGPUs(t *testing.T) {
	// A fake /proc where 500 is the child of 400; the source says 500 uses GPU-a, 999 uses GPU-b.
	proc := t.TempDir()
	for pid, stat := range map[string]string{
		"400": "400 (sh) S 1 400", "500": "500 (python3 (train)) R 400 400", "999": "999 (other) S 1 999",
	} {
		os.MkdirAll(filepath.Join(proc, pid), 0o755)
		os.WriteFile(filepath.Join(proc, pid, "stat"), []byte(stat), 0o644)
	}
	tree := descendants(proc, 400)
	if !tree[400] || !tree[500] || tree[999] {
		t.Fatalf("descendants(400) = %v, want 400 and 500", tree)
	}
	p := &Profiler{Source: twoGPUs{}, ProcRoot: proc,
		Processes: func(context.Context) (map[string][]int, error) {
			return map[string][]int{"GPU-a": {500}, "GPU-b": {999}}, nil
		}}
	var acc accumulator
	var res Result
	p.sample(context.Background(), 400, &acc, &res)
	acc.summarise(&res)
	if res.AllGPUs || len(res.GPUs) != 1 || res.GPUs[0] != "GPU-a" || res.Verdict != "well utilized" {
		t.Errorf("GPUs, AllGPUs, Verdict = %v, %v, %q; want [GPU-a], false, well utilized", res.GPUs, res.AllGPUs, res.Verdict)
	}
}

func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		mean float64
		want string
	}{{0, "overprovisioned"}, {24.9, "overprovisioned"}, {25, "underutilized"}, {59.9, "underutilized"}, {60, "well utilized"}} {
		if got := Verdict(c.mean, true); got != c.want {
			t.Errorf("Verdict(%v) = %q, want %q", c.mean, got, c.want)
		}
	}
}

func TestRunFailsForMissingCommand(t *testing.T) {
	p := &Profiler{Source: twoGPUs{}}
	_, err := p.Run(context.Background(), exec.Command("/nonexistent/cmd"))
	if gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Run(missing) error = %v, want an EInvalid error", err)
	}
}

// TestSourceCannotAttribute: a source with a process list but no per-process samples
// (nvidia-smi) profiles the command's GPU, says its figures are the whole GPU's, and names the
// other process on it without an SM share.
func TestSourceCannotAttribute(t *testing.T) {
	proc := t.TempDir()
	for pid, stat := range map[string]string{"400": "400 (sh) S 1 400", "777": "777 (other) S 1 777"} {
		os.MkdirAll(filepath.Join(proc, pid), 0o755)
		os.WriteFile(filepath.Join(proc, pid, "stat"), []byte(stat), 0o644)
	}
	os.WriteFile(filepath.Join(proc, "777", "cgroup"), []byte("5:devices:/slurm/uid_1000/job_4242/step_0\n"), 0o644)
	p := &Profiler{Source: twoGPUs{}, ProcRoot: proc,
		Processes: func(context.Context) (map[string][]int, error) {
			return map[string][]int{"GPU-a": {400, 777}, "GPU-b": {999}}, nil
		}}
	var acc accumulator
	var res Result
	p.sample(context.Background(), 400, &acc, &res)
	acc.summarise(&res)
	if res.Attribution != AttrDevice || res.AttributionNote != noteSource || res.UtilMean != 80 || res.GPUUtilMean != 80 {
		t.Errorf("attribution, note, util, GPU util = %q, %q, %v, %v; want device, %q, 80, 80", res.Attribution, res.AttributionNote, res.UtilMean, res.GPUUtilMean, noteSource)
	}
	if len(res.Others) != 1 || res.Others[0].PID != 777 || res.Others[0].Job != "4242" || res.Others[0].SMMean != nil {
		t.Errorf("Others = %+v; want pid 777 (job 4242) without an SM share", res.Others)
	}
}
