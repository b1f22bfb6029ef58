//go:build cgo

package main

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/profile"
	"github.com/gpucost/gpucost/telemetry/nvml"
	"github.com/gpucost/gpucost/telemetry/nvml/nvmltest"
)

// TestProfileOutputSharedGPU profiles a command through a mock NVML replaying the H200 capture
// (shared datasets, nvidia/h200-shared/pynvml.txt), with the command's process standing in for
// the light job, pid 435: the text and JSON give its own ~10% and name the hog beside it.
func TestProfileOutputSharedGPU(t *testing.T) {
	capture, err := nvmltest.ReadCapture(filepath.Join("..", "..", "..", "shared", "datasets", "nvidia", "h200-shared", "pynvml.txt"))
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the shared datasets are not beside the repository: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	replay := nvmltest.NewReplay(capture, nvmltest.H200UUID, nvmltest.H200TotalMiB)
	c, err := nvml.Open(nvmltest.Lib(replay.Device()))
	if err != nil {
		t.Fatal(err)
	}
	proc := t.TempDir() // pid 434 runs in a pod
	os.MkdirAll(filepath.Join(proc, "434"), 0o755)
	os.WriteFile(filepath.Join(proc, "434", "cgroup"),
		[]byte("0::/kubepods.slice/kubepods-pod7c1e6a52_3f0b_4d8e_9a61_2b5c8d0e4f13.slice\n"), 0o644)
	c.Now, c.ProcRoot = replay.Now, proc

	child := exec.Command("sleep", "0.3")
	read := profile.NVML(c)
	p := &profile.Profiler{Interval: 20 * time.Millisecond, ProcRoot: proc,
		Read: func(ctx context.Context) ([]gpucost.Sample, []profile.Proc, error) {
			samples, procs, err := read(ctx)
			for i := range procs {
				if procs[i].PID == 435 {
					procs[i].PID = child.Process.Pid // the command is the light job
				}
			}
			return samples, procs, err
		}}
	res, err := p.Run(context.Background(), child)
	if err != nil {
		t.Fatal(err)
	}
	var text, js, notes strings.Builder
	table := present.Profile(res, profile.CheapestFit(res))
	present.Write(&text, &notes, "table", table)
	present.Write(&js, &notes, "json", table)
	for _, want := range []string{"9.6% / 9% / 13%", "overprovisioned", "the command's own processes (NVML per-process samples)",
		"GPU util mean, all processes", "100.0%", "pid 434 pod 7c1e6a52-3f0b-4d8e-9a61-2b5c8d0e4f13 (88% SM)", "shared with"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("profile table lacks %q:\n%s", want, text.String())
		}
	}
	for _, want := range []string{`"attribution": "process"`, `"util_mean": 9.6`, `"gpu_util_mean": 100`, `"pid": 434`, `"sm_mean": 87.6`,
		`"vram_peak_mib": 1002`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("profile JSON lacks %s:\n%s", want, js.String())
		}
	}
}
