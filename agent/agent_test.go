package agent

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// fakeClock advances only when the agent sleeps, and cancels the run once it passes end.
type fakeClock struct {
	now    time.Time
	end    time.Time
	cancel context.CancelFunc
	sleeps []time.Duration
}

func (c *fakeClock) Now() time.Time { return c.now }

func (c *fakeClock) Sleep(ctx context.Context, d time.Duration) error {
	c.sleeps = append(c.sleeps, d)
	c.now = c.now.Add(d)
	if !c.now.Before(c.end) {
		c.cancel()
	}
	return ctx.Err()
}

// script is a source whose answer at each poll is chosen by a func of the poll's time.
type script struct {
	clock *fakeClock
	at    func(t time.Time) ([]gpucost.Sample, error)
}

func (s script) Collect(ctx context.Context) ([]gpucost.Sample, error) { return s.at(s.clock.now) }

type sink struct {
	added          int
	flushes        int
	closed         bool
	closeCtxActive bool
}

func (s *sink) Add(ctx context.Context, samples ...gpucost.Sample) error {
	s.added += len(samples)
	return nil
}
func (s *sink) Flush(ctx context.Context) error { s.flushes++; return nil }
func (s *sink) Close(ctx context.Context) error {
	s.closed, s.closeCtxActive = true, ctx.Err() == nil
	return nil
}

func gpus(t time.Time, ids ...string) []gpucost.Sample {
	var out []gpucost.Sample
	for _, id := range ids {
		out = append(out, gpucost.NewSample(t, gpucost.GPU{UUID: id, Host: "h"}))
	}
	return out
}

func runAgent(t *testing.T, d time.Duration, at func(time.Time) ([]gpucost.Sample, error)) (*Agent, *sink, *fakeClock, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start, end: start.Add(d), cancel: cancel}
	var logs bytes.Buffer
	out := &sink{}
	a := &Agent{Source: script{clock, at}, Sink: out, Interval: time.Second, Clock: clock,
		Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if err := a.Run(ctx); err != nil {
		t.Fatalf("Run = %v, want nil", err)
	}
	return a, out, clock, logs.String()
}

func TestRunSamplesFlushesAndClosesOnStop(t *testing.T) {
	a, out, _, _ := runAgent(t, 10*time.Minute, func(t time.Time) ([]gpucost.Sample, error) {
		return gpus(t, "GPU-a", "GPU-b"), nil
	})
	if a.Stats.Polls != 600 || out.added != 1200 {
		t.Errorf("polls, samples = %d, %d; want 600, 1200", a.Stats.Polls, out.added)
	}
	if out.flushes != 9 { // one a minute; the last minute's samples go out with Close
		t.Errorf("flushes = %d, want 9", out.flushes)
	}
	if !out.closed || !out.closeCtxActive {
		t.Errorf("Close called = %v with a live context = %v; want both", out.closed, out.closeCtxActive)
	}
}

func TestFailingSourceBacksOffAndLogsOnceAMinute(t *testing.T) {
	fail := errors.New("connection refused")
	a, out, clock, logs := runAgent(t, 20*time.Minute, func(t time.Time) ([]gpucost.Sample, error) {
		if t.Minute() < 15 { // down for a quarter of an hour, then back
			return nil, fail
		}
		return gpus(t, "GPU-a"), nil
	})
	if got := strings.Count(logs, "source failed"); got < 5 || got > 16 {
		t.Errorf("logged the failure %d times in 15 minutes, want about once a minute", got)
	}
	if !strings.Contains(logs, "source recovered") {
		t.Errorf("no recovery logged:\n%s", logs)
	}
	if a.Stats.Failures > 30 {
		t.Errorf("polled a failing source %d times in 15 minutes; backoff should space them out", a.Stats.Failures)
	}
	longest := slicesMax(clock.sleeps)
	if longest != 5*time.Minute && longest < 2*time.Minute {
		t.Errorf("longest backoff = %v, want it to grow towards MaxBackoff", longest)
	}
	if out.added == 0 {
		t.Error("no samples stored after the source recovered")
	}
}

func TestVanishingGPUIsLogged(t *testing.T) {
	_, _, _, logs := runAgent(t, 3*time.Minute, func(t time.Time) ([]gpucost.Sample, error) {
		if t.Minute() == 1 {
			return gpus(t, "GPU-a"), nil // GPU-b is lost for a minute
		}
		return gpus(t, "GPU-a", "GPU-b"), nil
	})
	if strings.Count(logs, "GPU vanished") != 1 || !strings.Contains(logs, "uuid=GPU-b") {
		t.Errorf("want one vanish of GPU-b logged, got:\n%s", logs)
	}
	if !strings.Contains(logs, "GPU appeared") {
		t.Errorf("want GPU-b's return logged, got:\n%s", logs)
	}
}

func slicesMax(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, d := range ds {
		m = max(m, d)
	}
	return m
}
