package spot_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot"
	"github.com/gpucost/gpucost/spot/notice"
)

// The tests below run the fake trainer under the real runner and check the job report's figures
// against the events the run recorded (docs/architecture.md "Job accounting"). Wall-clock bounds
// are generous; the figures themselves are checked exactly, from the events.

// background is a Run in progress with a watcher the test sends notices through.
type background struct {
	notices chan notice.Notice
	done    chan struct{}
	res     spot.Result
	err     error
}

func startRun(r *spot.Runner) *background {
	b := &background{notices: make(chan notice.Notice, 1), done: make(chan struct{})}
	r.Watchers = []notice.Watcher{watcherFunc(func(ctx context.Context, out chan<- notice.Notice) error {
		select {
		case n := <-b.notices:
			out <- n
		case <-ctx.Done():
		}
		return nil
	})}
	go func() { b.res, b.err = r.Run(context.Background()); close(b.done) }()
	return b
}

// notify sends a terminate notice whose deadline is in d.
func (b *background) notify(d time.Duration) {
	now := time.Now()
	b.notices <- notice.Notice{Kind: notice.Terminate, Source: "test", Seen: now, Deadline: now.Add(d)}
}

func (b *background) wait(t *testing.T) (spot.Result, error) {
	t.Helper()
	select {
	case <-b.done:
	case <-time.After(60 * time.Second):
		t.Fatal("Run did not return within 60 s")
	}
	return b.res, b.err
}

// storedEvents reads the job's events while it may still be writing them.
func (g *rig) storedEvents() []spot.Event {
	evs, _, _ := spot.ReadEvents(context.Background(), g.store, "job", slog.New(slog.DiscardHandler))
	return evs
}

// lastStored returns the last sync event that stored a checkpoint.
func lastStored(evs []spot.Event) (spot.Event, bool) {
	var out spot.Event
	ok := false
	for _, ev := range evs {
		if ev.Kind == spot.EventSync && ev.Error == "" && ev.CheckpointTime != nil {
			out, ok = ev, true
		}
	}
	return out, ok
}

// only returns the one event of kind in evs.
func only(t *testing.T, evs []spot.Event, kind string) spot.Event {
	t.Helper()
	var found []spot.Event
	for _, ev := range evs {
		if ev.Kind == kind && (kind != spot.EventNotice || ev.NoticeKind == notice.Terminate) {
			found = append(found, ev)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d %s events, want 1: %+v", len(found), kind, found)
	}
	return found[0]
}

// deref shows what p points to, or "none".
func deref[T any](p *T) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

// checkFigures compares the report's times with the ones worked out from the events.
func checkFigures(t *testing.T, rep spot.JobReport, productive, lost, running time.Duration) {
	t.Helper()
	t.Logf("Summarize = productive %v, lost %v, running %v", rep.Productive, rep.LostWork, rep.Running)
	if rep.Productive != productive || rep.LostWork != lost || rep.Running != running {
		t.Errorf("Summarize = productive %v, lost %v, running %v; want %v, %v, %v from the events",
			rep.Productive, rep.LostWork, rep.Running, productive, lost, running)
	}
	if rep.Productive+rep.LostWork != rep.Running {
		t.Errorf("Summarize: productive %v + lost %v != running %v", rep.Productive, rep.LostWork, rep.Running)
	}
}

// TestNoticeGraceLeavesTheMeasuredUpload: a notice with a 10 s deadline, when the last checkpoint
// took about 1 s to upload, gives the command at least 8 s, and the command exits on its own
// after saving, well before the runner would end it.
func TestNoticeGraceLeavesTheMeasuredUpload(t *testing.T) {
	g := newRig(t)
	g.store = slowStore{g.store, 1e6} // 1 MB/s
	r := g.runner("-steps", "1000000", "-every", "10", "-periodic", "1", "-size", "1000000", "-step-time", "1ms", "-signal-exit", "75")
	b := startRun(r)
	waitFor(t, "the first checkpoint stored", func() bool { _, ok := lastStored(g.storedEvents()); return ok })
	b.notify(10 * time.Second)
	if res, err := b.wait(t); res.ExitCode != spot.ExitInterrupted {
		t.Fatalf("Run = %+v, %v; want exit %d", res, err, spot.ExitInterrupted)
	}
	evs := g.events()
	if first, _ := lastStored(evs[:len(evs)-1]); first.Seconds < 0.5 {
		t.Fatalf("the first checkpoint upload took %.2f s; the test needs about 1 s", first.Seconds)
	}
	n := only(t, evs, spot.EventNotice)
	t.Logf("notice event grace %s s: %s", deref(n.Grace), n.GraceReason)
	if n.Grace == nil || *n.Grace < 8 || *n.Grace > 10 {
		t.Errorf("notice event grace = %s s (%s); want 8 to 10 s: 10 s less an upload of about 1 s", deref(n.Grace), n.GraceReason)
	}
	if !strings.Contains(n.GraceReason, "at the measured") {
		t.Errorf("notice event grace reason = %q; want the measured upload named", n.GraceReason)
	}
	stop := only(t, evs, spot.EventStop)
	if stop.Killed || stop.Status == nil || *stop.Status != 75 {
		t.Errorf("stop event = killed %v, status %s; want the command's own exit 75 after saving", stop.Killed, deref(stop.Status))
	}
	if got := stop.Time.Sub(n.Time); got > time.Duration(*n.Grace*float64(time.Second)) {
		t.Errorf("the command stopped %v after the notice, past its grace of %.1f s", got, *n.Grace)
	}
}

// TestNoticeGraceFloorBeforeAnyUpload is issue 16's 4 ms kill: a 10 s deadline with no upload
// measured yet, when the assumed upload time (15 s) is longer than the window. The command gets
// the floor, half the time left up to 5 s, and a trainer that takes a moment to save saves.
func TestNoticeGraceFloorBeforeAnyUpload(t *testing.T) {
	g := newRig(t)
	r := g.runner("-steps", "1000000", "-every", "10", "-step-time", "1ms", "-signal-exit", "75", "-save-delay", "300ms")
	r.SyncInterval, r.UploadFloor = time.Hour, 15*time.Second
	b := startRun(r)
	waitFor(t, "a checkpoint on disk", func() bool { _, err := lastSaved(g.dir); return err == nil })
	b.notify(10 * time.Second)
	if res, err := b.wait(t); res.ExitCode != spot.ExitInterrupted {
		t.Fatalf("Run = %+v, %v; want exit %d", res, err, spot.ExitInterrupted)
	}
	evs := g.events()
	n := only(t, evs, spot.EventNotice)
	if n.Grace == nil || *n.Grace < 4.5 || *n.Grace > 5 || !strings.Contains(n.GraceReason, "floor") {
		t.Errorf("notice event grace = %s s (%s); want the floor, about 5 s", deref(n.Grace), n.GraceReason)
	}
	stop := only(t, evs, spot.EventStop)
	if stop.Killed || stop.Status == nil || *stop.Status != 75 {
		t.Errorf("stop event = killed %v, status %s; want the command's own exit 75 after saving", stop.Killed, deref(stop.Status))
	}
	saved, _ := lastSaved(g.dir)
	if m := g.verifyLatest(); m.Latest != saved {
		t.Errorf("latest stored checkpoint = %q, want %q, the one saved on the signal", m.Latest, saved)
	}
	// The checkpoint saved on the notice holds all the work: none is lost.
	start := only(t, evs, spot.EventStart)
	checkFigures(t, spot.Summarize("job", evs), stop.Time.Sub(start.Time), 0, stop.Time.Sub(start.Time))
}

// TestLostWorkFromLastStoredCheckpoint: a command interrupted 1.5 s after its last stored
// checkpoint, which exits without saving, lost the 1.5 s; the time before it is productive.
func TestLostWorkFromLastStoredCheckpoint(t *testing.T) {
	g := newRig(t)
	r := g.runner("-steps", "1000000", "-every", "10", "-periodic", "1", "-step-time", "1ms", "-signal-save=false", "-signal-exit", "1")
	b := startRun(r)
	var stored spot.Event
	waitFor(t, "the checkpoint stored", func() bool {
		var ok bool
		stored, ok = lastStored(g.storedEvents())
		return ok
	})
	time.Sleep(time.Until(stored.CheckpointTime.Add(1500 * time.Millisecond)))
	b.notify(30 * time.Second)
	if res, err := b.wait(t); res.ExitCode != spot.ExitInterrupted {
		t.Fatalf("Run = %+v, %v; want exit %d", res, err, spot.ExitInterrupted)
	}
	evs := g.events()
	if last, _ := lastStored(evs); !last.CheckpointTime.Equal(*stored.CheckpointTime) {
		t.Fatalf("a later checkpoint was stored (%s); the trainer should write only one", last.Checkpoint)
	}
	start, stop := only(t, evs, spot.EventStart), only(t, evs, spot.EventStop)
	ct := *stored.CheckpointTime
	rep := spot.Summarize("job", evs)
	checkFigures(t, rep, ct.Sub(start.Time), stop.Time.Sub(ct), stop.Time.Sub(start.Time))
	if rep.LostWork < 1400*time.Millisecond || rep.LostWork > 10*time.Second {
		t.Errorf("lost work = %v; want about 1.5 s", rep.LostWork)
	}
	if rep.Interruptions != 1 || rep.Status != "interrupted" {
		t.Errorf("Summarize = %d interruptions, status %q; want 1, interrupted", rep.Interruptions, rep.Status)
	}
}

// TestCrashAfterTwoCheckpoints: a command that crashes after its second checkpoint lost the work
// since that checkpoint; the work up to it is productive.
func TestCrashAfterTwoCheckpoints(t *testing.T) {
	g := newRig(t)
	r := g.runner("-steps", "1000", "-every", "10", "-crash-at", "25", "-step-time", "20ms")
	r.MaxRestarts = 0
	if res, err := r.Run(context.Background()); res.ExitCode != spot.ExitFailed {
		t.Fatalf("Run = %+v, %v; want exit %d", res, err, spot.ExitFailed)
	}
	evs := g.events()
	stored, ok := lastStored(evs)
	if !ok || stored.Checkpoint != "ckpt-00000020.bin" {
		t.Fatalf("last stored checkpoint = %q, want ckpt-00000020.bin", stored.Checkpoint)
	}
	start, crash := only(t, evs, spot.EventStart), only(t, evs, spot.EventCrash)
	ct := *stored.CheckpointTime
	rep := spot.Summarize("job", evs)
	checkFigures(t, rep, ct.Sub(start.Time), crash.Time.Sub(ct), crash.Time.Sub(start.Time))
	if rep.LostWork <= 0 || rep.Productive <= rep.LostWork || rep.Crashes != 1 {
		t.Errorf("Summarize = productive %v, lost %v, %d crashes; want 5 steps lost of 25", rep.Productive, rep.LostWork, rep.Crashes)
	}
}

// TestResumeSumsRuns: a run interrupted after its last stored checkpoint, without saving on the
// notice, and a run on a new machine that resumes from that checkpoint and finishes. The job's
// productive time is the first run's time to its stored checkpoint plus the whole second run;
// the first run's work after the checkpoint is lost, and the second does not count it again.
func TestResumeSumsRuns(t *testing.T) {
	g := newRig(t)
	// Three checkpoints, then training without any: none can be written after the notice.
	b := startRun(g.runner("-steps", "600", "-every", "10", "-periodic", "3", "-step-time", "2ms", "-signal-save=false", "-signal-exit", "1"))
	waitFor(t, "the third checkpoint stored", func() bool {
		ev, _ := lastStored(g.storedEvents())
		return ev.Checkpoint == "ckpt-00000030.bin"
	})
	time.Sleep(100 * time.Millisecond)
	b.notify(30 * time.Second)
	if res, err := b.wait(t); res.ExitCode != spot.ExitInterrupted {
		t.Fatalf("first Run = %+v, %v; want exit %d", res, err, spot.ExitInterrupted)
	}
	first := g.events()
	stored, _ := lastStored(first)
	start1, stop1 := only(t, first, spot.EventStart), only(t, first, spot.EventStop)

	g.newMachine()
	res, err := g.runner("-steps", "600", "-every", "10", "-step-time", "200us").Run(context.Background())
	if err != nil || res.ExitCode != spot.ExitDone || !strings.HasSuffix(res.ResumeFrom, stored.Checkpoint) {
		t.Fatalf("second Run = %+v, %v; want exit 0 resumed from %s", res, err, stored.Checkpoint)
	}
	g.checkResult(600, 1)
	var start2, exit2 spot.Event
	for _, ev := range g.events()[len(first):] {
		switch ev.Kind {
		case spot.EventStart:
			start2 = ev
		case spot.EventExit:
			exit2 = ev
		}
	}
	ct := *stored.CheckpointTime
	rep := spot.Summarize("job", g.events())
	checkFigures(t, rep, ct.Sub(start1.Time)+exit2.Time.Sub(start2.Time), stop1.Time.Sub(ct),
		stop1.Time.Sub(start1.Time)+exit2.Time.Sub(start2.Time))
	if rep.Runs != 2 || rep.Status != "done" || rep.LostWork <= 0 {
		t.Errorf("Summarize = %d runs, status %q, lost %v; want 2 runs, done, the first run's work after its checkpoint lost", rep.Runs, rep.Status, rep.LostWork)
	}
}

// TestCheckpointTimesOnTheRunnersClock: checkpoint write times come from file mtimes, which a
// file system whose clock differs from the runner's (a network file system's server sets them)
// would put before the run started, leaving the job no productive time. The runner measures the
// difference and records the times on its own clock.
func TestCheckpointTimesOnTheRunnersClock(t *testing.T) {
	g := newRig(t)
	r := g.runner("-steps", "1000", "-every", "10", "-crash-at", "25", "-step-time", "20ms")
	r.MaxRestarts = 0
	r.Now = func() time.Time { return time.Now().Add(time.Hour) } // the runner's clock is an hour ahead
	if res, err := r.Run(context.Background()); res.ExitCode != spot.ExitFailed {
		t.Fatalf("Run = %+v, %v; want exit %d", res, err, spot.ExitFailed)
	}
	evs := g.events()
	stored, _ := lastStored(evs)
	start, crash := only(t, evs, spot.EventStart), only(t, evs, spot.EventCrash)
	if ct := *stored.CheckpointTime; ct.Before(start.Time) || ct.After(crash.Time) {
		t.Fatalf("checkpoint time %s is outside the run, %s to %s", ct, start.Time, crash.Time)
	}
	if rep := spot.Summarize("job", evs); rep.Productive <= 0 || rep.Productive >= rep.Running {
		t.Errorf("Summarize = productive %v of %v running; want the time to the stored checkpoint", rep.Productive, rep.Running)
	}
	if !strings.Contains(g.log.String(), "clock differs") {
		t.Errorf("the log does not say that the checkpoint directory's clock differs")
	}
}

// TestNoticeGraceLimits: --grace caps the grace a long deadline would give, a deadline already
// past gives none, and a command that ignores its signal is ended when the grace runs out.
func TestNoticeGraceLimits(t *testing.T) {
	for _, c := range []struct {
		name         string
		limit, until time.Duration // the runner's Grace; the deadline from the notice
		want         float64       // seconds
		why          string
	}{
		{"limit", 2 * time.Second, 30 * time.Second, 2, "the grace limit 2s"},
		{"deadline passed", 0, -time.Second, 0, "had passed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t)
			r := g.runner("-steps", "1000000", "-every", "10", "-step-time", "1ms", "-ignore-signal")
			r.Grace = c.limit
			b := startRun(r)
			waitFor(t, "a stored checkpoint", func() bool { _, ok := lastStored(g.storedEvents()); return ok })
			b.notify(c.until)
			if res, err := b.wait(t); res.ExitCode != spot.ExitInterrupted && res.ExitCode != spot.ExitSyncFailed {
				t.Fatalf("Run = %+v, %v; want exit %d or %d", res, err, spot.ExitInterrupted, spot.ExitSyncFailed)
			}
			evs := g.events()
			n, stop := only(t, evs, spot.EventNotice), only(t, evs, spot.EventStop)
			if n.Grace == nil || *n.Grace != c.want || !strings.Contains(n.GraceReason, c.why) {
				t.Errorf("notice event grace = %s s (%s); want %v s, %q", deref(n.Grace), n.GraceReason, c.want, c.why)
			}
			if !stop.Killed || stop.Time.Sub(n.Time) < time.Duration(c.want*0.9*float64(time.Second)) {
				t.Errorf("stop event %v after the notice, killed %v; want the command ended after its %v s", stop.Time.Sub(n.Time), stop.Killed, c.want)
			}
		})
	}
}
