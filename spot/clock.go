package spot

import (
	"os"
	"path/filepath"
	"time"
)

// clockProbe is the file, in the checkpoint directory, whose mtime tells the directory's clock.
// The checkpoint sync never uploads names that start with ".gpucost".
const clockProbe = ".gpucost-clock"

// minSkew is the smallest clock difference measureSkew reports: below it, file systems that keep
// mtimes to the second or two would make noise of their own rounding.
const minSkew = 2 * time.Second

// measureSkew returns how far the checkpoint directory's clock is ahead of Now, or 0 when it is
// within minSkew. A network file system's server, not this machine, sets mtimes; the write
// times of checkpoints, which the job report sets against event times, are mtimes.
func (r *Runner) measureSkew() time.Duration {
	p := filepath.Join(r.Dir, clockProbe)
	before := r.Now()
	err := os.WriteFile(p, nil, 0o644)
	after := r.Now()
	if err != nil {
		return 0
	}
	defer os.Remove(p)
	info, err := os.Stat(p)
	if err != nil {
		return 0
	}
	skew := info.ModTime().Sub(before.Add(after.Sub(before) / 2))
	if skew > -minSkew && skew < minSkew {
		return 0
	}
	r.Log.Warn("the checkpoint directory's clock differs from this machine's; checkpoint write times are corrected by it",
		"ahead_s", skew.Seconds())
	return skew
}

// checkpointTime returns when a checkpoint whose newest file has mtime mtime was written, on
// Now's clock, and never after now: a checkpoint is written before it is stored.
func (r *Runner) checkpointTime(mtime time.Time) time.Time {
	at, now := mtime.Add(-r.skew), r.Now()
	if at.After(now) {
		at = now
	}
	return at.UTC()
}
