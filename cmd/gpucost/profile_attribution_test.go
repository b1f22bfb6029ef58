//go:build cgo

package main

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/profile"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
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

// TestReportTimeSlicedPods is the agent's samples of the captured H200, shared by two pods,
// stored and reported: report utilization --by pod gives the GPU's five minutes once, split
// between the pods by their use, and so its cost.
func TestReportTimeSlicedPods(t *testing.T) {
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
	c.Host, c.ProcRoot = "h200-1", t.TempDir()
	for pid, uid := range map[string]string{"434": "0a1b2c3d_4e5f_4a7b_8c9d_0e1f2a3b4c5d", "435": "9f8e7d6c_5b4a_4321_8fed_cba987654321"} {
		os.MkdirAll(filepath.Join(c.ProcRoot, pid), 0o755)
		os.WriteFile(filepath.Join(c.ProcRoot, pid, "cgroup"), []byte("0::/kubepods.slice/kubepods-pod"+uid+".slice\n"), 0o644)
	}
	t0 := time.Date(2026, 11, 27, 4, 11, 0, 0, time.UTC)
	batch := telemetry.NewBatch(16)
	for i := range capture.Polls {
		c.Now = func() time.Time { return t0.Add(time.Duration(i) * time.Minute) }
		samples, err := c.Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			batch.Add(s)
		}
	}
	db := filepath.Join(t.TempDir(), "gpucost.db")
	store, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.WriteRollups(context.Background(), telemetry.Rollup(batch, 5)); err != nil {
		t.Fatal(err)
	}
	store.Close()
	code, out, errOut := runCLIDB(t, db, "report", "utilization", "--by", "pod", "--since", "2026-11-27", "--until", "2026-11-28", "--output", "json")
	if code != exitOK {
		t.Fatalf("report utilization: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Groups []struct {
			Key      string
			GPUHours float64 `json:"gpu_hours"`
			Cost     string
			UtilP50  float64 `json:"util_p50"`
			UtilMean float64 `json:"util_mean"`
			Verdict  string
		}
		Fleet struct {
			GPUHours float64 `json:"gpu_hours"`
			GPUs     int     `json:"gpus"`
			Cost     string
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if rep.Fleet.GPUs != 1 || math.Abs(rep.Fleet.GPUHours-5.0/60) > 1e-12 || len(rep.Groups) != 2 {
		t.Fatalf("fleet %+v, %d groups; want one GPU's 5 minutes, once, in two pods\n%s", rep.Fleet, len(rep.Groups), out)
	}
	hog, light := rep.Groups[0], rep.Groups[1]
	fleetCost, _ := strconv.ParseFloat(rep.Fleet.Cost, 64)
	hogCost, _ := strconv.ParseFloat(hog.Cost, 64)
	if hog.Key != "0a1b2c3d-4e5f-4a7b-8c9d-0e1f2a3b4c5d" || light.Key != "9f8e7d6c-5b4a-4321-8fed-cba987654321" ||
		math.Abs(hog.GPUHours+light.GPUHours-rep.Fleet.GPUHours) > 1e-12 || math.Abs(hog.GPUHours/rep.Fleet.GPUHours-0.9012) > 0.001 ||
		math.Abs(hogCost/fleetCost-0.9012) > 0.001 || hog.UtilP50 != 91 || light.UtilP50 != 9 {
		t.Errorf("pods = %+v; want the hog's pod with 90.1%% of the GPU-hours and cost (p50 share 91%%), the light job's the rest (9%%)", rep.Groups)
	}
	// Each pod's utilisation is its share of the GPU's time: the light job is overprovisioned.
	if math.Abs(hog.UtilMean-90.13) > 0.01 || hog.Verdict != "well utilized" || math.Abs(light.UtilMean-9.87) > 0.01 || light.Verdict != "overprovisioned" {
		t.Errorf("pods' util, verdict = %.2f %q, %.2f %q; want 90.13 well utilized, 9.87 overprovisioned", hog.UtilMean, hog.Verdict, light.UtilMean, light.Verdict)
	}
}
