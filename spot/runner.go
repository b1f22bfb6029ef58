// Package spot runs a training command on a machine that can be taken away: it restores the
// newest complete checkpoint before the command starts, syncs the checkpoint directory to an
// object store while it runs, hears the cloud's termination notice, has the command save and
// gets the checkpoint up inside the notice window, restarts a crashed command from its last
// checkpoint, and records every start, notice, restart, sync and exit as job events in the store.
package spot

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/spot/checkpoint"
	"github.com/gpucost/gpucost/spot/notice"
)

// Exit codes of a run, beyond 0 for a command that finished and its final checkpoint stored.
// `gpucost run --help` documents them; schedulers key on ExitInterrupted to resubmit elsewhere.
const (
	ExitDone = 0
	// ExitDamaged: the job has checkpoints, but none restores (every one fails verification);
	// the command is not started and the checkpoint directory is left as it was.
	ExitDamaged     = 65
	ExitFailed      = 70 // the command kept failing: it exited non-zero more than MaxRestarts times
	ExitSyncFailed  = 74 // the last checkpoint upload failed; the previous checkpoint stays latest
	ExitInterrupted = 75 // a termination notice: the checkpoint is stored, resume on another machine
)

// Checkpointer keeps a checkpoint directory in the store; *checkpoint.Syncer is one.
type Checkpointer interface {
	// Restore makes the directory hold the newest checkpoint that verifies, skipping damaged
	// ones; false on a fresh start, an error wrapping checkpoint.ErrNoIntactCheckpoint when the
	// job has checkpoints but none verifies.
	Restore(ctx context.Context) (checkpoint.Manifest, bool, error)
	// Sync uploads what changed and writes a new manifest last.
	Sync(ctx context.Context) (checkpoint.Stats, error)
	// Bandwidth is the measured upload rate in bytes per second, 0 when not yet known.
	Bandwidth() float64
	// Pending is the number of bytes the next Sync would upload.
	Pending(ctx context.Context) (int64, error)
}

var _ Checkpointer = (*checkpoint.Syncer)(nil)

// Machine describes where the runner runs, for the job's events and the cost report.
type Machine struct {
	Host         string
	Cloud        string // aws, gcp, azure or none
	InstanceType string
	Region       string // from the cloud's metadata service; empty when unknown
	Zone         string
	ZoneID       string // AWS's availability-zone-id, which names the same zone in every account
	InstanceID   string // the ID the cloud's bill names the machine by (notice.Machine.InstanceID); empty when unknown
	Spot         bool
	Source       string        // where InstanceType and Spot came from, for the start event's detail
	Price        gpucost.Money // per hour; zero Currency with HasPrice false when unknown
	HasPrice     bool
	OnDemand     gpucost.Money // the same instance type on demand, per hour
	HasOnDemand  bool
}

// Runner restarts the job from its last complete checkpoint when the instance is reclaimed or the
// command crashes. Set the fields and call Run once.
type Runner struct {
	Job      string
	Dir      string   // the checkpoint directory the command writes
	Command  []string // the command and its arguments
	Env      []string // the command's environment before the GPUCOST_ variables; os.Environ() when nil
	Stdout   io.Writer
	Stderr   io.Writer
	Store    gpucost.ObjectStore // where events go; the Syncer's store
	Syncer   Checkpointer
	Watchers []notice.Watcher // sources of notices; Ackers among them are acknowledged after upload
	Machine  Machine

	SyncInterval time.Duration // default 5 min
	MaxRestarts  int           // crashes restarted; a negative value means none
	NoticeSignal os.Signal     // sent to the command's process group on a notice; default SIGTERM
	Backoff      time.Duration // first restart delay, doubled each time; default 1 s
	MaxBackoff   time.Duration // default 1 min
	// UploadFloor is the upload time assumed while the bandwidth is not yet measured; default 15 s.
	UploadFloor time.Duration
	// Grace is the most time the command gets to save and exit after a termination notice; zero
	// for no limit but the notice's deadline less the upload estimate (see interrupted).
	Grace time.Duration

	Now func() time.Time
	Log *slog.Logger

	run     string       // this runner's id in events
	attempt atomic.Int32 // the command's start number; read by the sync loop's events
	loop    *syncLoop
	notices chan notice.Notice
	resume  string
	// savedBytes is the size of the last checkpoint stored, the size expected of the one the
	// command saves on a notice.
	savedBytes atomic.Int64
	// skew is how far the checkpoint directory's clock (file mtimes) is ahead of Now.
	skew time.Duration
}

// Result says how a Run ended.
type Result struct {
	ExitCode   int            // the runner's exit code: ExitDone, ExitDamaged, ExitFailed, ExitSyncFailed, ExitInterrupted or 1
	Status     int            // the command's last exit status; -1 if a signal ended it
	Restarts   int            // crash restarts on this machine
	ResumeFrom string         // the checkpoint the first command started from; empty on a fresh start
	Notice     *notice.Notice // the termination notice that ended the run, if any
}

// Defaults used when a field is zero.
const (
	DefaultSyncInterval = 5 * time.Minute
	DefaultBackoff      = time.Second
	DefaultMaxBackoff   = time.Minute
	DefaultUploadFloor  = 15 * time.Second
	// noticeWindow is the window assumed for a Terminate notice that carries no deadline: the
	// shortest cloud notice, GCP's and Azure's 30 s (docs/architecture.md reference facts).
	noticeWindow = 30 * time.Second
)

func (r *Runner) defaults() {
	if r.SyncInterval <= 0 {
		r.SyncInterval = DefaultSyncInterval
	}
	if r.NoticeSignal == nil {
		r.NoticeSignal = syscall.SIGTERM
	}
	if r.Backoff <= 0 {
		r.Backoff = DefaultBackoff
	}
	if r.MaxBackoff <= 0 {
		r.MaxBackoff = DefaultMaxBackoff
	}
	if r.UploadFloor <= 0 {
		r.UploadFloor = DefaultUploadFloor
	}
	if r.Now == nil {
		r.Now = time.Now
	}
	if r.Log == nil {
		r.Log = slog.New(slog.DiscardHandler)
	}
	if r.Env == nil {
		r.Env = os.Environ()
	}
	if r.Stdout == nil {
		r.Stdout = os.Stdout
	}
	if r.Stderr == nil {
		r.Stderr = os.Stderr
	}
}

// Run restores the newest complete checkpoint, runs the command until it finishes, fails more
// than MaxRestarts times or a termination notice ends it, and returns how it ended. An
// unreachable store fails with an EUnavailable Error before the command starts.
func (r *Runner) Run(ctx context.Context) (Result, error) {
	r.defaults()
	if len(r.Command) == 0 {
		return Result{ExitCode: 1}, gpucost.Errorf(gpucost.EInvalid, "job %s: no command to run", r.Job)
	}
	if err := os.MkdirAll(r.Dir, 0o755); err != nil {
		return Result{ExitCode: 1}, fmt.Errorf("create checkpoint directory: %w", err)
	}
	if _, err := r.Store.List(ctx, r.Job+"/manifests/"); err != nil {
		return Result{ExitCode: 1}, gpucost.Errorf(gpucost.EUnavailable, "job %s: the checkpoint store cannot be reached, so the command was not started: %w", r.Job, err)
	}
	start := r.Now()
	r.run = fmt.Sprintf("%s-%d", r.Machine.Host, start.UnixNano())
	os.Remove(noticePath(r.Dir))
	r.skew = r.measureSkew()
	resume, err := r.restore(ctx)
	if err != nil {
		return Result{ExitCode: restoreExit(err)}, err
	}
	res := Result{ResumeFrom: resume}
	r.resume = resume
	r.record(ctx, Event{Kind: EventStart, ResumeFrom: resume, Detail: r.Machine.Source})

	// The watchers stop before Run returns, so nothing of the run writes to its log after.
	wctx, stopWatch := context.WithCancel(ctx)
	var watching sync.WaitGroup
	defer watching.Wait()
	defer stopWatch()
	r.notices = make(chan notice.Notice, 16)
	for _, w := range r.Watchers {
		watching.Go(func() {
			if err := w.Watch(wctx, r.notices); err != nil {
				r.Log.Warn("a notice watcher stopped", "err", err)
			}
		})
	}
	r.startSyncLoop(ctx)
	defer r.loop.stop()
	return r.supervise(ctx, res)
}

// supervise starts the command and restarts it after crashes until the run ends.
func (r *Runner) supervise(ctx context.Context, res Result) (Result, error) {
	for {
		r.attempt.Add(1)
		c, err := r.startChild()
		if err != nil {
			r.exit(ctx, 1, nil, err)
			return Result{ExitCode: 1}, err
		}
		out := r.watchChild(ctx, c)
		res.Status = out.status
		switch {
		case out.err != nil: // ctx ended
			return r.finish(ctx, res, 1, out.err)
		case out.notice != nil:
			res.Notice = out.notice
			code, err := r.interrupted(ctx, c, *out.notice, out.signaled)
			res.Status = c.exitStatus(res.Status) // the status it saved and exited with, not the one before the notice
			return r.finish(ctx, res, code, err)
		case out.status == 0:
			return r.finished(ctx, res)
		}
		st := out.status
		r.record(ctx, Event{Kind: EventCrash, Status: &st})
		r.sync(ctx, "crash")
		if res.Restarts >= r.MaxRestarts {
			err := fmt.Errorf("job %s: the command exited with status %d after %d restarts (--max-restarts %d)", r.Job, st, res.Restarts, max(r.MaxRestarts, 0))
			return r.finish(ctx, res, ExitFailed, err)
		}
		delay := r.backoff(res.Restarts)
		r.Log.Warn("the command failed; restarting from the last checkpoint", "status", st, "restart", res.Restarts+1, "backoff", delay)
		if n, err := r.sleep(ctx, delay); err != nil || n != nil {
			if err != nil {
				return r.finish(ctx, res, 1, err)
			}
			res.Notice = n
			code, err := r.interrupted(ctx, nil, *n, r.Now())
			return r.finish(ctx, res, code, err)
		}
		res.Restarts++
		if r.resume, err = r.restore(ctx); err != nil {
			return r.finish(ctx, res, restoreExit(err), err)
		}
		r.record(ctx, Event{Kind: EventRestart, ResumeFrom: r.resume, Attempt: int(r.attempt.Load()) + 1})
	}
}

// finished stores the final checkpoint of a command that exited 0.
func (r *Runner) finished(ctx context.Context, res Result) (Result, error) {
	r.loop.stop()
	if _, err := r.sync(ctx, "exit"); err != nil {
		return r.finish(ctx, res, ExitSyncFailed, fmt.Errorf("job %s: the command finished but its final checkpoint was not stored: %w", r.Job, err))
	}
	return r.finish(ctx, res, ExitDone, nil)
}

// finish records the exit event and returns the result.
func (r *Runner) finish(ctx context.Context, res Result, code int, err error) (Result, error) {
	res.ExitCode = code
	r.exit(ctx, code, &res.Status, err)
	return res, err
}

func (r *Runner) exit(ctx context.Context, code int, status *int, err error) {
	ev := Event{Kind: EventExit, ExitCode: &code, Status: status}
	if err != nil {
		ev.Error = err.Error()
	}
	r.record(context.WithoutCancel(ctx), ev)
}

// backoff returns the delay before restart n (from 0): Backoff, doubled each time, at most
// MaxBackoff.
func (r *Runner) backoff(n int) time.Duration {
	d := r.Backoff
	for range n {
		d *= 2
		if d >= r.MaxBackoff {
			return r.MaxBackoff
		}
	}
	return min(d, r.MaxBackoff)
}

// sleep waits d, returning early with a Terminate notice or ctx's error. Rebalance notices are
// recorded and start a sync.
func (r *Runner) sleep(ctx context.Context, d time.Duration) (*notice.Notice, error) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		case n := <-r.notices:
			if n.Kind == notice.Terminate {
				return &n, nil
			}
			r.rebalance(ctx, n)
		}
	}
}

// rebalance records a notice that is not a termination and starts a sync at once.
func (r *Runner) rebalance(ctx context.Context, n notice.Notice) {
	r.Log.Warn("rebalance recommendation: syncing the checkpoint now", "source", n.Source)
	r.loop.kick("rebalance")
	r.record(ctx, noticeEvent(n))
}

// restoreExit is the exit code of a run whose restore failed with err.
func restoreExit(err error) int {
	if errors.Is(err, checkpoint.ErrNoIntactCheckpoint) {
		return ExitDamaged
	}
	return 1
}

// restore fetches the newest checkpoint that verifies, skipping damaged ones, and returns the
// path to give the command.
func (r *Runner) restore(ctx context.Context) (string, error) {
	m, ok, err := r.Syncer.Restore(ctx)
	if err != nil {
		return "", fmt.Errorf("job %s: restore the last checkpoint: %w", r.Job, err)
	}
	if !ok || m.Latest == "" {
		r.Log.Info("no stored checkpoint: starting fresh")
		return "", nil
	}
	path := r.Dir + string(os.PathSeparator) + m.Latest
	r.Log.Info("resuming from the last complete checkpoint", "checkpoint", path)
	return path, nil
}
