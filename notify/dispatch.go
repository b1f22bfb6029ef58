package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gpucost/gpucost"
)

// Dispatcher sends Messages to named targets with retries and a delivery log. Notify sends and
// waits; Start and Enqueue send in the background from a bounded queue, so that a target that
// hangs never holds up the caller. The zero value of every optional field works.
type Dispatcher struct {
	Targets       map[string]Target
	Log           DeliveryLog   // nil: attempts are not recorded and nothing is deduplicated
	Backoff       Backoff       // waits between attempts
	MaxAttempts   int           // per target and message; 5 when zero
	MaxRetryAfter time.Duration // a longer Retry-After ends the retries; 10 min when zero
	QueueSize     int           // Enqueue's queue; 1024 when zero
	Workers       int           // goroutines draining the queue; 2 when zero
	Logger        *slog.Logger  // nil: silent

	Now    func() time.Time                                 // time.Now when nil
	Sleep  func(ctx context.Context, d time.Duration) error // a timer when nil
	Jitter func() float64                                   // in [0, 1); math/rand/v2 when nil

	once     sync.Once
	queue    chan job
	dropped  atomic.Int64
	wg       sync.WaitGroup
	mu       sync.Mutex
	inflight map[[2]string]bool
}

type job struct {
	msg     Message
	targets []string
}

// Backoff is exponential backoff with equal jitter: retry n waits between half and all of
// min(Max, Base·2ⁿ⁻¹).
type Backoff struct {
	Base time.Duration // 1 s when zero
	Max  time.Duration // 5 min when zero
}

// Delay returns the wait before retry n (1 for the first retry) for a jitter draw in [0, 1).
func (b Backoff) Delay(n int, jitter float64) time.Duration {
	base, ceiling := b.Base, b.Max
	if base <= 0 {
		base = time.Second
	}
	if ceiling <= 0 {
		ceiling = 5 * time.Minute
	}
	d := base
	for i := 1; i < n && d < ceiling; i++ {
		d *= 2
	}
	d = min(d, ceiling)
	return d/2 + time.Duration(jitter*float64(d/2))
}

// Notify sends m to each named target at once and waits for all of them. A target that the
// Log says already has m.Key is skipped. The error joins one error per target that failed.
func (d *Dispatcher) Notify(ctx context.Context, m Message, targets ...string) error {
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, name := range targets {
		t, ok := d.Targets[name]
		if !ok {
			errs[i] = fmt.Errorf("notify %s: no such target (have %v)", name, d.names())
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = d.deliver(ctx, name, t, m)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (d *Dispatcher) names() []string {
	names := make([]string, 0, len(d.Targets))
	for n := range d.Targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// deliver sends m to one target until it succeeds, fails for good or runs out of attempts.
func (d *Dispatcher) deliver(ctx context.Context, name string, t Target, m Message) error {
	if m.Key != "" {
		if !d.claim(m.Key, name) {
			return nil // the same alert is being sent to this target right now
		}
		defer d.release(m.Key, name)
		if d.Log != nil {
			done, err := d.Log.Delivered(ctx, m.Key, name)
			if err != nil {
				return fmt.Errorf("notify %s: check delivery log for %q: %w", name, m.Key, err)
			}
			if done {
				d.logger().Debug("alert already delivered", "target", name, "key", m.Key)
				return nil
			}
		}
	}
	for attempt := 1; ; attempt++ {
		start := d.now()
		err := t.Send(ctx, m)
		rec := gpucost.Delivery{Key: m.Key, Kind: m.Kind, Target: name, Attempt: attempt, At: start,
			Duration: d.now().Sub(start), OK: err == nil, Final: true}
		if err == nil {
			return d.record(ctx, rec)
		}
		rec.Status, rec.Error = statusOf(err), err.Error()
		wait, why := d.next(ctx, err, attempt)
		rec.Final = why != ""
		if rerr := d.record(ctx, rec); rerr != nil {
			return errors.Join(err, rerr)
		}
		if rec.Final {
			return fmt.Errorf("notify %s: %s after %d attempt(s): %w", name, why, attempt, err)
		}
		d.logger().Info("alert delivery failed; will retry", "target", name, "key", m.Key,
			"attempt", attempt, "wait", wait, "err", err)
		if serr := d.sleep(ctx, wait); serr != nil {
			return fmt.Errorf("notify %s: gave up waiting to retry after %d attempt(s): %w", name, attempt, err)
		}
	}
}

// next decides what follows a failed attempt: a wait before the next, or why there is none.
func (d *Dispatcher) next(ctx context.Context, err error, attempt int) (time.Duration, string) {
	retry, after := retryable(err)
	maxAttempts, maxAfter := d.MaxAttempts, d.MaxRetryAfter
	if maxAttempts <= 0 {
		maxAttempts = 5
	}
	if maxAfter <= 0 {
		maxAfter = 10 * time.Minute
	}
	switch {
	case ctx.Err() != nil:
		return 0, "cancelled"
	case !retry:
		return 0, "permanent failure"
	case attempt >= maxAttempts:
		return 0, "gave up"
	case after > maxAfter:
		return 0, fmt.Sprintf("server asked to retry after %v (limit %v)", after, maxAfter)
	}
	jitter := rand.Float64
	if d.Jitter != nil {
		jitter = d.Jitter
	}
	return max(d.Backoff.Delay(attempt, jitter()), after), ""
}

func (d *Dispatcher) record(ctx context.Context, rec gpucost.Delivery) error {
	if d.Log == nil {
		return nil
	}
	if err := d.Log.RecordDelivery(ctx, rec); err != nil {
		return fmt.Errorf("notify %s: record delivery of %q: %w", rec.Target, rec.Key, err)
	}
	return nil
}

func (d *Dispatcher) claim(key, target string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	k := [2]string{key, target}
	if d.inflight[k] {
		return false
	}
	if d.inflight == nil {
		d.inflight = map[[2]string]bool{}
	}
	d.inflight[k] = true
	return true
}

func (d *Dispatcher) release(key, target string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.inflight, [2]string{key, target})
}

// Start starts the workers that drain Enqueue's queue. They stop when ctx is done; Wait waits
// for them. Messages still queued then are not sent (a keyed alert is sent on its next
// Enqueue, since the log does not hold it).
func (d *Dispatcher) Start(ctx context.Context) {
	d.init()
	workers := d.Workers
	if workers <= 0 {
		workers = 2
	}
	for range workers {
		d.wg.Add(1)
		go d.work(ctx)
	}
}

func (d *Dispatcher) work(ctx context.Context) {
	defer d.wg.Done()
	for {
		select {
		case <-ctx.Done():
			return
		case j := <-d.queue:
			if err := d.Notify(ctx, j.msg, j.targets...); err != nil {
				d.logger().Error("alert not delivered", "key", j.msg.Key, "kind", j.msg.Kind, "err", err)
			}
		}
	}
}

// Enqueue queues m for the named targets and returns at once. When the queue is full it drops
// m, counts it (Dropped) and logs a warning, and returns false.
func (d *Dispatcher) Enqueue(m Message, targets ...string) bool {
	d.init()
	select {
	case d.queue <- job{msg: m, targets: append([]string(nil), targets...)}:
		return true
	default:
		n := d.dropped.Add(1)
		d.logger().Warn("notify queue full; alert dropped", "key", m.Key, "kind", m.Kind, "dropped_total", n)
		return false
	}
}

// Dropped returns how many messages Enqueue has dropped because the queue was full.
func (d *Dispatcher) Dropped() int64 { return d.dropped.Load() }

// Wait blocks until the workers started by Start have stopped.
func (d *Dispatcher) Wait() { d.wg.Wait() }

func (d *Dispatcher) init() {
	d.once.Do(func() {
		size := d.QueueSize
		if size <= 0 {
			size = 1024
		}
		d.queue = make(chan job, size)
	})
}

func (d *Dispatcher) now() time.Time {
	if d.Now != nil {
		return d.Now()
	}
	return time.Now()
}

func (d *Dispatcher) sleep(ctx context.Context, w time.Duration) error {
	if d.Sleep != nil {
		return d.Sleep(ctx, w)
	}
	t := time.NewTimer(w)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (d *Dispatcher) logger() *slog.Logger {
	if d.Logger != nil {
		return d.Logger
	}
	return discard
}

var discard = slog.New(slog.DiscardHandler)
