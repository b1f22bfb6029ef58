package spot

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
)

// GraceFloor bounds from below the time the command gets to save after a termination notice:
// half the time left to the deadline, at most GraceFloor, even when the upload estimate leaves
// less. A command ended at once cannot save anything, and the upload of what it had stored
// before takes nothing, so a little time to save is never worse than none.
const GraceFloor = 5 * time.Second

// Upload-time estimate for a notice window: the measured rate with a margin, never under
// minUpload (the manifest and a few round trips), and UploadFloor while no rate is measured.
const (
	uploadMargin = 1.2
	minUpload    = 250 * time.Millisecond
)

// upload is an estimate of the upload that ends a notice window.
type upload struct {
	need    time.Duration // how long it should take
	pending int64         // bytes in the directory the store lacks
	save    int64         // bytes of the checkpoint the command is expected to save: the last one stored
	rate    float64       // measured bytes per second; 0 when not yet measured
	floor   time.Duration // the time assumed while the rate is not measured
}

// String says how the estimate was made, for the notice event and the log.
func (u upload) String() string {
	mb := float64(u.pending+u.save) / 1e6
	if u.rate <= 0 {
		return fmt.Sprintf("%.1f MB at a rate not measured yet (the upload floor, %s, assumed)", mb, u.floor)
	}
	return fmt.Sprintf("%.1f MB (%.1f MB pending, %.1f MB to save) at the measured %.1f MB/s", mb, float64(u.pending)/1e6, float64(u.save)/1e6, u.rate/1e6)
}

// uploadEstimate returns how long uploading what is pending should take, and, when withSave is
// set, a checkpoint the size of the last one stored besides: the one the command is about to
// save.
func (r *Runner) uploadEstimate(ctx context.Context, withSave bool) upload {
	pending, err := r.Syncer.Pending(ctx)
	if err != nil {
		r.Log.Warn("could not measure the pending checkpoint", "err", err)
	}
	u := upload{pending: pending, rate: r.Syncer.Bandwidth(), floor: r.UploadFloor}
	if withSave {
		u.save = r.savedBytes.Load()
	}
	if u.rate <= 0 {
		u.need = max(r.UploadFloor, minUpload)
		return u
	}
	secs := float64(u.pending+u.save) / u.rate * uploadMargin
	u.need = max(time.Duration(secs*float64(time.Second)), minUpload)
	return u
}

// grace decides how long the command, signalled at now, gets to save and exit before it is
// ended: the time to the deadline less the upload estimate, never less than half the time left
// up to GraceFloor, and at most Grace when that is set (docs/architecture.md "Job accounting").
// It says why, for the notice event.
func (r *Runner) grace(ctx context.Context, now, deadline time.Time) (time.Duration, string) {
	left := deadline.Sub(now)
	if left <= 0 {
		return 0, fmt.Sprintf("the deadline %s had passed %.3f s before the notice was handled", deadline.UTC().Format(time.RFC3339Nano), -left.Seconds())
	}
	u := r.uploadEstimate(ctx, true)
	g := left - u.need
	why := fmt.Sprintf("%.1f s to the deadline less %.1f s to upload %s", left.Seconds(), u.need.Seconds(), u)
	if floor := min(GraceFloor, left/2); g < floor {
		g = floor
		why = fmt.Sprintf("the floor, half the time left up to %s, as the upload estimate leaves less: %s", GraceFloor, why)
	}
	if r.Grace > 0 && r.Grace < g {
		g = r.Grace
		why = fmt.Sprintf("the grace limit %s, less than %s", r.Grace, why)
	}
	return g, why
}

// interrupted handles a termination notice, with c the command signalled at signaled (nil when
// none is running): it gives the command its grace to save and exit, ends it if it has not,
// uploads the checkpoint, acknowledges the notice, and returns the exit code. The notice event
// records the grace given and why; a stop event records when the command exited and whether it
// was ended.
func (r *Runner) interrupted(ctx context.Context, c *child, n notice.Notice, signaled time.Time) (int, error) {
	deadline := noticeDeadline(n)
	if n.Seen.IsZero() && n.Deadline.IsZero() {
		deadline = signaled.Add(noticeWindow)
	}
	r.loop.quit() // no new periodic sync: the next one uploads what the command saves
	ev := noticeEvent(n)
	ev.Time = signaled.UTC() // when the runner acted on it: a checkpoint written after it was saved on it
	var grace time.Duration
	if c != nil {
		var why string
		grace, why = r.grace(ctx, signaled, deadline)
		grace = grace.Truncate(time.Millisecond) // as the event records it
		secs := grace.Seconds()
		ev.Grace, ev.GraceReason = &secs, why
		r.Log.Warn("termination notice: the command has its grace to save and exit", "grace_s", fmt.Sprintf("%.1f", secs), "why", why)
	}
	r.record(ctx, ev)
	var stop Event
	if c != nil {
		killed := r.awaitSave(ctx, c, signaled.Add(grace))
		status := c.code
		stop = Event{Kind: EventStop, Time: r.Now().UTC(), Status: &status, Killed: killed}
	}
	r.loop.stop()
	u := r.uploadEstimate(ctx, false)
	if left := deadline.Sub(r.Now()); u.need > left {
		r.Log.Warn(fitMessage(u, left))
	}
	uctx, cancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
	_, err := r.sync(uctx, "notice")
	cancel()
	if c != nil {
		// Recorded after the upload, which matters more inside the window, at the time the
		// command exited.
		r.record(context.WithoutCancel(ctx), stop)
	}
	r.ack(ctx, n)
	if err != nil {
		return ExitSyncFailed, fmt.Errorf("job %s: termination notice from %s: the checkpoint upload did not finish before the deadline %s; the previous checkpoint stays latest: %w",
			r.Job, n.Source, deadline.UTC().Format(time.RFC3339), err)
	}
	return ExitInterrupted, fmt.Errorf("job %s: interrupted by a %s termination notice; the checkpoint is stored, resume on another machine", r.Job, n.Source)
}

// awaitSave waits for the command to exit until killAt, then ends it; it reports whether it had
// to.
func (r *Runner) awaitSave(ctx context.Context, c *child, killAt time.Time) bool {
	t := time.NewTimer(max(killAt.Sub(r.Now()), 0))
	defer t.Stop()
	select {
	case <-c.done:
		r.Log.Info("the command exited after the notice", "status", c.code)
		return false
	case <-ctx.Done():
	case <-t.C:
		r.Log.Warn("the command has not exited within its grace; ending it")
	}
	if c.exited() {
		return false
	}
	c.kill()
	return true
}

// fitMessage says, with the numbers, that the checkpoint cannot be uploaded before the deadline.
func fitMessage(u upload, left time.Duration) string {
	rate := fmt.Sprintf("%.1f MB/s", u.rate/1e6)
	if u.rate <= 0 {
		rate = fmt.Sprintf("an unmeasured rate (assumed %s)", u.floor)
	}
	return fmt.Sprintf("the checkpoint cannot fit the notice window: %d bytes (%.1f MB) pending at %s needs %.1f s, %.1f s left; uploading what fits, the previous checkpoint stays latest if it does not finish",
		u.pending, float64(u.pending)/1e6, rate, u.need.Seconds(), max(left, 0).Seconds())
}

// noticeEvent is the event that records notice n.
func noticeEvent(n notice.Notice) Event {
	ev := Event{Kind: EventNotice, Source: n.Source, NoticeKind: n.Kind, Detail: n.Detail}
	if !n.Deadline.IsZero() {
		d := n.Deadline.UTC()
		ev.Deadline = &d
	}
	return ev
}
