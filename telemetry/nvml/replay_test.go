//go:build cgo

package nvml

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/nvml/nvmltest"
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
