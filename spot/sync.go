package spot

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost/spot/checkpoint"
	"github.com/gpucost/gpucost/spot/notice"
)

// syncLoop syncs the checkpoint directory every interval and when kicked. One sync runs at a
// time, the loop's and the runner's own alike.
type syncLoop struct {
	kicks    chan string
	quit     chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex // held for the length of a Sync
}

func (r *Runner) startSyncLoop(ctx context.Context) {
	l := &syncLoop{kicks: make(chan string, 1), quit: make(chan struct{}), done: make(chan struct{})}
	r.loop = l
	go func() {
		defer close(l.done)
		t := time.NewTicker(r.SyncInterval)
		defer t.Stop()
		for {
			reason := "periodic"
			select {
			case <-t.C:
			case reason = <-l.kicks:
			case <-l.quit:
				return
			case <-ctx.Done():
				return
			}
			r.sync(ctx, reason)
		}
	}()
}

// kick asks for a sync now; a kick already waiting covers this one.
func (l *syncLoop) kick(reason string) {
	select {
	case l.kicks <- reason:
	default:
	}
}

// stop ends the periodic syncs and waits for one in progress to finish.
func (l *syncLoop) stop() {
	l.stopOnce.Do(func() { close(l.quit) })
	<-l.done
}

// sync runs one Sync and records it when it stored something or failed.
func (r *Runner) sync(ctx context.Context, reason string) (checkpoint.Stats, error) {
	r.loop.mu.Lock()
	st, err := r.Syncer.Sync(ctx)
	r.loop.mu.Unlock()
	if err != nil {
		r.Log.Warn("checkpoint sync failed; the previous checkpoint stays latest", "reason", reason, "err", err)
		r.record(context.WithoutCancel(ctx), Event{Kind: EventSync, Reason: reason, Error: err.Error()})
		return st, err
	}
	if len(st.Unstable) > 0 {
		r.Log.Info("files changed during the sync; the checkpoint is stored at the next one", "files", strings.Join(st.Unstable, ", "))
	}
	if st.Manifest == "" && st.Uploaded == 0 {
		return st, nil
	}
	ev := Event{Kind: EventSync, Reason: reason, Files: st.Files, Uploaded: st.Uploaded, Bytes: st.Bytes,
		Seconds: st.Elapsed.Seconds(), Manifest: st.Manifest}
	if s := st.Elapsed.Seconds(); s > 0 {
		ev.MBps = float64(st.Bytes) / s / 1e6
	}
	if st.Manifest != "" {
		if name, at, ok := latestEntry(r.Dir); ok {
			ev.Checkpoint, ev.CheckpointTime = name, &at
		}
	}
	r.Log.Info("checkpoint synced", "reason", reason, "files", st.Files, "uploaded", st.Uploaded,
		"bytes", st.Bytes, "seconds", fmt.Sprintf("%.2f", ev.Seconds), "mb_per_s", fmt.Sprintf("%.1f", ev.MBps), "manifest", st.Manifest)
	r.record(ctx, ev)
	return st, nil
}

// latestEntry returns the newest top-level entry of dir by modification time, the rule the
// checkpoint manifest's Latest follows, leaving out temporary and gpucost's own files.
func latestEntry(dir string) (string, time.Time, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", time.Time{}, false
	}
	var name string
	var at time.Time
	for _, e := range entries {
		n := e.Name()
		if strings.HasSuffix(n, ".tmp") || strings.HasPrefix(n, ".gpucost") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if name == "" || info.ModTime().After(at) {
			name, at = n, info.ModTime()
		}
	}
	return name, at.UTC(), name != ""
}

// Upload-time estimate for a notice window: the measured rate with a margin, never under
// minUpload (the manifest and a few round trips), and UploadFloor while no rate is measured.
const (
	uploadMargin = 1.2
	minUpload    = 250 * time.Millisecond
	recheck      = time.Second // how often the estimate is redone while the command saves
)

// uploadEstimate returns how long uploading what is pending should take.
func (r *Runner) uploadEstimate(ctx context.Context) (need time.Duration, pending int64, bw float64) {
	pending, err := r.Syncer.Pending(ctx)
	if err != nil {
		r.Log.Warn("could not measure the pending checkpoint", "err", err)
	}
	bw = r.Syncer.Bandwidth()
	if bw <= 0 {
		return max(r.UploadFloor, minUpload), pending, bw
	}
	secs := float64(pending) / bw * uploadMargin
	return max(time.Duration(secs*float64(time.Second)), minUpload), pending, bw
}

// interrupted handles a termination notice: it waits for the command to save and exit until the
// deadline less the upload estimate, ends it if it has not, uploads the checkpoint, acknowledges
// the notice, and returns the exit code. c is nil when no command is running.
func (r *Runner) interrupted(ctx context.Context, c *child, n notice.Notice) (int, error) {
	deadline := noticeDeadline(n)
	if n.Seen.IsZero() && n.Deadline.IsZero() {
		deadline = r.Now().Add(noticeWindow)
	}
	r.loop.stop()
	if c != nil {
		r.awaitSave(ctx, c, deadline)
	}
	need, pending, bw := r.uploadEstimate(ctx)
	if left := deadline.Sub(r.Now()); need > left {
		r.Log.Warn(fitMessage(pending, bw, need, left, r.UploadFloor))
	}
	uctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	_, err := r.sync(uctx, "notice")
	cancel()
	r.ack(ctx, n)
	if err != nil {
		return ExitSyncFailed, fmt.Errorf("job %s: termination notice from %s: the checkpoint upload did not finish before the deadline %s; the previous checkpoint stays latest: %w",
			r.Job, n.Source, deadline.UTC().Format(time.RFC3339), err)
	}
	return ExitInterrupted, fmt.Errorf("job %s: interrupted by a %s termination notice; the checkpoint is stored, resume on another machine", r.Job, n.Source)
}

// awaitSave waits for the command to exit after its signal until the deadline less the upload
// estimate (redone every second as the command writes), then ends it.
func (r *Runner) awaitSave(ctx context.Context, c *child, deadline time.Time) {
	for {
		need, pending, bw := r.uploadEstimate(ctx)
		wait := deadline.Add(-need).Sub(r.Now())
		if wait <= 0 {
			r.Log.Warn("the command has not exited in time for the upload; ending it",
				"pending_bytes", pending, "mb_per_s", fmt.Sprintf("%.1f", bw/1e6), "upload_s", need.Seconds())
			c.kill()
			return
		}
		t := time.NewTimer(min(wait, recheck))
		select {
		case <-c.done:
			t.Stop()
			r.Log.Info("the command exited after the notice", "status", c.code)
			return
		case <-ctx.Done():
			t.Stop()
			c.kill()
			return
		case <-t.C:
		}
	}
}

// fitMessage says, with the numbers, that the checkpoint cannot be uploaded before the deadline.
func fitMessage(pending int64, bw float64, need, left, floor time.Duration) string {
	rate := fmt.Sprintf("%.1f MB/s", bw/1e6)
	if bw <= 0 {
		rate = fmt.Sprintf("an unmeasured rate (assumed %s)", floor)
	}
	return fmt.Sprintf("the checkpoint cannot fit the notice window: %d bytes (%.1f MB) pending at %s needs %.1f s, %.1f s left; uploading what fits, the previous checkpoint stays latest if it does not finish",
		pending, float64(pending)/1e6, rate, need.Seconds(), max(left, 0).Seconds())
}

// ack tells the watchers that can hear it (Azure) that the machine is ready to go.
func (r *Runner) ack(ctx context.Context, n notice.Notice) {
	if n.ID == "" {
		return
	}
	for _, w := range r.Watchers {
		if a, ok := w.(notice.Acker); ok {
			if err := a.Ack(context.WithoutCancel(ctx), n.ID); err != nil {
				r.Log.Warn("could not acknowledge the notice", "source", n.Source, "id", n.ID, "err", err)
			}
		}
	}
}

// record stores ev with the job, the run and the machine filled in. A failure is logged, not
// returned: the job matters more than its log.
func (r *Runner) record(ctx context.Context, ev Event) {
	m := r.Machine
	ev.Job, ev.Run, ev.Time = r.Job, r.run, r.Now().UTC()
	ev.Host, ev.Cloud, ev.InstanceType, ev.Spot = m.Host, m.Cloud, m.InstanceType, m.Spot
	ev.Region, ev.Zone = m.Region, m.Zone
	if ev.Attempt == 0 {
		ev.Attempt = int(r.attempt.Load())
	}
	if m.HasPrice {
		ev.Price, ev.Currency = m.Price.Decimal(), m.Price.Currency
	}
	if m.HasOnDemand {
		ev.OnDemand, ev.Currency = m.OnDemand.Decimal(), m.OnDemand.Currency
	}
	if err := PutEvent(ctx, r.Store, ev); err != nil {
		r.Log.Warn("could not record the job event", "kind", ev.Kind, "err", err)
	}
}
