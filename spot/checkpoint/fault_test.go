package checkpoint

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/s3"
	"github.com/gpucost/gpucost/s3/s3test"
)

// The fault test re-runs this test binary as a fake job under a syncer (helperEnv set), kills it
// with SIGKILL at random moments, and checks the store after each kill.
const helperEnv = "GPUCOST_CHECKPOINT_FAULT_HELPER"

// TestKillDuringSync is issue 5's first fault proof: kill -9 at random moments during syncs, and
// the store's newest manifest always names a complete checkpoint whose checksums verify, which a
// restore reproduces and a resumed run continues from.
func TestKillDuringSync(t *testing.T) {
	kills := 100
	if testing.Short() {
		kills = 20
	}
	t.Run("file", func(t *testing.T) {
		killLoop(t, "file:"+t.TempDir(), kills, 120*time.Millisecond)
	})
	t.Run("gofakes3", func(t *testing.T) {
		endpoint, bucket := s3test.StartFake(t)
		killLoop(t, "s3:"+endpoint+" "+bucket, kills, 120*time.Millisecond)
	})
}

func TestKillDuringSyncVersity(t *testing.T) {
	endpoint, bucket := s3test.StartVersity(t)
	// A real server takes longer per request: the job gets longer between kills to progress.
	killLoop(t, "s3:"+endpoint+" "+bucket, 15, 400*time.Millisecond)
}

// openStore opens the store a helper's address names: "file:DIR" or "s3:ENDPOINT BUCKET".
func openStore(t testing.TB, addr string) gpucost.ObjectStore {
	if dir, ok := strings.CutPrefix(addr, "file:"); ok {
		s, err := file.New(dir)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	endpoint, bucket, _ := strings.Cut(strings.TrimPrefix(addr, "s3:"), " ")
	s, err := s3.Open(context.Background(), s3test.Config(endpoint, bucket, "faults"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// killLoop starts and kills the fake job kills times, each after a random time up to most.
func killLoop(t *testing.T, addr string, kills int, most time.Duration) {
	ctx := context.Background()
	store := openStore(t, addr)
	var prev Manifest
	for i := range kills {
		resumed := runAndKill(t, addr, rand.N(most))
		if resumed != prev.Latest {
			t.Fatalf("kill %d: the job resumed from %q, want the latest checkpoint %q", i, resumed, prev.Latest)
		}
		keys, err := settledList(ctx, store)
		if err != nil {
			t.Fatalf("kill %d: list manifests: %v", i, err)
		}
		if len(keys) == 0 {
			continue // killed before its first manifest: a fresh start again
		}
		newest, err := readManifest(ctx, store, keys[len(keys)-1].Key)
		if err != nil {
			t.Fatalf("kill %d: the newest manifest does not parse: %v", i, err)
		}
		m, err := Latest(ctx, store, "job")
		if err != nil || m.Key != newest.Key {
			t.Fatalf("kill %d: Latest = %s, %v; want the newest manifest %s", i, m.Key, err, newest.Key)
		}
		if err := Verify(ctx, store, m); err != nil {
			t.Fatalf("kill %d: %v", i, err)
		}
		into := t.TempDir()
		if _, _, err := (&Syncer{Store: store, Job: "job", Dir: into}).Restore(ctx); err != nil {
			t.Fatalf("kill %d: Restore: %v", i, err)
		}
		sameTree(t, into, m)
		if step(m.Latest) < step(prev.Latest) {
			t.Fatalf("kill %d: latest went back from %s to %s", i, prev.Latest, m.Latest)
		}
		prev = m
	}
	if step(prev.Latest) < kills/4 {
		t.Errorf("after %d kills the latest checkpoint is only %q: the job hardly progressed", kills, prev.Latest)
	}
	t.Logf("%d kills; last manifest %d at %s", kills, prev.Seq, prev.Latest)
}

// settledList lists the job's manifests once two listings 20 ms apart agree: a request the
// killed job sent in full may still land on a server after the job is gone.
func settledList(ctx context.Context, store gpucost.ObjectStore) ([]gpucost.Object, error) {
	prev, err := store.List(ctx, "job/manifests/")
	for err == nil {
		time.Sleep(20 * time.Millisecond)
		var keys []gpucost.Object
		if keys, err = store.List(ctx, "job/manifests/"); err == nil && slices.Equal(keys, prev) {
			return keys, nil
		}
		prev = keys
	}
	return nil, err
}

// runAndKill starts the fake job, waits until it has restored, lets it run for d and kills it. It
// returns the checkpoint the job resumed from.
func runAndKill(t *testing.T, addr string, d time.Duration) string {
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultHelper$")
	cmd.Env = append(os.Environ(), helperEnv+"=1", "FAULT_STORE="+addr, "FAULT_DIR="+t.TempDir())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	resumed, ok := strings.CutPrefix(strings.TrimSpace(line), "resumed=")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("fake job: %q, %v", line, err)
	}
	time.Sleep(d)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	return resumed
}

// TestFaultHelper is the fake job: it restores, then writes checkpoints as a trainer would
// (each step to step-N.tmp, renamed to step-N, the step before last removed, and a progress
// file rewritten in place) while a Syncer syncs in a loop, until it is killed.
func TestFaultHelper(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		t.Skip("the fake job of TestKillDuringSync")
	}
	ctx := context.Background()
	dir := os.Getenv("FAULT_DIR")
	s := &Syncer{Store: openStore(t, os.Getenv("FAULT_STORE")), Job: "job", Dir: dir}
	m, _, err := s.Restore(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("resumed=%s\n", m.Latest)
	go func() {
		for n := step(m.Latest) + 1; ; n++ {
			writeStep(t, dir, n)
			time.Sleep(time.Duration(rand.IntN(20)) * time.Millisecond)
		}
	}()
	for {
		if _, err := s.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

func writeStep(t *testing.T, dir string, n int) {
	tmp := filepath.Join(dir, fmt.Sprintf("step-%d.tmp", n))
	write(t, tmp, "model.bin", random(192<<10+rand.IntN(64<<10)))
	write(t, tmp, "optim.bin", random(96<<10))
	write(t, tmp, "meta.json", fmt.Appendf(nil, `{"step": %d}`, n))
	final := filepath.Join(dir, fmt.Sprintf("step-%d", n))
	if err := os.Rename(tmp, final); err != nil {
		t.Error(err)
	}
	os.RemoveAll(filepath.Join(dir, fmt.Sprintf("step-%d", n-2)))
	for i := range 3 { // a late note, rewritten in place while syncs read it
		write(t, final, "notes.txt", fmt.Appendf(nil, "step %d, note %d\n", n, i))
		time.Sleep(time.Millisecond)
	}
}

// step returns N of "step-N", 0 for anything else.
func step(name string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(name, "step-"))
	return n
}
