package nvidiasmi

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var collectTime = time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)

func golden(samples []gpucost.Sample) []byte { return goldenfile.Samples(samples) }

func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	goldenfile.Check(t, path, got, *update)
}

// fakeProc writes a /proc tree for the processes of the recordings: Kubernetes pods under
// cgroup v2 (containerd, CRI-O) and v1 (Docker), Slurm jobs by cgroup and environment, a job
// named by GPUCOST_JOB, and PID 60000, which has exited.
func fakeProc(t testing.TB) string {
	root := t.TempDir()
	procs := map[int][2]string{ // pid → cgroup, environ
		48213: {"0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod7c1e6a52_3f0b_4d8e_9a61_2b5c8d0e4f13.slice/" +
			"cri-containerd-4f1c2b9e8d7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b.scope\n",
			"PATH=/usr/bin\x00HOSTNAME=train-0\x00"},
		48214: {"12:memory:/kubepods/besteffort/pod0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d/e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9\n" +
			"11:cpu,cpuacct:/kubepods/besteffort/pod0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d/e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9\n",
			"PATH=/usr/bin\x00"},
		51002: {"5:devices:/slurm/uid_1000/job_4242/step_0\n", "SLURM_JOB_ID=4242\x00SLURM_PROCID=0\x00"},
		51003: {"0::/system.slice/slurmstepd.scope/job_4243/step_batch/user/task_0\n", "SLURM_JOB_ID=4243\x00"},
		51004: {"0::/user.slice/user-1000.slice/session-3.scope\n", "GPUCOST_JOB=eval-nightly\x00SLURM_JOB_ID=\x00"},
		60001: {"0::/kubepods.slice/kubepods-pod9f8e7d6c_5b4a_4321_8fed_cba987654321.slice/" +
			"crio-0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef.scope\n",
			"GPUCOST_JOB=serve-llm\x00"},
	}
	for pid, files := range procs {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, content := range map[string]string{"cgroup": files[0], "environ": files[1]} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// fake returns a Collector that runs testdata/fake-nvidia-smi on the recording in dir.
func fake(t testing.TB, dir string) *Collector {
	t.Helper()
	abs, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("FAKE_NVIDIA_SMI", filepath.Join(abs, dir))
	t.Setenv("FAKE_NVIDIA_SMI_STATE", t.TempDir())
	return &Collector{Path: filepath.Join(abs, "fake-nvidia-smi"), Host: "dgx-07", ProcRoot: fakeProc(t),
		Now: func() time.Time { return collectTime }}
}

func collect(t *testing.T, c *Collector) ([]gpucost.Sample, Stats) {
	t.Helper()
	var st Stats
	c.OnStats = func(s Stats) { st = s }
	samples, err := c.Collect(context.Background())
	if err != nil {
		t.Fatalf("Collect: %v", err)
	}
	return samples, st
}

func TestCollectGolden(t *testing.T) {
	for _, dir := range []string{"a100-8gpu", "a100-mig", "na-fields"} {
		t.Run(dir, func(t *testing.T) {
			samples, _ := collect(t, fake(t, dir))
			checkGolden(t, filepath.Join("testdata", dir, "samples.golden.json"), golden(samples))
		})
	}
}

func TestCollectAttribution(t *testing.T) {
	samples, st := collect(t, fake(t, "a100-8gpu"))
	if len(samples) != 8 || st.Skipped != 0 || st.Lines != 8 || st.Samples != 8 {
		t.Fatalf("Collect = %d samples, %+v; want 8, nothing skipped", len(samples), st)
	}
	for i, want := range []string{
		"container_id=4f1c2b9e8d7a6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e9d8c7b6a5f4e3d2c1b,pod_uid=7c1e6a52-3f0b-4d8e-9a61-2b5c8d0e4f13",
		"container_id=e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9e3f5a7c9,pod_uid=0a1b2c3d-4e5f-6a7b-8c9d-0e1f2a3b4c5d",
		"job=4242",
		"job=4243+eval-nightly", // two jobs share GPU 3
		"", "",
		"", // PID 60000 has exited
		"container_id=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef,job=serve-llm,pod_uid=9f8e7d6c-5b4a-4321-8fed-cba987654321",
	} {
		if got := samples[i].Labels.String(); got != want {
			t.Errorf("GPU %d labels = %q, want %q", i, got, want)
		}
	}
}

func TestCollectMIG(t *testing.T) {
	samples, st := collect(t, fake(t, "a100-mig"))
	if len(samples) != 4 || st.Skipped != 0 {
		t.Fatalf("Collect = %d samples, %+v; want 4, nothing skipped", len(samples), st)
	}
	if !gpucost.IsAbsent(samples[0].Util) || !gpucost.IsAbsent(samples[1].Util) || samples[2].Util != 76 {
		t.Errorf("utilisation = %v %v %v; want absent on the MIG-enabled GPUs 0 and 1, 76 on GPU 2",
			samples[0].Util, samples[1].Util, samples[2].Util)
	}
	if samples[0].MemUsedMiB != 15360 || samples[0].PowerW != 168.30 {
		t.Errorf("GPU 0 = %+v; want memory and power read", samples[0])
	}
}

func TestCollectNAFields(t *testing.T) {
	samples, st := collect(t, fake(t, "na-fields"))
	if len(samples) != 3 || st.Skipped != 1 {
		t.Fatalf("Collect = %d samples, %+v; want 3 and one skip", len(samples), st)
	}
	want := "nvidia-smi:3: temperature.gpu: nvidia-smi reported [Unknown Error]; reading left out"
	if got := st.Skips[0].String(); got != want {
		t.Errorf("skip = %q, want %q", got, want)
	}
	g := samples[0]
	if !gpucost.IsAbsent(g.Util) || !gpucost.IsAbsent(g.PowerW) || !gpucost.IsAbsent(g.TempC) || g.MemUsedMiB != 2120 {
		t.Errorf("vGPU sample = %+v; want util, power and temperature absent", g)
	}
	if !gpucost.IsAbsent(samples[1].PowerW) || !gpucost.IsAbsent(samples[2].TempC) || samples[2].Util != 12 {
		t.Errorf("samples = %+v", samples)
	}
}

func TestCollectGPULost(t *testing.T) {
	c := fake(t, "gpu-lost")
	if first, _ := collect(t, c); len(first) != 8 {
		t.Fatalf("first Collect = %d samples, want 8", len(first))
	}
	samples, st := collect(t, c)
	if len(samples) != 7 {
		t.Fatalf("second Collect = %d samples, want 7", len(samples))
	}
	if len(st.Vanished) != 1 || st.Vanished[0] != "GPU-93c5b0e8-7a1d-4b6f-a2e9-6d0c4f8b1a5e" {
		t.Errorf("Vanished = %v, want the UUID of GPU 6", st.Vanished)
	}
	var all []string
	for _, s := range st.Skips {
		all = append(all, s.String())
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{
		"nvidia-smi: nvidia-smi --query-gpu=",
		"exit status 15",
		"nvidia-smi:8: nvidia-smi: Unable to determine the device handle for GPU 00000000:90:00.0: GPU is lost.",
		"nvidia-smi: GPU-93c5b0e8-7a1d-4b6f-a2e9-6d0c4f8b1a5e: GPU 6 (GPU-93c5b0e8-7a1d-4b6f-a2e9-6d0c4f8b1a5e) was in the last sample and is missing now",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("skips lack %q:\n%s", want, text)
		}
	}
}

func TestCollectFailures(t *testing.T) {
	for _, c := range []struct {
		name, dir, path, code, want string
	}{
		{"no devices", "no-devices", "", gpucost.ENotFound, "nvidia-smi found no GPUs: exit status 6"},
		{"driver", "driver-failed", "", gpucost.EUnavailable, "nvidia-smi cannot reach the NVIDIA driver"},
		{"no binary", "a100-8gpu", "/nonexistent/nvidia-smi", gpucost.EUnavailable,
			"nvidia-smi not found (/nonexistent/nvidia-smi): is the NVIDIA driver installed?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			col := fake(t, c.dir)
			if c.path != "" {
				col.Path = c.path
			}
			_, err := col.Collect(context.Background())
			if err == nil || !strings.Contains(err.Error(), c.want) || gpucost.ErrorCode(err) != c.code {
				t.Errorf("Collect = %v (code %s), want %s error containing %q", err, gpucost.ErrorCode(err), c.code, c.want)
			}
		})
	}
	t.Run("not in PATH", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := (&Collector{}).Collect(context.Background())
		if err == nil || !strings.Contains(err.Error(), "nvidia-smi not found (nvidia-smi): is the NVIDIA driver installed?") {
			t.Errorf("Collect = %v, want nvidia-smi not found", err)
		}
	})
}

// TestCollectRun uses a Run function in place of the binary.
func TestCollectRun(t *testing.T) {
	gpus, err := os.ReadFile("testdata/a100-mig/query-gpu.csv")
	if err != nil {
		t.Fatal(err)
	}
	var calls []string
	c := &Collector{Run: func(_ context.Context, path string, args ...string) ([]byte, error) {
		calls = append(calls, path+" "+strings.Join(args, " "))
		if strings.HasPrefix(args[0], "--query-gpu=") {
			return gpus, nil
		}
		return nil, nil
	}}
	samples, err := c.Collect(context.Background())
	if err != nil || len(samples) != 4 || len(calls) != 2 || !strings.HasPrefix(calls[0], "nvidia-smi --query-gpu="+QueryGPU) {
		t.Errorf("Collect = %d samples, %v after calls %q", len(samples), err, calls)
	}
}

func TestPIDs(t *testing.T) {
	pids, err := fake(t, "a100-8gpu").PIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := pids["GPU-f07a2c5d-9e4b-4d1a-b3c6-5d8e1f0a7b29"]; len(got) != 2 || got[0] != 51003 || got[1] != 51004 || len(pids) != 6 {
		t.Errorf("PIDs = %v", pids)
	}
}

// TestCollectLoop reads rows from one looping nvidia-smi instead of starting one per Collect,
// and asks for the processes only every AppsEvery.
func TestCollectLoop(t *testing.T) {
	c := fake(t, "gpu-lost")
	c.Loop, c.AppsEvery = 20*time.Millisecond, time.Hour
	defer c.Close()
	state := os.Getenv("FAKE_NVIDIA_SMI_STATE")
	calls := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(state, name+".count"))
		return strings.TrimSpace(string(b))
	}
	first, _ := collect(t, c) // the loop has no complete round yet: nvidia-smi runs once
	if len(first) != 8 {
		t.Fatalf("first Collect = %d samples, want 8", len(first))
	}
	waitUntil(t, func() bool {
		_, ok := c.loop.rows()
		return ok
	})
	samples, st := collect(t, c)
	if len(samples) != 7 { // rounds 2 on: GPU 6 is lost
		t.Fatalf("Collect = %d samples, want 7", len(samples))
	}
	if len(st.Vanished) != 1 || st.Vanished[0] != "GPU-93c5b0e8-7a1d-4b6f-a2e9-6d0c4f8b1a5e" {
		t.Errorf("Vanished = %v", st.Vanished)
	}
	for range 5 {
		collect(t, c)
	}
	if calls("query-gpu") != "1" || calls("compute-apps") != "1" {
		t.Errorf("nvidia-smi ran %s times for --query-gpu and %s for --query-compute-apps besides the loop; want once each",
			calls("query-gpu"), calls("compute-apps"))
	}
	if samples[0].Labels.String() == "" {
		t.Errorf("sample %+v lost its attribution between process queries", samples[0])
	}
	c.Close()
	if c.loop != nil {
		t.Error("Close left the loop running")
	}
}

func waitUntil(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
	}
}
