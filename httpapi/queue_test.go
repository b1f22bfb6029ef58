package httpapi

import (
	"context"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
)

// blockingIngester takes samples only when released, like a writer busy with the store.
type blockingIngester struct {
	mu      sync.Mutex
	release chan struct{}
	got     int
}

func (b *blockingIngester) Add(ctx context.Context, samples ...gpucost.Sample) error {
	<-b.release
	b.mu.Lock()
	defer b.mu.Unlock()
	b.got += len(samples)
	return nil
}

func TestQueueRefusesWhenFullAndDrainsOnStop(t *testing.T) {
	next := &blockingIngester{release: make(chan struct{})}
	q := &Queue{Next: next, Max: 12}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()

	batch := testSamples(1, 1, 4, testNow)
	for i := range 3 {
		if err := q.Add(ctx, batch...); err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
	}
	// Samples count against Max until Next has taken them, so 12 are held and 4 more do not fit.
	if err := q.Add(ctx, batch...); gpucost.ErrorCode(err) != gpucost.EUnavailable {
		t.Errorf("Add to a full queue = %v; want an unavailable error (HTTP 503, retried by agents)", err)
	}
	stop()
	close(next.release)
	<-done
	if next.got != 12 || q.Held() != 0 {
		t.Errorf("after stop: Next got %d samples, %d held; want 12 and 0", next.got, q.Held())
	}
}
