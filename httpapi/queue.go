package httpapi

import (
	"context"
	"log/slog"
	"sync"

	"github.com/gpucost/gpucost"
)

// DefaultQueueMax is how many samples a Queue holds before it refuses more: 20 s of a fleet of
// 10,000 GPUs sampled every second, or over 3 min of one sampled every 10 s.
const DefaultQueueMax = 200_000

// Queue hands pushed samples to Next from one goroutine (Run), so that a request never waits
// for Next's write to the store: the rollup writer holds its lock while it writes, and a
// request arriving then would wait as long. When Max samples wait, Add refuses with an
// EUnavailable error (HTTP 503), which agents retry, so nothing is lost while the store is behind.
type Queue struct {
	Next Ingester
	Max  int          // DefaultQueueMax if zero
	Log  *slog.Logger // default: discard

	mu      sync.Mutex
	ready   chan struct{} // signalled when batches arrive
	batches [][]gpucost.Sample
	held    int
}

// Add queues samples for Next. It keeps the slice, which the caller must not change.
func (q *Queue) Add(ctx context.Context, samples ...gpucost.Sample) error {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.init()
	max := q.Max
	if max <= 0 {
		max = DefaultQueueMax
	}
	if q.held > 0 && q.held+len(samples) > max {
		return gpucost.Errorf(gpucost.EUnavailable, "the ingest queue holds %d samples and takes at most %d: the store is behind; retry later", q.held, max)
	}
	q.batches = append(q.batches, samples)
	q.held += len(samples)
	select {
	case q.ready <- struct{}{}:
	default:
	}
	return nil
}

// Held returns the number of samples waiting.
func (q *Queue) Held() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held
}

// Run hands queued samples to Next until ctx is done, then hands over what is left and returns.
// Stop the requests that Add samples before ctx is done, or samples added after Run returns wait
// for the next Run.
func (q *Queue) Run(ctx context.Context) {
	q.mu.Lock()
	q.init()
	ready := q.ready
	q.mu.Unlock()
	log := q.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	final := context.WithoutCancel(ctx)
	for {
		select {
		case <-ready:
			q.drain(ctx, log)
		case <-ctx.Done():
			q.drain(final, log)
			return
		}
	}
}

// drain takes every queued batch and adds it to Next. A failing Next keeps what it was given
// (the rollup writer does) and is logged.
func (q *Queue) drain(ctx context.Context, log *slog.Logger) {
	for {
		q.mu.Lock()
		batches := q.batches
		q.batches = nil
		q.mu.Unlock()
		if len(batches) == 0 {
			return
		}
		for _, b := range batches {
			if err := q.Next.Add(ctx, b...); err != nil {
				log.Error("ingest: write samples", "err", err, "samples", len(b))
			}
			q.mu.Lock()
			q.held -= len(b)
			q.mu.Unlock()
		}
	}
}

func (q *Queue) init() {
	if q.ready == nil {
		q.ready = make(chan struct{}, 1)
	}
}
