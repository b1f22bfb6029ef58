package spot

import (
	"context"
	"fmt"
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
	quitc    chan struct{}
	done     chan struct{}
	stopOnce sync.Once
	mu       sync.Mutex // held for the length of a Sync
}

func (r *Runner) startSyncLoop(ctx context.Context) {
	l := &syncLoop{kicks: make(chan string, 1), quitc: make(chan struct{}), done: make(chan struct{})}
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
			case <-l.quitc:
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

// quit ends the periodic syncs; one in progress goes on.
func (l *syncLoop) quit() { l.stopOnce.Do(func() { close(l.quitc) }) }

// stop ends the periodic syncs and waits for one in progress to finish.
func (l *syncLoop) stop() {
	l.quit()
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
	if st.Manifest != "" && st.Latest != "" {
		at := r.checkpointTime(st.LatestTime)
		ev.Checkpoint, ev.CheckpointTime = st.Latest, &at
		r.savedBytes.Store(st.LatestBytes)
	}
	r.Log.Info("checkpoint synced", "reason", reason, "files", st.Files, "uploaded", st.Uploaded,
		"bytes", st.Bytes, "seconds", fmt.Sprintf("%.2f", ev.Seconds), "mb_per_s", fmt.Sprintf("%.1f", ev.MBps), "manifest", st.Manifest)
	r.record(ctx, ev)
	return st, nil
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

// record stores ev with the job, the run, the machine and, unless it has one, the time filled in. A failure is logged, not
// returned: the job matters more than its log.
func (r *Runner) record(ctx context.Context, ev Event) {
	m := r.Machine
	ev.Job, ev.Run = r.Job, r.run
	if ev.Time.IsZero() {
		ev.Time = r.Now().UTC()
	}
	ev.Host, ev.Cloud, ev.InstanceType, ev.Spot = m.Host, m.Cloud, m.InstanceType, m.Spot
	ev.Region, ev.Zone, ev.ZoneID, ev.InstanceID = m.Region, m.Zone, m.ZoneID, m.InstanceID
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
