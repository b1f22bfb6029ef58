package httpapi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestViewCache checks that a view is computed once per period however many ask at once, that
// it is computed again once older than every or after forget, that errors are not kept, and
// that the least recently used views go first.
func TestViewCache(t *testing.T) {
	now := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); now = now.Add(d); mu.Unlock() }
	c := NewViewCache(time.Minute, clock)
	var computed atomic.Int64
	release := make(chan struct{})
	slow := func(ctx context.Context) (any, error) {
		computed.Add(1)
		<-release
		return "view", nil
	}
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			if v, err := c.Get(context.Background(), "k", slow); v != "view" || err != nil {
				t.Errorf("get = %v, %v", v, err)
			}
		})
	}
	time.Sleep(20 * time.Millisecond)
	close(release)
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Errorf("20 requests at once computed the view %d times; want 1", n)
	}
	fast := func(ctx context.Context) (any, error) { computed.Add(1); return "view", nil }
	advance(59 * time.Second)
	c.Get(context.Background(), "k", fast)
	if n := computed.Load(); n != 1 {
		t.Errorf("a request within every computed again (%d)", n)
	}
	advance(time.Second)
	c.Get(context.Background(), "k", fast)
	if n := computed.Load(); n != 2 {
		t.Errorf("a request after every did not compute again (%d)", n)
	}
	c.Forget()
	c.Get(context.Background(), "k", fast)
	if n := computed.Load(); n != 3 {
		t.Errorf("a request after forget did not compute again (%d)", n)
	}

	failing := func(ctx context.Context) (any, error) { computed.Add(1); return nil, errors.New("store down") }
	for range 2 {
		if _, err := c.Get(context.Background(), "bad", failing); err == nil {
			t.Error("get of a failing view = nil error")
		}
	}
	if n := computed.Load(); n != 5 {
		t.Errorf("a failed view was kept (%d computations; want 5)", n)
	}

	c.size = 3
	for i := range 5 {
		c.Get(context.Background(), fmt.Sprint("lru", i), fast)
	}
	if len(c.m) != 3 || c.lru.Len() != 3 {
		t.Errorf("cache holds %d views; want its size, 3", len(c.m))
	}
	if _, ok := c.m["lru0"]; ok {
		t.Error("the least recently used view was kept")
	}

	// A cancelled request does not cancel the computation the others wait for.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, err := c.Get(ctx, "cancelled", func(ctx context.Context) (any, error) { return "done", ctx.Err() })
	if v != "done" || err != nil {
		t.Errorf("get with a cancelled context = %v, %v; want the view", v, err)
	}
}
