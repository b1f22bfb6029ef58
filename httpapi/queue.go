package httpapi

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/wal"
)

// DefaultQueueMax is how many samples a Queue holds before it refuses more: 20 s of a fleet of
// 10,000 GPUs sampled every second, or over 3 min of one sampled every 10 s.
const DefaultQueueMax = 200_000

const (
	// queueRetry is how long a Queue waits to hand samples on again after Next failed (the store
	// is down): long enough not to hammer a failing store, short enough that the queue, which
	// refuses posts while full, empties soon after the store is back.
	queueRetry = time.Second

	// walReleaseEvery is how often a Queue with a write-ahead log frees the log's segments that
	// the store holds: the writer writes every few seconds (gpucost serve --flush), and a
	// release costs a few system calls.
	walReleaseEvery = time.Second
)

// LoggedIngester is an Ingester that says which write-ahead log positions the store holds
// every sample of: telemetry.Writer is one.
type LoggedIngester interface {
	// AddLogged adds samples that the log holds at pos.
	AddLogged(ctx context.Context, pos int64, samples ...gpucost.Sample) error
	// Unwritten returns the smallest position of a sample held but not yet in the store, and
	// false when every sample added is in the store.
	Unwritten() (int64, bool)
}

// Queue hands pushed samples to Next from one goroutine (Run), so that a request never waits
// for Next's write to the store: the rollup writer holds its lock while it writes, and a
// request arriving then would wait as long. When Max samples wait, Add refuses with an
// EUnavailable error (HTTP 503), which agents retry, so nothing is lost while the store is behind.
//
// With WAL set, Add returns only once the samples are in the write-ahead log on disk, so that
// samples acknowledged with a 200 survive a crash (the log is replayed on the next start);
// Next must then be a LoggedIngester, and Run frees the log's segments once the store holds
// all their samples. When Next fails, the samples stay queued and are handed on again after a
// second, so a store that is down fills the queue, which then refuses posts.
type Queue struct {
	Next Ingester
	WAL  *wal.Log     // nil: samples wait in memory only
	Max  int          // DefaultQueueMax if zero
	Log  *slog.Logger // default: discard

	mu        sync.Mutex
	ready     chan struct{} // signalled when batches arrive
	batches   []queued
	held      int
	appending map[int64]int // for appends to WAL in flight: the log's end before each (a bound on its position), counted
}

// queued is a batch of samples waiting for Next, with its position in the log (-1 without one).
type queued struct {
	pos     int64
	samples []gpucost.Sample
}

// Add queues samples for Next, first writing them to WAL if set. It keeps the slice, which
// the caller must not change.
func (q *Queue) Add(ctx context.Context, samples ...gpucost.Sample) error {
	q.mu.Lock()
	q.init()
	max := q.Max
	if max <= 0 {
		max = DefaultQueueMax
	}
	if q.held > 0 && q.held+len(samples) > max {
		q.mu.Unlock()
		return gpucost.Errorf(gpucost.EUnavailable, "the ingest queue holds %d samples and takes at most %d: the store is behind; retry later", q.held, max)
	}
	q.held += len(samples)
	if q.WAL == nil {
		q.push(queued{-1, samples})
		q.mu.Unlock()
		return nil
	}
	if _, ok := q.Next.(LoggedIngester); !ok {
		q.held -= len(samples)
		q.mu.Unlock()
		return gpucost.Errorf(gpucost.EInternal, "the ingest queue has a write-ahead log but its next step (%T) does not take log positions", q.Next)
	}
	floor := q.WAL.End()
	q.appending[floor]++
	q.mu.Unlock()

	pos, err := q.WAL.Append(samples)

	q.mu.Lock()
	defer q.mu.Unlock()
	if q.appending[floor]--; q.appending[floor] == 0 {
		delete(q.appending, floor)
	}
	if err != nil {
		q.held -= len(samples)
		return err
	}
	q.push(queued{pos, samples})
	return nil
}

// push queues b and wakes Run; it is called with q.mu held.
func (q *Queue) push(b queued) {
	q.batches = append(q.batches, b)
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// Held returns the number of samples waiting.
func (q *Queue) Held() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held
}

// Run hands queued samples to Next until ctx is done, then hands over what is left and returns.
// Stop the requests that Add samples before ctx is done, or samples added after Run returns wait
// for the next Run. Samples Next fails to take then stay queued, and in WAL if set, which
// replays them on the next start.
func (q *Queue) Run(ctx context.Context) {
	q.mu.Lock()
	q.init()
	ready := q.ready
	q.mu.Unlock()
	log := q.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	var release <-chan time.Time
	if q.WAL != nil {
		t := time.NewTicker(walReleaseEvery)
		defer t.Stop()
		release = t.C
	}
	var retry <-chan time.Time
	wake := ready
	for {
		select {
		case <-wake:
		case <-retry:
		case <-release:
			if err := q.Release(); err != nil {
				log.Error("ingest: free the write-ahead log", "err", err)
			}
			continue
		case <-ctx.Done():
			q.drain(context.WithoutCancel(ctx), log)
			if err := q.Release(); err != nil {
				log.Error("ingest: free the write-ahead log", "err", err)
			}
			return
		}
		if q.drain(ctx, log) {
			wake, retry = ready, nil
		} else {
			wake, retry = nil, time.After(queueRetry) // Next failed: wait before trying again
		}
	}
}

// drain hands the queued batches to Next, oldest first, and reports whether all went. A batch
// Next fails to take stays queued (and in WAL, if set) and drain stops. Failures are logged.
func (q *Queue) drain(ctx context.Context, log *slog.Logger) bool {
	for {
		q.mu.Lock()
		if len(q.batches) == 0 {
			q.mu.Unlock()
			return true
		}
		b := q.batches[0]
		q.mu.Unlock()
		var err error
		if li, ok := q.Next.(LoggedIngester); ok && b.pos >= 0 {
			err = li.AddLogged(ctx, b.pos, b.samples...)
		} else {
			err = q.Next.Add(ctx, b.samples...)
		}
		if err != nil {
			log.Error("ingest: write samples; keeping them queued", "err", err, "samples", len(b.samples), "logged", b.pos >= 0)
			return false
		}
		q.mu.Lock()
		q.batches[0] = queued{}
		q.batches = q.batches[1:]
		q.held -= len(b.samples)
		q.mu.Unlock()
	}
}

// Release frees the segments of WAL whose samples the store holds: those before every
// append in flight, every queued batch and every sample Next holds unwritten. Run calls it
// every second; call it after writing all that Next holds (telemetry.Writer.Close) to empty
// the log.
func (q *Queue) Release() error {
	if q.WAL == nil {
		return nil
	}
	upto := q.WAL.End() // read first: a record appended after this lies at or after it
	q.mu.Lock()
	for floor := range q.appending {
		upto = min(upto, floor)
	}
	for _, b := range q.batches {
		if b.pos >= 0 {
			upto = min(upto, b.pos)
		}
	}
	q.mu.Unlock()
	// Read after the queue: a batch leaves it only once Next holds it.
	if li, ok := q.Next.(LoggedIngester); ok {
		if p, held := li.Unwritten(); held {
			upto = min(upto, p)
		}
	}
	return q.WAL.Release(upto)
}

func (q *Queue) init() {
	if q.ready == nil {
		q.ready = make(chan struct{}, 1)
	}
	if q.appending == nil {
		q.appending = make(map[int64]int)
	}
}
