package httpapi

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/wal"
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

// failingIngester fails its first fails calls, then takes samples.
type failingIngester struct {
	mu    sync.Mutex
	fails int
	got   int
	calls int
}

func (f *failingIngester) Add(ctx context.Context, samples ...gpucost.Sample) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.fails {
		return errors.New("database is locked")
	}
	f.got += len(samples)
	return nil
}

func TestQueueKeepsSamplesNextFailedToTake(t *testing.T) {
	next := &failingIngester{fails: 2}
	q := &Queue{Next: next}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	if err := q.Add(ctx, testSamples(1, 2, 3, testNow)...); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); q.Held() > 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	<-done
	if next.got != 6 || next.calls != 3 || q.Held() != 0 {
		t.Errorf("after Next failed twice: it took %d samples in %d calls, %d held; want all 6 on the third call", next.got, next.calls, q.Held())
	}
}

// TestQueueWithWALReleasesWhatTheStoreHolds checks that the log keeps the samples the writer
// holds unwritten, frees them once written, and replays what a stopped queue left.
func TestQueueWithWALReleasesWhatTheStoreHolds(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "wal")
	small := wal.Options{SegmentBytes: 1024} // a segment a record, so the log is freed record by record
	log, _, err := wal.Open(dir, small, func(int64, []gpucost.Sample) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	q := &Queue{Next: f.writer, WAL: log}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { q.Run(ctx); close(done) }()
	// 4 GPUs for 90 s: the minute 10:00 is complete, 10:01 is open and held by the writer.
	all := testSamples(1, 4, 90, testNow.Add(-time.Hour))
	for i := 0; i < len(all); i += 40 {
		if err := q.Add(ctx, all[i:i+40]...); err != nil {
			t.Fatal(err)
		}
	}
	stop()
	<-done
	ctx = context.Background()
	if err := f.writer.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	q.Release()
	if log.Size() == 0 {
		t.Errorf("after a flush the log is empty; want it to keep the open minute the writer holds")
	}
	log.Close()

	// A new writer replays the log: with the store's minutes, each sample is there once.
	w2 := &telemetry.Writer{Store: f.db, IdleBelow: 5, DropStored: true}
	log, st, err := wal.Open(dir, small, func(pos int64, s []gpucost.Sample) error {
		return w2.AddLogged(ctx, pos, s...)
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Records != 3 {
		t.Errorf("replayed %d records; want the 3 of the open minute 10:01, not the 6 of 10:00 before them", st.Records)
	}
	if err := w2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	q = &Queue{Next: w2, WAL: log}
	if err := q.Release(); err != nil || log.Size() != 0 {
		t.Errorf("after the replayed samples are written: Release() = %v, size %d; want an empty log", err, log.Size())
	}
	log.Close()
	if n := f.storedSamples(t); n != len(all) {
		t.Errorf("the store holds %d samples; want %d, each once", n, len(all))
	}
}
