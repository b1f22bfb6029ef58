package notify

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is an injected clock whose Sleep advances time and records the waits.
type fakeClock struct {
	mu    sync.Mutex
	now   time.Time
	waits []time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Sleep(_ context.Context, d time.Duration) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.waits = append(c.waits, d)
	c.now = c.now.Add(d)
	return nil
}

func newDispatcher(targets map[string]Target, clock *fakeClock, logs *bytes.Buffer) (*Dispatcher, *MemoryLog) {
	log := &MemoryLog{}
	d := &Dispatcher{Targets: targets, Log: log, Backoff: Backoff{Base: time.Second, Max: time.Minute},
		MaxAttempts: 4, Now: clock.Now, Sleep: clock.Sleep, Jitter: func() float64 { return 0.5 }}
	if logs != nil {
		d.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return d, log
}

func statusAnswer(codes ...int) func(int, http.ResponseWriter) {
	return func(n int, w http.ResponseWriter) {
		if n <= len(codes) && codes[n-1] != 200 {
			w.WriteHeader(codes[n-1])
		}
	}
}

func TestDispatcherRetries(t *testing.T) {
	cases := []struct {
		name       string
		codes      []int
		retryAfter string
		wantCalls  int
		wantOK     bool
		wantWaits  []time.Duration
	}{
		{"500 then success", []int{500, 503, 200}, "", 3, true, []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond}},
		{"400 is permanent", []int{400}, "", 1, false, nil},
		{"404 is permanent", []int{404}, "", 1, false, nil},
		{"408 is retried", []int{408, 200}, "", 2, true, []time.Duration{750 * time.Millisecond}},
		{"429 honours Retry-After", []int{429, 200}, "7", 2, true, []time.Duration{7 * time.Second}},
		{"Retry-After beyond the limit", []int{503}, "3600", 1, false, nil},
		{"attempts spent", []int{500, 500, 500, 500, 500}, "", 4, false,
			[]time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rcv := newReceiver(t, "k", testAt, func(n int, w http.ResponseWriter) {
				if c.retryAfter != "" {
					w.Header().Set("Retry-After", c.retryAfter)
				}
				statusAnswer(c.codes...)(n, w)
			})
			clock := &fakeClock{now: testAt}
			d, log := newDispatcher(map[string]Target{"ops": &Webhook{URL: rcv.URL, Secret: "k", Now: clock.Now}}, clock, nil)
			err := d.Notify(context.Background(), testMessage(), "ops")
			if (err == nil) != c.wantOK || rcv.count() != c.wantCalls {
				t.Fatalf("Notify() = %v after %d calls, want ok=%v after %d", err, rcv.count(), c.wantOK, c.wantCalls)
			}
			if !equalDurations(clock.waits, c.wantWaits) {
				t.Errorf("waits = %v, want %v", clock.waits, c.wantWaits)
			}
			all := log.Deliveries()
			if len(all) != c.wantCalls || !all[len(all)-1].Final || all[len(all)-1].OK != c.wantOK {
				t.Errorf("delivery log = %+v, want %d attempts, the last final with OK=%v", all, c.wantCalls, c.wantOK)
			}
			for _, e := range rcv.errs {
				if e != nil {
					t.Errorf("receiver Verify() = %v", e)
				}
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestBackoffDelay(t *testing.T) {
	b := Backoff{Base: time.Second, Max: 10 * time.Second}
	for _, c := range []struct {
		n      int
		jitter float64
		want   time.Duration
	}{{1, 0, 500 * time.Millisecond}, {1, 0.5, 750 * time.Millisecond}, {3, 0, 2 * time.Second},
		{5, 0, 5 * time.Second}, {40, 0.5, 7500 * time.Millisecond}} {
		if got := b.Delay(c.n, c.jitter); got.Round(time.Microsecond) != c.want {
			t.Errorf("Delay(%d, %v) = %v, want %v", c.n, c.jitter, got, c.want)
		}
	}
}

func TestDispatcherDedupeAcrossRestart(t *testing.T) {
	rcv := newReceiver(t, "", testAt, statusAnswer())
	clock := &fakeClock{now: testAt}
	targets := map[string]Target{"ops": &Webhook{URL: rcv.URL, Secret: "k"}, "team": &Slack{URL: rcv.URL + "/slack"}}
	d, log := newDispatcher(targets, clock, nil)
	m := testMessage()
	for range 3 {
		if err := d.Notify(context.Background(), m, "ops", "team"); err != nil {
			t.Fatalf("Notify() = %v", err)
		}
	}
	restarted := &Dispatcher{Targets: targets, Log: log}
	if err := restarted.Notify(context.Background(), m, "ops", "team"); err != nil {
		t.Fatalf("Notify() after restart = %v", err)
	}
	if rcv.count() != 2 {
		t.Errorf("receiver got %d posts for one key and two targets, want 2", rcv.count())
	}
	m.Key = "budget:team-a:2026-11:100%"
	if err := restarted.Notify(context.Background(), m, "ops"); err != nil || rcv.count() != 3 {
		t.Errorf("Notify(new key) = %v, posts %d, want 3", err, rcv.count())
	}
}

func TestDispatcherUnknownTarget(t *testing.T) {
	d := &Dispatcher{Targets: map[string]Target{"ops": &Slack{URL: "http://127.0.0.1:1/x"}}}
	err := d.Notify(context.Background(), testMessage(), "nope")
	if err == nil || !strings.Contains(err.Error(), `nope: no such target (have [ops])`) {
		t.Errorf("Notify(nope) = %v", err)
	}
}

// blockingTarget never answers until its context ends, like a webhook that hangs.
type blockingTarget struct{ started chan struct{} }

func (b blockingTarget) Send(ctx context.Context, _ Message) error {
	b.started <- struct{}{}
	<-ctx.Done()
	return ctx.Err()
}

func TestEnqueueNeverBlocks(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	started := make(chan struct{}, 16)
	d := &Dispatcher{Targets: map[string]Target{"slow": blockingTarget{started}}, QueueSize: 4, Workers: 1,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &logs, mu: &mu}, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	d.Start(ctx)
	m := testMessage()
	m.Key = "k0"
	if !d.Enqueue(m, "slow") {
		t.Fatal("Enqueue() on an empty queue = false")
	}
	<-started // the only worker is now stuck on the slow target
	accepted := 0
	for i := range 100 {
		m.Key = "k" + string(rune('a'+i%26))
		if d.Enqueue(m, "slow") {
			accepted++
		}
	}
	if accepted != 4 || d.Dropped() != 96 {
		t.Errorf("Enqueue() accepted %d and dropped %d with the worker stuck, want 4 and 96", accepted, d.Dropped())
	}
	cancel()
	d.Wait()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(logs.String(), "notify queue full; alert dropped") || !strings.Contains(logs.String(), "dropped_total=96") {
		t.Errorf("logs = %s, want a counted drop warning", logs.String())
	}
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestEnqueueDelivers(t *testing.T) {
	rcv := newReceiver(t, "k", time.Now(), statusAnswer(500))
	log := &MemoryLog{}
	d := &Dispatcher{Targets: map[string]Target{"ops": &Webhook{URL: rcv.URL, Secret: "k"}}, Log: log,
		Sleep: func(context.Context, time.Duration) error { return nil }}
	ctx, cancel := context.WithCancel(context.Background())
	d.Start(ctx)
	if !d.Enqueue(testMessage(), "ops") {
		t.Fatal("Enqueue() = false")
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if ok, _ := log.Delivered(ctx, testMessage().Key, "ops"); ok {
			break
		}
	}
	cancel()
	d.Wait()
	if ok, _ := log.Delivered(context.Background(), testMessage().Key, "ops"); !ok || rcv.count() != 2 {
		t.Errorf("after Enqueue: delivered %v after %d posts, want true after 2 (500 then 200)", ok, rcv.count())
	}
}
