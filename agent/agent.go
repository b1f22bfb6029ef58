// Package agent runs gpucost's collection loop: it reads a GPU source on an interval, hands the
// samples to a sink that rolls them up and writes them in batches, retries a failing source
// with backoff, and flushes everything when it is stopped.
package agent

import (
	"context"
	"log/slog"
	"time"

	"github.com/gpucost/gpucost"
)

// Sink receives samples and stores them in batches; telemetry.Writer is one.
type Sink interface {
	Add(ctx context.Context, samples ...gpucost.Sample) error
	Flush(ctx context.Context) error
	Close(ctx context.Context) error
}

// Clock is the time an agent runs on; tests replace it to run hours in microseconds.
type Clock interface {
	Now() time.Time
	// Sleep waits for d or until ctx is done, and returns ctx.Err() in the latter case.
	Sleep(ctx context.Context, d time.Duration) error
}

// Agent samples Source every Interval and writes the samples to Sink.
type Agent struct {
	Source     gpucost.Collector
	Sink       Sink
	Interval   time.Duration // between samples; default 10 s
	FlushEvery time.Duration // between writes to the store; default 1 min
	MaxBackoff time.Duration // the longest wait after repeated source errors; default 5 min
	Clock      Clock         // default: the system clock
	Log        *slog.Logger  // default: discard

	Stats Stats // updated as the agent runs; read it after Run returns
}

// Stats counts what an agent did.
type Stats struct {
	Polls, Failures, Samples int
	Flushes                  int
}

// Run samples until ctx is done, then flushes what it holds and returns nil. It returns an
// error only when the sink cannot store samples.
func (a *Agent) Run(ctx context.Context) error {
	a.defaults()
	var (
		seen      gpucost.GPUsSeen
		failing   failureLog
		lastFlush = a.Clock.Now()
		backoff   time.Duration
	)
	for {
		samples, err := a.Source.Collect(ctx)
		a.Stats.Polls++
		if err != nil && ctx.Err() == nil {
			a.Stats.Failures++
			failing.record(a.Log, a.Clock.Now(), err)
			backoff = min(max(2*backoff, a.Interval), a.MaxBackoff)
		} else if err == nil {
			failing.recovered(a.Log, a.Clock.Now())
			backoff = 0
			seen = a.watchGPUs(seen, samples)
			a.Stats.Samples += len(samples)
			if err := a.Sink.Add(ctx, samples...); err != nil {
				return err
			}
		}
		if now := a.Clock.Now(); now.Sub(lastFlush) >= a.FlushEvery {
			if err := a.Sink.Flush(ctx); err != nil {
				return err
			}
			a.Stats.Flushes++
			lastFlush = now
		}
		if a.Clock.Sleep(ctx, max(backoff, a.Interval)) != nil {
			break
		}
	}
	// The run's context is done; give the final write its own.
	final, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	a.Log.Info("stopping: flushing buffered samples", "samples", a.Stats.Samples)
	return a.Sink.Close(final)
}

func (a *Agent) defaults() {
	if a.Interval <= 0 {
		a.Interval = 10 * time.Second
	}
	if a.FlushEvery <= 0 {
		a.FlushEvery = time.Minute
	}
	if a.MaxBackoff <= 0 {
		a.MaxBackoff = 5 * time.Minute
	}
	if a.Clock == nil {
		a.Clock = systemClock{}
	}
	if a.Log == nil {
		a.Log = slog.New(slog.DiscardHandler)
	}
}

// watchGPUs logs GPUs that vanish from or return to the source, and returns the GPUs seen now.
func (a *Agent) watchGPUs(before gpucost.GPUsSeen, samples []gpucost.Sample) gpucost.GPUsSeen {
	now := gpucost.SeenIn(samples)
	if before == nil {
		return now
	}
	for _, id := range before.Missing(now) {
		a.Log.Warn("GPU vanished from the source", "uuid", id, "index", before[id])
	}
	for _, id := range now.Missing(before) {
		a.Log.Info("GPU appeared", "uuid", id, "index", now[id])
	}
	return now
}

// failureLog logs a failing source at most once a minute: the first error at once, then a
// summary of the errors since.
type failureLog struct {
	since, logged time.Time
	count         int
}

func (f *failureLog) record(log *slog.Logger, now time.Time, err error) {
	if f.count == 0 {
		f.since = now
	}
	f.count++
	if f.count == 1 || now.Sub(f.logged) >= time.Minute {
		log.Error("source failed; retrying with backoff", "err", err, "failures", f.count,
			"failing_for", now.Sub(f.since).Round(time.Second).String())
		f.logged = now
	}
}

func (f *failureLog) recovered(log *slog.Logger, now time.Time) {
	if f.count > 0 {
		log.Info("source recovered", "failures", f.count, "after", now.Sub(f.since).Round(time.Second).String())
	}
	*f = failureLog{}
}

type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
