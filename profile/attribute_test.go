//go:build cgo

package profile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gpucost/gpucost/telemetry/nvml"
	"github.com/gpucost/gpucost/telemetry/nvml/nvmltest"
)

// sharedCapture is NVML's view of two processes sharing one H200 (pid 434 a hog at ~88% SM,
// pid 435 a light job at ~8–13%), captured with pynvml, beside the repository.
const sharedCapture = "../../shared/datasets/nvidia/h200-shared/pynvml.txt"

const hogPod = "7c1e6a52-3f0b-4d8e-9a61-2b5c8d0e4f13"

// fakeProc writes a /proc where each pid is a child of 1, with its cgroup.
func fakeProc(t *testing.T, cgroups map[int]string) string {
	t.Helper()
	root := t.TempDir()
	for pid, cg := range cgroups {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		stat := fmt.Sprintf("%d (python3) S 1 %d", pid, pid)
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup"), []byte(cg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// replayShared profiles the command whose process is pid through the whole capture, replayed
// by a mock NVML.
func replayShared(t *testing.T, pid int) Result {
	t.Helper()
	capture, err := nvmltest.ReadCapture(sharedCapture)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the shared datasets are not beside the repository: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := nvmltest.NewReplay(capture, nvmltest.H200UUID, nvmltest.H200TotalMiB)
	c, err := nvml.Open(nvmltest.Lib(r.Device()))
	if err != nil {
		t.Fatal(err)
	}
	c.Now = r.Now
	proc := fakeProc(t, map[int]string{
		434: "0::/kubepods.slice/kubepods-pod" + "7c1e6a52_3f0b_4d8e_9a61_2b5c8d0e4f13" + ".slice/cri-containerd-" + hex64('a') + ".scope\n",
		435: "0::/system.slice/slurmstepd.scope/job_4243/step_batch/user/task_0\n",
	})
	c.ProcRoot = proc
	p := &Profiler{Read: NVML(c), ProcRoot: proc}
	var acc accumulator
	var res Result
	for range capture.Polls {
		p.sample(context.Background(), pid, &acc, &res)
	}
	acc.summarise(&res)
	return res
}

func hex64(c byte) string {
	b := make([]byte, 64)
	for i := range b {
		b[i] = c
	}
	return string(b)
}

// TestProfileSharedH200 replays the captured H200: the light job is overprovisioned at its own
// ~10% of SM time, though the GPU was 100% busy, and the hog beside it is named.
func TestProfileSharedH200(t *testing.T) {
	res := replayShared(t, 435)
	if res.Attribution != AttrProcess || res.AttributionNote != "" || res.AllGPUs || len(res.GPUs) != 1 || res.GPUs[0] != nvmltest.H200UUID {
		t.Errorf("attribution, note, GPUs = %q, %q, %v; want process, none, the H200", res.Attribution, res.AttributionNote, res.GPUs)
	}
	if res.Samples != 5 || res.UtilMean != 9.6 || res.UtilP50 != 9 || res.UtilP95 != 13 || res.Verdict != "overprovisioned" {
		t.Errorf("samples, util mean/p50/p95, verdict = %d, %v/%v/%v, %q; want 5, 9.6/9/13, overprovisioned",
			res.Samples, res.UtilMean, res.UtilP50, res.UtilP95, res.Verdict)
	}
	if res.GPUUtilMean != 100 || res.MemPeakMiB != 1002 || res.GPUMemPeakMiB != 2004 || res.MemTotal != nvmltest.H200TotalMiB {
		t.Errorf("GPU util, own VRAM, GPU VRAM, total = %v, %v, %v, %v; want 100, 1002 (its own), 2004, 143771",
			res.GPUUtilMean, res.MemPeakMiB, res.GPUMemPeakMiB, res.MemTotal)
	}
	if len(res.Others) != 1 || res.Others[0].PID != 434 || res.Others[0].SMMean == nil || *res.Others[0].SMMean != 87.6 ||
		res.Others[0].PodUID != hogPod || res.Others[0].ContainerID != hex64('a') || res.Others[0].VRAMPeakMiB != 1002 {
		t.Errorf("Others = %+v; want pid 434 in pod %s at 87.6%% SM", res.Others, hogPod)
	}
	if fit := CheapestFit(res); fit == nil || fit.NeedGB != 1.2 {
		t.Errorf("CheapestFit = %+v; want one sized for its own 1002 MiB + 20%% (1.2 GB)", fit)
	}
}

func TestProfileSharedH200Hog(t *testing.T) {
	res := replayShared(t, 434)
	if res.Attribution != AttrProcess || res.UtilMean != 87.6 || res.Verdict != "well utilized" {
		t.Errorf("attribution, util mean, verdict = %q, %v, %q; want process, 87.6, well utilized", res.Attribution, res.UtilMean, res.Verdict)
	}
	if len(res.Others) != 1 || res.Others[0].PID != 435 || *res.Others[0].SMMean != 9.6 || res.Others[0].Job != "4243" {
		t.Errorf("Others = %+v; want pid 435, Slurm job 4243, at 9.6%% SM", res.Others)
	}
}

// TestProfileNotInNVML: a command none of whose processes NVML lists (another PID namespace)
// gets every GPU's figures, said to be so.
func TestProfileNotInNVML(t *testing.T) {
	res := replayShared(t, 999)
	if !res.AllGPUs || res.Attribution != AttrDevice || res.AttributionNote != noteNoTree || res.UtilMean != 100 || res.Verdict != "well utilized" {
		t.Errorf("AllGPUs, attribution, note, util mean = %v, %q, %q, %v; want every GPU's 100%%, said so",
			res.AllGPUs, res.Attribution, res.AttributionNote, res.UtilMean)
	}
}

// TestProfileMIG: a synthetic A100 in MIG mode. The command's process on a 3g.40gb instance
// is profiled on that instance, with its own memory and the process sharing the instance;
// the process on the other instance is not its neighbour.
func TestProfileMIG(t *testing.T) {
	const parent, mine, theirs = "GPU-c41e7d92-5a6b-4f03-8e1d-7b2a0c9f6e58", "MIG-dc34c2fd-4bd7-52ad-a6d0-645dcd1794e4", "MIG-ec4c3916-65fa-5948-b9b5-9f21a2ddfcc0"
	dev := nvmltest.MIGGPU(parent, "NVIDIA A100-SXM4-80GB", 81920,
		nvmltest.MIGInstance{UUID: mine, Profile: "3g.40gb", TotalMiB: 39936,
			Procs: []nvmltest.Running{{PID: 700, UsedBytes: 10 << 30}, {PID: 701, UsedBytes: 2 << 30}}},
		nvmltest.MIGInstance{UUID: theirs, Profile: "1g.10gb", TotalMiB: 9856,
			Procs: []nvmltest.Running{{PID: 800, UsedBytes: 5 << 30}}})
	c, err := nvml.Open(nvmltest.Lib(dev))
	if err != nil {
		t.Fatal(err)
	}
	proc := fakeProc(t, map[int]string{700: "", 701: "5:devices:/slurm/uid_1000/job_77/step_0\n", 800: ""})
	p := &Profiler{Read: NVML(c), ProcRoot: proc}
	var acc accumulator
	var res Result
	for range 3 {
		p.sample(context.Background(), 700, &acc, &res)
	}
	acc.summarise(&res)
	if len(res.GPUs) != 1 || res.GPUs[0] != mine || res.Attribution != AttrInstance || res.AttributionNote != noteMIG {
		t.Errorf("GPUs, attribution, note = %v, %q, %q; want [%s], instance, %q", res.GPUs, res.Attribution, res.AttributionNote, mine, noteMIG)
	}
	if res.MemPeakMiB != 10240 || res.MemTotal != 39936 || res.GPUMemPeakMiB != 12288 || res.Samples != 0 || res.Verdict != "no GPU samples" {
		t.Errorf("own VRAM, total, instance VRAM, samples, verdict = %v, %v, %v, %d, %q; want 10240, 39936, 12288, 0, no GPU samples",
			res.MemPeakMiB, res.MemTotal, res.GPUMemPeakMiB, res.Samples, res.Verdict)
	}
	if len(res.Others) != 1 || res.Others[0].PID != 701 || res.Others[0].GPU != mine || res.Others[0].SMMean != nil || res.Others[0].Job != "77" {
		t.Errorf("Others = %+v; want pid 701 (job 77) on its instance, without SM figures", res.Others)
	}
}
