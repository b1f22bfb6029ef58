//go:build cgo

package nvml

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/nvml/nvmltest"
	"github.com/gpucost/gpucost/telemetry/workload"
)

// sharedCapture is NVML's view of two processes sharing one H200 (pid 434 a hog, pid 435 a
// light job), captured with pynvml, beside the repository.
const sharedCapture = "../../../shared/datasets/nvidia/h200-shared/pynvml.txt"

// replayShared returns a collector over a mock NVML replaying the capture.
func replayShared(t testing.TB) (*Collector, *nvmltest.Replay) {
	t.Helper()
	c, err := nvmltest.ReadCapture(sharedCapture)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skipf("the shared datasets are not beside the repository: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	r := nvmltest.NewReplay(c, nvmltest.H200UUID, nvmltest.H200TotalMiB)
	col, err := Open(nvmltest.Lib(r.Device()))
	if err != nil {
		t.Fatal(err)
	}
	col.Host, col.Now, col.ProcRoot = "h200-1", r.Now, t.TempDir()
	return col, r
}

// TestProcessesReplayH200 reads the captured polls: NVML gives pid 435 no new sample in the
// second, and its sample from the first, a second older than 434's, stands for it.
func TestProcessesReplayH200(t *testing.T) {
	c, r := replayShared(t)
	sm := map[int][]float64{}
	for range r.Capture.Polls {
		samples, procs, err := c.CollectProcesses(context.Background())
		if err != nil || len(samples) != 1 || samples[0].Util != 100 || samples[0].MemUsedMiB != 2004 {
			t.Fatalf("CollectProcesses = %+v, %v; want the H200 at 100%% with 2004 MiB used", samples, err)
		}
		for _, p := range procs {
			if p.GPU != nvmltest.H200UUID || p.UsedMiB != 1002 {
				t.Errorf("process %+v: want 1002 MiB on the H200", p)
			}
			sm[p.PID] = append(sm[p.PID], p.SMUtil)
		}
	}
	if got := fmt.Sprint(sm[435], sm[434]); got != "[8 8 9 10 13] [88 89 89 88 84]" {
		t.Errorf("SM of 435 and 434 over the polls = %s, want [8 8 9 10 13] [88 89 89 88 84]", got)
	}
	if r.Since[1] != 1795752667201072 {
		t.Errorf("second GetProcessUtilization since %d, want the first poll's newest sample", r.Since[1])
	}
	// After the capture NVML has nothing newer: no process has a current sample.
	if _, procs, _ := c.CollectProcesses(context.Background()); len(procs) != 2 || !gpucost.IsAbsent(procs[0].SMUtil) {
		t.Errorf("after the capture: %+v, want both processes without utilisation", procs)
	}
}

// sharedPods writes /proc cgroups that put the hog, pid 434, in pod A and the light job, pid
// 435, in pod B, both Kubernetes pods on one time-sliced H200.
func sharedPods(t testing.TB, root string) {
	for pid, uid := range map[int]string{434: podA, 435: podB} {
		dir := filepath.Join(root, strconv.Itoa(pid))
		os.MkdirAll(dir, 0o755)
		cg := "0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + strings.ReplaceAll(uid, "-", "_") + ".slice/cri-containerd-" + strings.Repeat(strconv.Itoa(pid%10), 64) + ".scope\n"
		if err := os.WriteFile(filepath.Join(dir, "cgroup"), []byte(cg), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

const (
	podA = "0a1b2c3d-4e5f-4a7b-8c9d-0e1f2a3b4c5d" // the hog's
	podB = "9f8e7d6c-5b4a-4321-8fed-cba987654321" // the light job's
)

// TestCollectSharesTimeSlicedGPU replays the captured H200 through Collect: two pods share it,
// so each poll gives one sample per pod with its share of the GPU's time, adding up to the
// GPU's utilisation, and its own memory.
func TestCollectSharesTimeSlicedGPU(t *testing.T) {
	c, r := replayShared(t)
	sharedPods(t, c.ProcRoot)
	shares := map[string][]float64{}
	for range r.Capture.Polls {
		samples, err := c.Collect(context.Background())
		if err != nil || len(samples) != 2 {
			t.Fatalf("Collect = %+v, %v; want one sample per pod", samples, err)
		}
		sum := 0.0
		for _, s := range samples {
			if s.Labels[gpucost.LabelGPUShare] != gpucost.GPUShareSM || s.MemUsedMiB != 1002 || s.MemTotalMiB != nvmltest.H200TotalMiB {
				t.Errorf("sample %v %+v: want a share of the GPU with its pod's 1002 MiB", s.Labels, s)
			}
			shares[s.Labels[workload.LabelPodUID]] = append(shares[s.Labels[workload.LabelPodUID]], math.Round(s.Util*10)/10)
			sum += s.Util
		}
		if math.Abs(sum-100) > 1e-9 {
			t.Errorf("shares add up to %v, want the GPU's 100%%", sum)
		}
	}
	// 88/(88+8) of 100%, and so on.
	if got := fmt.Sprint(shares[podA], shares[podB]); got != "[91.7 91.8 90.8 89.8 86.6] [8.3 8.2 9.2 10.2 13.4]" {
		t.Errorf("pod shares = %s", got)
	}
}

// TestTimeSlicedCostSplit is the agent end to end on the captured H200: the samples Collect
// gives, one minute apart, rolled up as the agent's writer does and allocated: pod A (the hog)
// gets ~90% of the GPU's cost and pod B ~10%, under the used and requested policies alike, and
// the GPU is counted once.
func TestTimeSlicedCostSplit(t *testing.T) {
	c, r := replayShared(t)
	sharedPods(t, c.ProcRoot)
	t0 := time.Date(2026, 11, 27, 4, 11, 0, 0, time.UTC)
	b := telemetry.NewBatch(16)
	for i := range r.Capture.Polls {
		c.Now = func() time.Time { return t0.Add(time.Duration(i) * time.Minute) }
		samples, err := c.Collect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range samples {
			b.Add(s)
		}
	}
	line := gpucost.CostLine{ResourceID: "h200-1", ChargePeriodStart: t0, ChargePeriodEnd: t0.Add(5 * time.Minute),
		ConsumedQuantity: 5.0 / 60, ConsumedUnit: "Hours", BilledCost: gpucost.USD(100e9), EffectiveCost: gpucost.USD(100e9)}
	for _, policy := range []string{gpucost.PolicyUsed, gpucost.PolicyRequested} {
		a, err := analyze.NewAllocator(analyze.AllocOptions{Policy: policy})
		if err != nil {
			t.Fatal(err)
		}
		for _, ru := range telemetry.Rollup(b, 5) {
			a.AddRollup(&ru)
		}
		got := map[string]string{}
		st := a.Allocate(&line, analyze.Resource{Hosts: []string{"h200-1"}, GPUs: 1}, func(al *gpucost.Allocation) {
			k := al.Owner.Pod
			if al.Idle {
				k = "idle"
			}
			got[k] = al.EffectiveCost.Dollars()
		})
		// Pod A's shares over the five minutes average 90.13%, pod B's 9.87% (each minute's
		// 17,640 units split in whole units); the GPU was never idle.
		if got[podA] != "$90.12" || got[podB] != "$9.88" || got["idle"] != "$0.00" || math.Abs(st.HeldGPUHours-5.0/60) > 1e-9 {
			t.Errorf("Allocate(%s) = %v, held %v GPU-h; want pod A $90.12, pod B $9.88, no idle, 5 GPU-minutes held", policy, got, st.HeldGPUHours)
		}
	}
}
