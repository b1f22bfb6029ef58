package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/queue/natsserver"
	"github.com/gpucost/gpucost/spot/checkpoint"
	"github.com/gpucost/gpucost/spot/faketrainer"
)

// TestMain lets the test binary stand in for the fake trainer ("faketrainer ARGS") and for the
// gpucost binary ("gpucost ARGS"), so the kill -9 test kills a real gpucost run process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "faketrainer":
			os.Exit(faketrainer.Main(os.Args[2:]))
		case "queue-server":
			os.Exit(natsserver.Main(queue.ServerCommand, os.Args[2:], os.Stdout, os.Stderr))
		case "gpucost":
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			code := run(ctx, os.Args[2:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv})
			stop()
			os.Exit(code)
		}
	}
	pgtest.Main(m) // runs the tests, then stops the PostgreSQL cluster if one was started
}

// runGpucost runs gpucost in-process with the real clock and the given environment.
func runGpucost(t *testing.T, environ map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: time.Now,
		getenv: func(k string) string { return environ[k] }}
	args = append([]string{"--db", filepath.Join(t.TempDir(), "gpucost.db")}, args...)
	code := run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

func trainer(args ...string) []string {
	return append([]string{"--", os.Args[0], "faketrainer"}, args...)
}

func TestRunFlagErrors(t *testing.T) {
	store, dir := t.TempDir(), t.TempDir()
	base := []string{"run", "--checkpoint-dir", dir, "--store", store, "--cloud", "none"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"cloud", append(append(base, "--cloud", "ibm"), trainer()...), `--cloud "ibm"`},
		{"signal", append(append(base, "--notice-signal", "SIGFOO"), trainer()...), `--notice-signal "SIGFOO": use one of SIGHUP`},
		{"name", append(append(base, "--name", "a/b"), trainer()...), `--name "a/b"`},
		{"price", append(append(base, "--price", "cheap"), trainer()...), `--price "cheap"`},
		{"no command", base, "requires at least 1 arg"},
		{"no store", append([]string{"run", "--checkpoint-dir", dir}, trainer()...), "needs --checkpoint-dir and --store"},
	} {
		code, _, errOut := runGpucost(t, nil, c.args...)
		if code != exitInvalid || !strings.Contains(errOut, c.want) {
			t.Errorf("%s: gpucost %s = exit %d, stderr %q; want exit %d and %q", c.name, strings.Join(c.args, " "), code, errOut, exitInvalid, c.want)
		}
	}
}

func TestRunUnreachableStore(t *testing.T) {
	result := filepath.Join(t.TempDir(), "result.json")
	environ := map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}
	args := append([]string{"run", "--checkpoint-dir", t.TempDir(), "--store", "s3://bucket/jobs", "--cloud", "none"},
		trainer("-steps", "1", "-result", result)...)
	code, _, errOut := runGpucost(t, environ, args...)
	if code != exitUnavailable {
		t.Errorf("gpucost run with an unreachable store = exit %d, want %d; stderr %s", code, exitUnavailable, errOut)
	}
	if _, err := os.Stat(result); err == nil {
		t.Errorf("the command ran although the store was unreachable")
	}
}

func TestRunThenReportJobs(t *testing.T) {
	store := t.TempDir()
	result := filepath.Join(t.TempDir(), "result.json")
	args := append([]string{"run", "--name", "mlp", "--checkpoint-dir", t.TempDir(), "--store", "file://" + store,
		"--cloud", "none", "--sync-interval", "50ms", "--instance-type", "g5.xlarge", "--price", "0.40"},
		trainer("-steps", "300", "-every", "20", "-crash-at", "150", "-step-time", "200us", "-result", result)...)
	code, _, errOut := runGpucost(t, nil, args...)
	if code != exitOK {
		t.Fatalf("gpucost run = exit %d; stderr %s", code, errOut)
	}
	r, err := faketrainer.ReadResult(result)
	if err != nil || r.Steps != 300 || r.State != faketrainer.StateAfter(300) {
		t.Fatalf("trainer result = %+v, %v; want 300 steps and the right state", r, err)
	}
	code, out, errOut := runGpucost(t, nil, "report", "jobs", "--store", store, "--output", "json")
	if code != exitOK {
		t.Fatalf("report jobs = exit %d; stderr %s", code, errOut)
	}
	var jobs []jobJSON
	if err := json.Unmarshal([]byte(out), &jobs); err != nil || len(jobs) != 1 {
		t.Fatalf("report jobs --output json = %q, %v", out, err)
	}
	j := jobs[0]
	if j.Job != "mlp" || j.Status != "done" || j.Runs != 1 || j.Restarts != 1 || j.Crashes != 1 || j.Cost == nil || j.OnDemand == nil || j.Savings == nil {
		t.Errorf("report jobs = %+v; want job mlp done after 1 restart, with cost and on-demand", j)
	}
	if j.ProductiveS <= 0 || j.ProductiveS > j.WallS || j.LostWorkS <= 0 {
		t.Errorf("report jobs times = productive %v s, wall %v s, lost %v s", j.ProductiveS, j.WallS, j.LostWorkS)
	}
	code, out, errOut = runGpucost(t, nil, "report", "jobs", "--store", store)
	if code != exitOK || !strings.Contains(out, "mlp") || !strings.Contains(strings.ToLower(out), "lost work") {
		t.Errorf("report jobs table = exit %d:\n%s\n%s", code, out, errOut)
	}
	if code, _, errOut := runGpucost(t, nil, "report", "jobs", "--store", store, "--job", "nope"); code != exitNotFound {
		t.Errorf("report jobs --job nope = exit %d (%s), want %d", code, errOut, exitNotFound)
	}
}

// TestRunKill9 kills the gpucost run process with SIGKILL 100 times at random moments during
// its syncs: each run syncs back to back (--sync-interval 1ms) a trainer writing a checkpoint
// every 10 steps, and is killed 0–100 ms after its first sync finished. After every kill the
// store's latest manifest must name a complete checkpoint whose checksums verify, and a last run
// on a fresh machine must end with the trainer's exact state.
func TestRunKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 fault test skipped in -short mode")
	}
	storeDir := t.TempDir()
	store, err := file.New(storeDir)
	if err != nil {
		t.Fatal(err)
	}
	result := filepath.Join(t.TempDir(), "result.json")
	const steps, wantKills = 6000, 100
	kills, midUpload, budget := 0, 0, time.Now().Add(40*time.Second)
	for kills < wantKills && time.Now().Before(budget) {
		cmd := gpucostRun(t, storeDir, result, steps)
		synced, err := syncedSignal(cmd)
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-synced:
			time.Sleep(time.Duration(rand.IntN(100)) * time.Millisecond)
		case <-time.After(10 * time.Second):
			t.Fatal("gpucost run logged no sync within 10 s")
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		if cmd.ProcessState.ExitCode() == 0 {
			break // it finished before the kill
		}
		kills++
		if uploadInFlight(t, storeDir) {
			midUpload++
		}
		checkLatest(t, store)
	}
	t.Logf("%d kills, %d of them between a sync's first upload and its manifest", kills, midUpload)
	cmd := gpucostRun(t, storeDir, result, steps)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	resumed := "a fresh start"
	if m, err := checkpoint.Latest(context.Background(), store, "k9"); err == nil {
		resumed = m.Latest
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("final gpucost run: %v\n%s", err, errb.String())
	}
	t.Logf("the last run resumed from %s", resumed)
	r, err := faketrainer.ReadResult(result)
	if err != nil || r.Steps != steps || r.State != faketrainer.StateAfter(steps) {
		t.Fatalf("after %d kills the trainer ended with %+v, %v; want %d steps and state %.12s…", kills, r, err, steps, faketrainer.StateAfter(steps))
	}
	if kills < wantKills || midUpload == 0 {
		t.Errorf("%d kills landed before the job finished, %d of them mid-upload; want %d, and some mid-upload", kills, midUpload, wantKills)
	}
}

// syncedSignal returns a channel closed when cmd logs its first finished checkpoint sync; the
// rest of its stderr is drained.
func syncedSignal(cmd *exec.Cmd) (<-chan struct{}, error) {
	pipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	synced := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(pipe)
		seen := false
		for sc.Scan() {
			if !seen && strings.Contains(sc.Text(), `msg="checkpoint synced"`) {
				seen = true
				close(synced)
			}
		}
	}()
	return synced, nil
}

// uploadInFlight reports whether the kill left job k9 with an object or a partial upload newer
// than its newest manifest: it landed inside a sync, after its first upload.
func uploadInFlight(t *testing.T, storeDir string) bool {
	t.Helper()
	var newestObject, newestManifest time.Time
	err := filepath.WalkDir(filepath.Join(storeDir, "k9"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return nil // pruned meanwhile
		}
		switch {
		case strings.HasPrefix(d.Name(), ".gpucost-put-"):
			newestObject = info.ModTime().Add(time.Hour) // a partial upload
		case strings.Contains(p, "/objects/") && info.ModTime().After(newestObject):
			newestObject = info.ModTime()
		case strings.Contains(p, "/manifests/") && info.ModTime().After(newestManifest):
			newestManifest = info.ModTime()
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatalf("walk the store: %v", err)
	}
	return newestObject.After(newestManifest)
}

// gpucostRun returns a gpucost run process on a fresh checkpoint directory: a new machine.
func gpucostRun(t *testing.T, store, result string, steps int) *exec.Cmd {
	args := []string{"gpucost", "run", "--name", "k9", "--checkpoint-dir", filepath.Join(t.TempDir(), "ckpt"),
		"--store", store, "--cloud", "none", "--sync-interval", "1ms", "--",
		os.Args[0], "faketrainer", "-steps", fmt.Sprint(steps), "-every", "10", "-size", "65536", "-step-time", "1ms", "-result", result}
	return exec.Command(os.Args[0], args...)
}

// checkLatest verifies the newest manifest of job k9, if there is one yet.
func checkLatest(t *testing.T, store gpucost.ObjectStore) {
	t.Helper()
	ctx := context.Background()
	m, err := checkpoint.Latest(ctx, store, "k9")
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		return
	}
	if err != nil {
		t.Fatalf("Latest after a kill = %v", err)
	}
	if err := checkpoint.Verify(ctx, store, m); err != nil {
		t.Fatalf("Verify(%s) after a kill = %v", m.Key, err)
	}
}
