package spot

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
)

// Environment variables the command is given.
const (
	EnvCheckpointDir  = "GPUCOST_CHECKPOINT_DIR"
	EnvResumeFrom     = "GPUCOST_RESUME_FROM"
	EnvJob            = "GPUCOST_JOB"
	EnvNoticeFile     = "GPUCOST_NOTICE_FILE"
	EnvNoticeDeadline = "GPUCOST_NOTICE_DEADLINE"
)

// NoticeFile is the name, in the checkpoint directory, of the file that carries
// GPUCOST_NOTICE_DEADLINE to a command already running when a notice comes: a process's
// environment cannot change after it starts. The checkpoint sync never uploads it.
const NoticeFile = ".gpucost-notice"

func noticePath(dir string) string { return filepath.Join(dir, NoticeFile) }

// child is one start of the command.
type child struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the command has exited
	code int           // its exit status, -1 if a signal ended it; valid after done
	err  error         // why it could not be waited for, if so
}

// startChild starts the command in its own process group with the GPUCOST_ variables set.
func (r *Runner) startChild() (*child, error) {
	cmd := exec.Command(r.Command[0], r.Command[1:]...)
	cmd.Env = append(withoutGPUCost(r.Env),
		EnvCheckpointDir+"="+r.Dir,
		EnvResumeFrom+"="+r.resume,
		EnvJob+"="+r.Job,
		EnvNoticeFile+"="+noticePath(r.Dir),
	)
	cmd.Stdout, cmd.Stderr = r.Stdout, r.Stderr
	cmd.SysProcAttr = procAttr()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("job %s: start %s: %w", r.Job, r.Command[0], err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	go func() {
		err := cmd.Wait()
		c.code = cmd.ProcessState.ExitCode()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			c.err = err
		}
		close(c.done)
	}()
	r.Log.Info("started the command", "pid", cmd.Process.Pid, "attempt", r.attempt.Load(), "resume_from", r.resume)
	return c, nil
}

// withoutGPUCost drops the runner's own GPUCOST_ variables, so the command sees only this run's.
func withoutGPUCost(env []string) []string {
	out := make([]string, 0, len(env)+4)
	for _, kv := range env {
		for _, name := range []string{EnvCheckpointDir, EnvResumeFrom, EnvJob, EnvNoticeFile, EnvNoticeDeadline} {
			if strings.HasPrefix(kv, name+"=") {
				kv = ""
				break
			}
		}
		if kv != "" {
			out = append(out, kv)
		}
	}
	return out
}

// signal sends sig to the command's process group.
func (c *child) signal(sig os.Signal) error { return signalGroup(c.cmd.Process, sig) }

// exited reports whether the command has exited.
func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// kill ends the command's process group and waits for the command.
func (c *child) kill() {
	killGroup(c.cmd.Process)
	<-c.done
}

// childOutcome is why watchChild returned.
type childOutcome struct {
	status   int
	notice   *notice.Notice // a termination notice came first
	signaled time.Time      // when the command was signalled for it
	err      error          // ctx ended
}

// watchChild waits for the command to exit, a termination notice, or ctx to end; it signals
// the command on a termination notice, and records rebalance notices and starts a sync for
// them on the way.
func (r *Runner) watchChild(ctx context.Context, c *child) childOutcome {
	for {
		select {
		case <-c.done:
			if c.err != nil {
				return childOutcome{status: c.code, err: fmt.Errorf("wait for the command: %w", c.err)}
			}
			return childOutcome{status: c.code}
		case n := <-r.notices:
			if n.Kind != notice.Terminate {
				r.rebalance(ctx, n)
				continue
			}
			// Signal before anything else, the event included: the notice window is short.
			at := r.Now()
			r.signalNotice(c, n)
			return childOutcome{notice: &n, signaled: at}
		case <-ctx.Done():
			c.kill()
			return childOutcome{status: c.code, err: ctx.Err()}
		}
	}
}

// signalNotice writes the notice file and signals the command.
func (r *Runner) signalNotice(c *child, n notice.Notice) {
	deadline := noticeDeadline(n)
	if err := writeNoticeFile(r.Dir, deadline); err != nil {
		r.Log.Warn("could not write the notice file", "err", err)
	}
	if err := c.signal(r.NoticeSignal); err != nil && !c.exited() {
		r.Log.Warn("could not signal the command", "signal", r.NoticeSignal, "err", err)
	}
	r.Log.Warn("termination notice: the command was told to checkpoint", "source", n.Source,
		"deadline", deadline.Format(time.RFC3339), "signal", r.NoticeSignal)
}

// noticeDeadline is n's deadline, or the shortest cloud notice window after it was seen.
func noticeDeadline(n notice.Notice) time.Time {
	if !n.Deadline.IsZero() {
		return n.Deadline
	}
	return n.Seen.Add(noticeWindow)
}

// writeNoticeFile writes GPUCOST_NOTICE_DEADLINE=<RFC 3339> to the notice file, through a
// temporary file and a rename, so the command never reads half a line.
func writeNoticeFile(dir string, deadline time.Time) error {
	tmp := noticePath(dir) + ".tmp"
	line := EnvNoticeDeadline + "=" + deadline.UTC().Format(time.RFC3339) + "\n"
	if err := os.WriteFile(tmp, []byte(line), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, noticePath(dir))
}

// exitStatus returns the command's exit status once it has exited, else running (the status
// known before).
func (c *child) exitStatus(running int) int {
	select {
	case <-c.done:
		return c.code
	default:
		return running
	}
}
