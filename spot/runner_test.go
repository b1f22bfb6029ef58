package spot_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/checkpoint"
	"github.com/gpucost/gpucost/spot/faketrainer"
	"github.com/gpucost/gpucost/spot/notice"
	"github.com/gpucost/gpucost/spot/notice/noticetest"
)

// TestMain lets the test binary stand in for the trainer: "spot.test faketrainer -steps …".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "faketrainer" {
		os.Exit(faketrainer.Main(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// rig is one job's store, checkpoint directory and trainer result file.
type rig struct {
	t      *testing.T
	store  gpucost.ObjectStore
	dir    string
	result string
	log    *syncBuffer
}

func newRig(t *testing.T) *rig {
	t.Helper()
	s, err := file.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return &rig{t: t, store: s, dir: filepath.Join(t.TempDir(), "ckpt"), result: filepath.Join(t.TempDir(), "result.json"), log: &syncBuffer{}}
}

// runner returns a runner for the fake trainer with trainer flags args, on a fresh directory
// each call (a new machine) unless the rig's is reused.
func (g *rig) runner(args ...string) *spot.Runner {
	log := slog.New(slog.NewTextHandler(io.MultiWriter(g.log, testWriter{g.t}), nil))
	cmd := append([]string{os.Args[0], "faketrainer", "-result", g.result}, args...)
	return &spot.Runner{
		Job: "job", Dir: g.dir, Command: cmd, Store: g.store,
		Syncer: &checkpoint.Syncer{Store: g.store, Job: "job", Dir: g.dir, Log: log},
		Stdout: testWriter{g.t}, Stderr: testWriter{g.t},
		SyncInterval: 50 * time.Millisecond, MaxRestarts: 3, Backoff: 5 * time.Millisecond,
		UploadFloor: time.Second, Log: log,
		Machine: spot.Machine{Host: "test-host", Cloud: "none", InstanceType: "g5.xlarge", Spot: true,
			Price: gpucost.USD(400_000_000), HasPrice: true, OnDemand: gpucost.USD(1_212_000_000), HasOnDemand: true},
	}
}

// newMachine moves the rig to a new, empty checkpoint directory, as on the next machine.
func (g *rig) newMachine() { g.dir = filepath.Join(g.t.TempDir(), "ckpt") }

func (g *rig) events() []spot.Event {
	g.t.Helper()
	evs, skipped, err := spot.ReadEvents(context.Background(), g.store, "job", slog.New(slog.DiscardHandler))
	if err != nil || skipped > 0 {
		g.t.Fatalf("ReadEvents = %d skipped, %v", skipped, err)
	}
	return evs
}

func (g *rig) kinds() string {
	var ks []string
	for _, ev := range g.events() {
		k := ev.Kind
		if ev.Kind == spot.EventSync {
			continue
		}
		if ev.NoticeKind != "" {
			k += ":" + ev.NoticeKind
		}
		ks = append(ks, k)
	}
	return strings.Join(ks, " ")
}

// stored reports whether the store holds a manifest naming a checkpoint.
func (g *rig) stored() bool {
	m, err := checkpoint.Latest(context.Background(), g.store, "job")
	return err == nil && m.Latest != ""
}

// verifyLatest checks the store's latest manifest and returns it.
func (g *rig) verifyLatest() checkpoint.Manifest {
	g.t.Helper()
	ctx := context.Background()
	m, err := checkpoint.Latest(ctx, g.store, "job")
	if err != nil {
		g.t.Fatalf("Latest = %v", err)
	}
	if err := checkpoint.Verify(ctx, g.store, m); err != nil {
		g.t.Fatalf("Verify(%s) = %v", m.Key, err)
	}
	return m
}

// finish runs the job to the end on a new machine and checks the trainer's final state.
func (g *rig) finish(steps int, wantResumes int) {
	g.t.Helper()
	g.newMachine()
	res, err := g.runner("-steps", fmt.Sprint(steps), "-every", "20", "-step-time", "200us").Run(context.Background())
	if err != nil || res.ExitCode != spot.ExitDone {
		g.t.Fatalf("resumed Run = %+v, %v", res, err)
	}
	if res.ResumeFrom == "" {
		g.t.Errorf("resumed Run started fresh; want it to resume from the stored checkpoint")
	}
	g.checkResult(steps, wantResumes)
}

func (g *rig) checkResult(steps, wantResumes int) {
	g.t.Helper()
	r, err := faketrainer.ReadResult(g.result)
	if err != nil {
		g.t.Fatalf("trainer result: %v", err)
	}
	if r.Steps != steps || r.State != faketrainer.StateAfter(steps) {
		g.t.Errorf("trainer ended at step %d state %.12s…, want step %d state %.12s…", r.Steps, r.State, steps, faketrainer.StateAfter(steps))
	}
	if r.Resumes != wantResumes {
		g.t.Errorf("trainer resumed %d times, want %d", r.Resumes, wantResumes)
	}
}

func TestRunFreshToDone(t *testing.T) {
	g := newRig(t)
	res, err := g.runner("-steps", "200", "-every", "20", "-step-time", "200us").Run(context.Background())
	if err != nil || res.ExitCode != spot.ExitDone || res.ResumeFrom != "" || res.Restarts != 0 {
		t.Fatalf("Run = %+v, %v; want exit 0 from a fresh start", res, err)
	}
	g.checkResult(200, 0)
	if m := g.verifyLatest(); m.Latest != "ckpt-00000200.bin" {
		t.Errorf("latest checkpoint = %q, want ckpt-00000200.bin", m.Latest)
	}
	if got, want := g.kinds(), "start exit"; got != want {
		t.Errorf("events = %q, want %q", got, want)
	}
	evs := g.events()
	if ev := evs[0]; ev.Host != "test-host" || ev.InstanceType != "g5.xlarge" || !ev.Spot || ev.Price != "0.4" || ev.OnDemand != "1.212" {
		t.Errorf("start event = %+v, want the machine and its prices", ev)
	}
	var syncs int
	for _, ev := range evs {
		if ev.Kind == spot.EventSync && ev.Manifest != "" {
			syncs++
			if ev.Bytes > 0 && (ev.Seconds <= 0 || ev.MBps <= 0) {
				t.Errorf("sync event %+v has bytes but no time or rate", ev)
			}
		}
	}
	if syncs == 0 {
		t.Errorf("no sync events recorded")
	}
}

// interruptAndResume runs a long job, fires a notice once the first checkpoint is stored, and
// checks the run stops with ExitInterrupted, the checkpoint saved on the signal is stored and
// verifies, and a run on a new machine finishes with the right state.
func interruptAndResume(t *testing.T, w notice.Watcher, fire func()) *rig {
	g := newRig(t)
	r := g.runner("-steps", "1000", "-every", "20", "-step-time", "200us")
	r.Watchers = []notice.Watcher{w}
	done := make(chan struct{})
	var res spot.Result
	var err error
	go func() { res, err = r.Run(context.Background()); close(done) }()
	waitFor(t, "a stored checkpoint", g.stored)
	fire()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after the notice")
	}
	if res.ExitCode != spot.ExitInterrupted || res.Notice == nil || !strings.Contains(fmt.Sprint(err), "interrupted") {
		t.Fatalf("Run = %+v, %v; want exit %d after the notice", res, err, spot.ExitInterrupted)
	}
	m := g.verifyLatest()
	if saved, _ := lastSaved(g.dir); m.Latest != saved {
		t.Errorf("latest stored checkpoint = %q, want %q, the one saved on the signal", m.Latest, saved)
	}
	if got := g.kinds(); got != "start notice:terminate stop exit" {
		t.Errorf("events = %q, want start, notice, stop, exit", got)
	}
	g.finish(1000, 1)
	return g
}

// lastSaved returns the newest checkpoint the trainer left in dir.
func lastSaved(dir string) (string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "ckpt-*.bin"))
	if err != nil || len(names) == 0 {
		return "", fmt.Errorf("no checkpoint in %s", dir)
	}
	return filepath.Base(names[len(names)-1]), nil
}

func TestNoticeAWS(t *testing.T) {
	fake := noticetest.NewAWS(t)
	w := &notice.AWS{Endpoint: fake.URL, Poll: 50 * time.Millisecond}
	// AWS gives 2 minutes; a short real deadline compresses it.
	interruptAndResume(t, w, func() { fake.IssueSpotAction("terminate", time.Now().Add(5*time.Second)) })
}

func TestNoticeGCP(t *testing.T) {
	fake := noticetest.NewGCP(t)
	w := &notice.GCP{Host: fake.Host, Poll: 50 * time.Millisecond}
	interruptAndResume(t, w, fake.Preempt)
}

func TestNoticeAzureAckedAfterUpload(t *testing.T) {
	fake := noticetest.NewAzure(t, "vm-1")
	w := &notice.Azure{URL: fake.URL, VMName: "vm-1", Poll: 50 * time.Millisecond}
	var id string
	g := interruptAndResume(t, w, func() { id = fake.Preempt() })
	want := `{"StartRequests":[{"EventId":"` + id + `"}]}`
	if acks := fake.Acks(); len(acks) != 1 || acks[0] != want {
		t.Errorf("Azure acks = %q, want [%q]", acks, want)
	}
	_ = g
}

func TestRebalanceSyncsAtOnce(t *testing.T) {
	g := newRig(t)
	fake := noticetest.NewAWS(t)
	r := g.runner("-steps", "1500", "-every", "20", "-step-time", "200us")
	r.SyncInterval = time.Hour // only the rebalance can sync before the end
	r.Watchers = []notice.Watcher{&notice.AWS{Endpoint: fake.URL, Poll: 50 * time.Millisecond}}
	done := make(chan struct{})
	go func() { r.Run(context.Background()); close(done) }()
	waitFor(t, "a checkpoint on disk", func() bool { _, err := lastSaved(g.dir); return err == nil })
	fake.IssueRebalance(time.Now())
	waitFor(t, "a checkpoint synced after the rebalance", g.stored)
	<-done
	var reason string
	for _, ev := range g.events() {
		if ev.Kind == spot.EventSync && reason == "" {
			reason = ev.Reason
		}
	}
	if reason != "rebalance" {
		t.Errorf("first sync reason = %q, want rebalance", reason)
	}
	if !strings.Contains(g.kinds(), "notice:rebalance") {
		t.Errorf("events %q lack the rebalance notice", g.kinds())
	}
}

func TestSignalToRunner(t *testing.T) {
	ch := make(chan notice.Notice, 1)
	fired := watcherFunc(func(ctx context.Context, out chan<- notice.Notice) error {
		select {
		case n := <-ch:
			out <- n
		case <-ctx.Done():
		}
		return nil
	})
	interruptAndResume(t, fired, func() {
		now := time.Now()
		ch <- notice.Notice{Kind: notice.Terminate, Source: notice.SourceSignal, Seen: now, Deadline: now.Add(3 * time.Second)}
	})
}

type watcherFunc func(ctx context.Context, out chan<- notice.Notice) error

func (f watcherFunc) Watch(ctx context.Context, out chan<- notice.Notice) error { return f(ctx, out) }

func TestCrashRestartsFromCheckpoint(t *testing.T) {
	g := newRig(t)
	res, err := g.runner("-steps", "300", "-every", "20", "-crash-at", "150", "-step-time", "200us").Run(context.Background())
	if err != nil || res.ExitCode != spot.ExitDone || res.Restarts != 1 {
		t.Fatalf("Run = %+v, %v; want exit 0 after 1 restart", res, err)
	}
	g.checkResult(300, 1)
	if got, want := g.kinds(), "start crash restart exit"; got != want {
		t.Errorf("events = %q, want %q", got, want)
	}
	for _, ev := range g.events() {
		if ev.Kind == spot.EventRestart && !strings.HasSuffix(ev.ResumeFrom, "ckpt-00000140.bin") {
			t.Errorf("restart resumed from %q, want the checkpoint before the crash, ckpt-00000140.bin", ev.ResumeFrom)
		}
	}
}

func TestMaxRestartsExceeded(t *testing.T) {
	g := newRig(t)
	r := g.runner("-crash-always")
	r.MaxRestarts, r.Backoff = 2, 20*time.Millisecond
	res, err := r.Run(context.Background())
	if res.ExitCode != spot.ExitFailed || res.Restarts != 2 || res.Status != 3 || err == nil {
		t.Fatalf("Run = %+v, %v; want exit %d after 2 restarts", res, err, spot.ExitFailed)
	}
	if !strings.Contains(err.Error(), "--max-restarts 2") {
		t.Errorf("error %q does not name the limit", err)
	}
	if got, want := g.kinds(), "start crash restart crash restart crash exit"; got != want {
		t.Errorf("events = %q, want %q", got, want)
	}
	// Backoff doubles: the second wait (40 ms) is at least the first (20 ms) plus 20 ms.
	var crashes, restarts []time.Time
	for _, ev := range g.events() {
		switch ev.Kind {
		case spot.EventCrash:
			crashes = append(crashes, ev.Time)
		case spot.EventRestart:
			restarts = append(restarts, ev.Time)
		}
	}
	for i, want := range []time.Duration{20 * time.Millisecond, 40 * time.Millisecond} {
		if got := restarts[i].Sub(crashes[i]); got < want {
			t.Errorf("restart %d came %v after the crash, want at least %v", i+1, got, want)
		}
	}
}

// failingStore fails every call, as an unreachable server does.
type failingStore struct{ gpucost.ObjectStore }

func (failingStore) List(context.Context, string) ([]gpucost.Object, error) {
	return nil, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

func TestUnreachableStoreAtStart(t *testing.T) {
	g := newRig(t)
	g.store = failingStore{g.store}
	r := g.runner("-steps", "1")
	res, err := r.Run(context.Background())
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || res.ExitCode == 0 {
		t.Fatalf("Run = %+v, %v; want an EUnavailable error", res, err)
	}
	if !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "not started") {
		t.Errorf("error %q should give the cause and say the command was not started", err)
	}
	if _, err := os.Stat(g.result); err == nil {
		t.Errorf("the trainer ran although the store was unreachable")
	}
}

// slowStore uploads at about rate bytes per second.
type slowStore struct {
	gpucost.ObjectStore
	rate float64
}

func (s slowStore) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	start := time.Now()
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	wait := time.Duration(float64(len(b))/s.rate*float64(time.Second)) - time.Since(start)
	select {
	case <-time.After(wait):
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.ObjectStore.Put(ctx, key, bytes.NewReader(b), size)
}

func TestCheckpointCannotFitWindow(t *testing.T) {
	g := newRig(t)
	g.store = slowStore{g.store, 4e6}
	r := g.runner("-steps", "100000", "-every", "1500", "-size", "4000000", "-step-time", "1ms")
	r.SyncInterval = 20 * time.Millisecond
	ch := make(chan notice.Notice, 1)
	r.Watchers = []notice.Watcher{watcherFunc(func(ctx context.Context, out chan<- notice.Notice) error {
		select {
		case n := <-ch:
			out <- n
		case <-ctx.Done():
		}
		return nil
	})}
	done := make(chan struct{})
	var res spot.Result
	go func() { res, _ = r.Run(context.Background()); close(done) }()
	// The runner learns a checkpoint's size when it logs the sync, just after the store names
	// the checkpoint latest: a notice between the two would find no size to estimate from.
	synced := regexp.MustCompile(`checkpoint synced" .*uploaded=[1-9]`)
	waitFor(t, "a first checkpoint synced with its files", func() bool { return synced.MatchString(g.log.String()) })
	before := g.verifyLatest()
	now := time.Now()
	ch <- notice.Notice{Kind: notice.Terminate, Source: "test", Seen: now, Deadline: now.Add(800 * time.Millisecond)}
	<-done
	log := g.log.String()
	// The runner says so at the notice, when it gives the command its grace, and again before
	// the upload if the command saved a checkpoint in it; on a loaded machine the command may be
	// ended before it saves, and then only the first is said.
	atNotice := regexp.MustCompile(`as the upload estimate leaves less: [0-9.]+ s to the deadline less [0-9.]+ s to upload [0-9.]+ MB`)
	atUpload := regexp.MustCompile(`cannot fit the notice window: [1-9][0-9]* bytes \([0-9.]+ MB\) pending at [0-9.]+ MB/s needs [0-9.]+ s, [0-9.]+ s left`)
	if !atNotice.MatchString(log) {
		t.Errorf("log does not say at the notice, with the numbers, that the checkpoint cannot fit:\n%s", log)
	}
	if strings.Contains(log, "the command exited after the notice") && !atUpload.MatchString(log) {
		t.Errorf("the command saved on the notice, and the log does not say, with the numbers, that its checkpoint cannot fit:\n%s", log)
	}
	if after := g.verifyLatest(); after.Seq < before.Seq { // whatever happened, latest names a complete checkpoint
		t.Errorf("latest manifest went back from %d to %d", before.Seq, after.Seq)
	}
	if res.ExitCode != spot.ExitSyncFailed && res.ExitCode != spot.ExitInterrupted {
		t.Errorf("Run exit = %d, want %d or %d", res.ExitCode, spot.ExitSyncFailed, spot.ExitInterrupted)
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testWriter sends the trainer's and runner's output to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// BenchmarkNoticeToSignal measures the time from the fake IMDS starting to report a spot
// interruption to the command receiving its signal, with the watcher polling every second (the
// --poll 1s setting). Target: under 1 s.
func BenchmarkNoticeToSignal(b *testing.B) {
	var total, worst time.Duration
	for i := 0; i < b.N; i++ {
		d := noticeToSignal(b)
		total, worst = total+d, max(worst, d)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/notice")
	b.ReportMetric(float64(worst.Milliseconds()), "max-ms")
}

func noticeToSignal(b *testing.B) time.Duration {
	b.StopTimer()
	defer b.StartTimer()
	fake := noticetest.NewAWS(b)
	s, err := file.New(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	dir, stamp := filepath.Join(b.TempDir(), "ckpt"), filepath.Join(b.TempDir(), "stamp")
	r := &spot.Runner{
		Job: "job", Dir: dir, Store: s, Syncer: &checkpoint.Syncer{Store: s, Job: "job", Dir: dir},
		Command:  []string{os.Args[0], "faketrainer", "-steps", "1000000", "-every", "1000", "-signal-stamp", stamp},
		Watchers: []notice.Watcher{&notice.AWS{Endpoint: fake.URL, Poll: time.Second}},
		Stdout:   io.Discard, Stderr: io.Discard, UploadFloor: time.Second,
	}
	done := make(chan struct{})
	go func() { r.Run(context.Background()); close(done) }()
	for {
		if names, _ := filepath.Glob(filepath.Join(dir, "ckpt-*")); len(names) > 0 {
			break // the trainer is running
		}
		time.Sleep(5 * time.Millisecond)
	}
	start := time.Now()
	fake.IssueSpotAction("terminate", start.Add(2*time.Minute))
	<-done
	b2, err := os.ReadFile(stamp)
	if err != nil {
		b.Fatalf("the trainer never got its signal: %v", err)
	}
	var ns int64
	fmt.Sscan(string(b2), &ns)
	return time.Unix(0, ns).Sub(start)
}

// TestNoticeKeepsTheSavedStatus checks that the result and the exit event carry the status the
// command exited with after saving on the notice (75 here), not the one known before it.
func TestNoticeKeepsTheSavedStatus(t *testing.T) {
	fake := noticetest.NewGCP(t)
	g := newRig(t)
	r := g.runner("-steps", "1000", "-every", "20", "-step-time", "200us", "-signal-exit", "75")
	r.Watchers = []notice.Watcher{&notice.GCP{Host: fake.Host, Poll: 50 * time.Millisecond}}
	done := make(chan struct{})
	var res spot.Result
	go func() { res, _ = r.Run(context.Background()); close(done) }()
	waitFor(t, "a stored checkpoint", g.stored)
	fake.Preempt()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("Run did not return after the notice")
	}
	if res.ExitCode != spot.ExitInterrupted || res.Status != 75 {
		t.Errorf("Run = exit %d, status %d; want exit %d and the command's status 75", res.ExitCode, res.Status, spot.ExitInterrupted)
	}
}
