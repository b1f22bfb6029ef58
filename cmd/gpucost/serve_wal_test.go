package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/postgres/pgtest"
)

// serverProcess is gpucost serve running as a child process: the test binary standing in for
// the gpucost binary (see TestMain), so the test can kill it with SIGKILL.
type serverProcess struct {
	cmd  *exec.Cmd
	addr string
	logs *lockedBuffer
}

// startServerProcess starts gpucost serve on db in a child process and waits until it is ready.
func startServerProcess(t *testing.T, db string, logs *lockedBuffer, args ...string) *serverProcess {
	t.Helper()
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	cmd := exec.Command(os.Args[0], append([]string{"gpucost", "--db", db, "serve", "--listen", addr}, args...)...)
	cmd.Stdout, cmd.Stderr = logs, logs
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "XDG_DATA_HOME=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serverProcess{cmd: cmd, addr: addr, logs: logs}
	t.Cleanup(func() { p.kill() })
	for range 600 { // up to a minute: the replay runs before the server listens
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return p
			}
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("gpucost serve did not become ready on %s\n%s", addr, logs)
	return nil
}

// kill sends SIGKILL: the server gets no chance to write what it holds.
func (p *serverProcess) kill() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (p *serverProcess) stop(t *testing.T) {
	t.Helper()
	p.cmd.Process.Signal(syscall.SIGTERM)
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("gpucost serve after SIGTERM: %v\n%s", err, p.logs)
	}
}

// walSamples returns the samples of 8 GPUs at each of the given seconds after start.
func walSamples(start time.Time, secs ...int) []gpucost.Sample {
	var out []gpucost.Sample
	for _, s := range secs {
		for g := range 8 {
			smp := gpucost.NewSample(start.Add(time.Duration(s)*time.Second), gpucost.GPU{
				UUID: fmt.Sprintf("GPU-wal-%d", g), Host: fmt.Sprintf("node-%d", g/4), Model: "NVIDIA H100 80GB HBM3", Index: g % 4})
			smp.Util, smp.MemUsedMiB, smp.MemTotalMiB, smp.PowerW = float64((s+g)%101), 1000, 81559, 300
			smp.Labels = gpucost.Labels{"namespace": "team-" + fmt.Sprint(g%3)}
			out = append(out, smp)
		}
	}
	return out
}

func secs(from, to int) []int {
	var out []int
	for s := from; s < to; s++ {
		out = append(out, s)
	}
	return out
}

// TestServeWALSurvivesKill runs gpucost serve as a child process, posts samples to it and
// kills it with SIGKILL right after the last 200 (and once after a few flushes, when the
// minutes are written in part), three times, each time resending a batch already
// acknowledged as an agent does that lost the answer. A last start replays the log: the
// store's minute and hour rollups must then hold every acknowledged sample exactly once.
func TestServeWALSurvivesKill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gpucost serve four times")
	}
	db := filepath.Join(t.TempDir(), "gpucost.db")
	serveWALSurvivesKill(t, db, db+".ingest-wal")
}

// TestServeWALSurvivesKillPostgres is TestServeWALSurvivesKill on a real PostgreSQL, with the
// log in a directory named by --wal.
func TestServeWALSurvivesKillPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts gpucost serve four times")
	}
	serveWALSurvivesKill(t, pgtest.Start(t), filepath.Join(t.TempDir(), "wal"))
}

// serveWALSurvivesKill is TestServeWALSurvivesKill on the store named by db, with the log in
// walDir (given to the server as --wal unless it is where the server puts it by default).
func serveWALSurvivesKill(t *testing.T, db, walDir string) {
	var walFlag []string
	if walDir != db+".ingest-wal" {
		walFlag = []string{"--wal", walDir}
	}
	code, secret, errOut := runCLIDB(t, db, "token", "create", "--name", "node", "--role", "ingest")
	if code != exitOK {
		t.Fatalf("token create: exit %d, %s", code, errOut)
	}
	start := time.Now().UTC().Truncate(time.Hour).Add(-2 * time.Hour) // a whole hour, in the past
	rounds := []struct {
		posts [][]int       // seconds after start, one post each, sent concurrently
		wait  time.Duration // between the last 200 and SIGKILL
	}{
		{[][]int{secs(0, 5), secs(5, 10), secs(10, 15), secs(15, 20)}, 0},
		// Resends seconds 15–19, then goes on into the next minute; killed after some flushes,
		// so that minutes are written in part before the kill.
		{[][]int{secs(15, 25), secs(25, 30), secs(30, 40), secs(60, 70)}, 700 * time.Millisecond},
		{[][]int{secs(35, 45), secs(45, 50), secs(50, 60), secs(65, 80)}, 0},
	}
	want := map[int]bool{}
	logs := &lockedBuffer{}
	for i, r := range rounds {
		p := startServerProcess(t, db, logs, append(walFlag, "--flush", "100ms")...)
		client := &httpapi.Client{URL: "http://" + p.addr, Token: strings.TrimSpace(secret)}
		var wg sync.WaitGroup
		for _, post := range r.posts {
			wg.Go(func() {
				resp, err := client.PostSamples(context.Background(), walSamples(start, post...))
				if err != nil || resp.Accepted != 8*len(post) {
					t.Errorf("round %d: POST of seconds %v = %+v, %v; want all accepted", i, post, resp, err)
				}
			})
			for _, s := range post {
				want[s] = true
			}
		}
		wg.Wait()
		time.Sleep(r.wait)
		p.kill()
		if _, err := os.Stat(walDir); err != nil {
			t.Fatalf("round %d: after SIGKILL the write-ahead log is missing: %v", i, err)
		}
	}
	p := startServerProcess(t, db, logs, append(walFlag, "--flush", "100ms")...)
	p.stop(t)
	if !strings.Contains(logs.String(), "replayed the write-ahead log") {
		t.Errorf("the server logged no replay:\n%s", logs)
	}
	if _, err := os.Stat(walDir); !os.IsNotExist(err) {
		t.Errorf("after a clean stop the write-ahead log is still there (%v); want it removed", err)
	}

	stored := map[time.Duration]int{}
	store, err := liveEnv(db, &lockedBuffer{}, func(string) string { return "" }).openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for _, width := range []time.Duration{time.Minute, time.Hour} {
		err := store.ScanRollups(context.Background(), width, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
			stored[width] += r.Samples
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := 8 * len(want); stored[time.Minute] != n || stored[time.Hour] != n {
		t.Errorf("the store's minute rollups hold %d samples and its hour rollups %d; want the %d acknowledged, each once\n%s",
			stored[time.Minute], stored[time.Hour], n, logs)
	}
}
