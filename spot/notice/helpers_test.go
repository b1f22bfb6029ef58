package notice_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost/spot/notice"
)

// fastPoll keeps tests quick; the watchers take any positive interval.
const fastPoll = 5 * time.Millisecond

// watching runs w until the test ends and returns its notices and its Watch error.
func watching(t *testing.T, w notice.Watcher) (<-chan notice.Notice, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan notice.Notice, 16)
	errc := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		errc <- w.Watch(ctx, out)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("Watch did not return within 5 s of its context ending")
		}
	})
	return out, errc
}

// next waits up to 5 s for a notice.
func next(t *testing.T, out <-chan notice.Notice) notice.Notice {
	t.Helper()
	select {
	case n := <-out:
		return n
	case <-time.After(5 * time.Second):
		t.Fatal("no notice within 5 s")
		return notice.Notice{}
	}
}

// none checks that no notice arrives within d.
func none(t *testing.T, out <-chan notice.Notice, d time.Duration) {
	t.Helper()
	select {
	case n := <-out:
		t.Fatalf("unexpected notice %+v", n)
	case <-time.After(d):
	}
}

// eventually waits up to 5 s for cond.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 5 s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// logBuffer is a concurrency-safe log sink for checking what a watcher logged.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuffer) count(substr string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.buf.String(), substr)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

func newLog() (*slog.Logger, *logBuffer) {
	b := &logBuffer{}
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelWarn})), b
}

// clock is a settable clock for the watchers' Now.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *clock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Advance(d time.Duration) { c.ns.Add(int64(d)) }
