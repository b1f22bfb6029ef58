package queue

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost/file"
)

// TestFaultKilledWorkers is the proof under faults: 10,000 items, 4 worker processes, one of
// them killed with SIGKILL every 1–2 s and started again. Every item has exactly one result
// with the right content, and the dead-letter stream holds exactly the items built to fail.
func TestFaultKilledWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("fault test skipped in -short mode")
	}
	if raceEnabled {
		// Every worker and every command run is a race-instrumented process, ten times slower;
		// the in-process tests cover the worker's concurrency under -race.
		t.Skip("fault test skipped under -race: it runs some thousand processes; run it without -race")
	}
	const total, workers = 10_000, 4
	s := startServer(t, t.TempDir())
	c := dial(t, s.URL())
	ctx := context.Background()
	items := make([]testItem, total)
	failing := map[string]bool{}
	for i := range items {
		items[i] = testItem{ID: json.RawMessage(fmt.Sprintf(`"i%05d"`, i)), N: i, Fail: i%100 == 37}
		if items[i].Fail {
			failing[fmt.Sprintf("i%05d", i)] = true
		}
	}
	if st, err := c.Push(ctx, "fault", strings.NewReader(jsonl(items...)), "fault.jsonl", nil); err != nil || st.Pushed != total {
		t.Fatalf("Push = %+v, %v; want %d pushed", st, err, total)
	}
	resultsDir := filepath.Join(t.TempDir(), "results")
	kills := superviseWorkers(t, workers, []string{s.URL(), "fault", resultsDir, "20", "2s", "3", "0"}, 150*time.Second)
	t.Logf("%d workers killed with SIGKILL", kills)
	if kills == 0 {
		t.Errorf("no worker was killed: the test proved nothing")
	}
	checkResults(t, resultsDir, items)
	dead, err := c.DeadLetters(ctx, "fault")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range dead {
		if !failing[d.ID] || seen[d.ID] {
			t.Errorf("dead letter %s (%s): want only items built to fail, once each", d.ID, d.Error)
		}
		seen[d.ID] = true
	}
	if len(seen) != len(failing) {
		t.Errorf("%d items dead-lettered, want the %d built to fail", len(seen), len(failing))
	}
	st, err := c.Status(ctx, "fault", time.Now())
	if err != nil || st.Done != total-uint64(len(failing)) || st.Pending != 0 || st.InFlight != 0 {
		t.Errorf("Status = %+v, %v; want %d done, nothing pending or in flight", st, err, total-len(failing))
	}
}

// superviseWorkers runs n worker processes until all exit on an empty queue, killing a random
// one every 1–2 s and starting it again. It returns the number of kills.
func superviseWorkers(t *testing.T, n int, args []string, limit time.Duration) int {
	t.Helper()
	type proc struct {
		cmd  *exec.Cmd
		done chan error
	}
	start := func() *proc {
		cmd := exec.Command(os.Args[0], append([]string{roleWorker}, args...)...)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatalf("start worker: %v", err)
		}
		p := &proc{cmd: cmd, done: make(chan error, 1)}
		go func() { p.done <- cmd.Wait() }()
		return p
	}
	procs := make([]*proc, n)
	for i := range procs {
		procs[i] = start()
	}
	deadline := time.Now().Add(limit)
	kills := 0
	nextKill := time.Now().Add(time.Second + rand.N(time.Second))
	for running := n; running > 0; {
		if time.Now().After(deadline) {
			for _, p := range procs {
				if p != nil {
					p.cmd.Process.Kill()
				}
			}
			t.Fatalf("workers did not empty the queue within %s", limit)
		}
		running = 0
		for i, p := range procs {
			if p == nil {
				continue
			}
			select {
			case err := <-p.done:
				if err != nil {
					t.Fatalf("worker %d exited: %v", i, err)
				}
				procs[i] = nil // the queue was empty
				continue
			default:
			}
			running++
		}
		if running > 0 && time.Now().After(nextKill) {
			if i := rand.N(n); procs[i] != nil {
				procs[i].cmd.Process.Signal(syscall.SIGKILL)
				<-procs[i].done
				kills++
				procs[i] = start()
			}
			nextKill = time.Now().Add(time.Second + rand.N(time.Second))
		}
		time.Sleep(50 * time.Millisecond)
	}
	return kills
}

// checkResults checks that the results store holds one result per item not built to fail, each
// with the fake job's answer, and nothing else. It reads the store as any reader would
// (ReadResults): a Put cut short by SIGKILL leaves a temporary file that List never shows, and
// an item stored again after its worker was killed between its segment and its done message
// counts once, with its first result.
func checkResults(t *testing.T, dir string, items []testItem) {
	t.Helper()
	store, err := file.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for _, it := range items {
		if !it.Fail {
			want[strings.Trim(string(it.ID), `"`)] = expectedResult(it)
		}
	}
	seen := map[string]bool{}
	st, err := ReadResults(context.Background(), store, func(r Result) error {
		exp, ok := want[r.ID]
		if !ok || seen[r.ID] {
			t.Errorf("unexpected result %s in %s", r.ID, r.Key)
			return nil
		}
		seen[r.ID] = true
		if string(r.Data) != exp {
			t.Errorf("result %s = %q, want %q", r.ID, r.Data, exp)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("results: %d items in %d segments, %d stored again after a kill", st.Items, st.Segments, st.Duplicates)
	if len(seen) != len(want) || st.Items != len(want) {
		t.Errorf("%d results (ReadResults counted %d), want %d", len(seen), st.Items, len(want))
	}
}
