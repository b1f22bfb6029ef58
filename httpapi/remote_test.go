package httpapi

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// flaky wraps a handler: while down it answers 503, and it counts the requests it sees.
type flaky struct {
	next     http.Handler
	down     atomic.Bool
	requests atomic.Int32
}

func (f *flaky) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if f.down.Load() {
		writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "restarting")
		return
	}
	f.next.ServeHTTP(w, r)
}

func TestRemoteSinkHoldsSamplesThroughAnOutage(t *testing.T) {
	f := newFixture(t)
	fl := &flaky{next: f.srv.Handler()}
	f.ts.Config.Handler = fl
	now := testNow
	sink := &RemoteSink{Client: &Client{URL: f.ts.URL, Token: f.secrets[gpucost.RoleIngest]}, BatchSize: 7,
		Now: func() time.Time { return now }, MinBackoff: 10 * time.Second}
	ctx := context.Background()
	all := testSamples(2, 4, 30, testNow.Add(-time.Hour))

	fl.down.Store(true)
	sink.Add(ctx, all[:80]...)
	if err := sink.Flush(ctx); err != nil {
		t.Fatalf("Flush with the server down: %v; want nil (held for later)", err)
	}
	before := fl.requests.Load()
	now = now.Add(5 * time.Second)
	sink.Flush(ctx)
	if fl.requests.Load() != before {
		t.Errorf("Flush during backoff posted; want it to wait out MinBackoff")
	}
	if st := sink.Stats(); st.Failures != 1 || sink.Held() != 80 {
		t.Errorf("after an outage: %+v, %d held; want 1 failure and all 80 held", st, sink.Held())
	}

	fl.down.Store(false)
	now = now.Add(10 * time.Second)
	sink.Add(ctx, all[80:]...)
	if err := sink.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(ctx); err != nil {
		t.Fatal(err)
	}
	st := sink.Stats()
	if st.Sent != len(all) || sink.Held() != 0 || st.Posts != (len(all)+6)/7 {
		t.Errorf("after recovery: %+v, %d held; want all %d sent in batches of 7", st, sink.Held(), len(all))
	}
	if n := f.storedSamples(t); n != len(all) {
		t.Errorf("store holds %d samples; want %d", n, len(all))
	}
}

func TestRemoteSinkDropsOldestBeyondItsBound(t *testing.T) {
	sink := &RemoteSink{Client: &Client{URL: "http://127.0.0.1:1"}, MaxBuffered: 10}
	all := testSamples(1, 1, 25, testNow)
	for i := range all {
		sink.Add(context.Background(), all[i])
	}
	if st := sink.Stats(); st.Dropped != 15 || sink.Held() != 10 || !sink.buf[0].Time.Equal(all[15].Time) {
		t.Errorf("after 25 samples into a buffer of 10: %+v, %d held, oldest %v; want 15 dropped and the newest 10 held",
			st, sink.Held(), sink.buf[0].Time)
	}
}

func TestRemoteSinkStopsOnARefusedToken(t *testing.T) {
	f := newFixture(t)
	for name, secret := range map[string]string{"bad": "gpc_wrong", "viewer": f.secrets[gpucost.RoleViewer]} {
		sink := &RemoteSink{Client: &Client{URL: f.ts.URL, Token: secret}}
		sink.Add(context.Background(), testSamples(1, 1, 1, testNow.Add(-time.Hour))...)
		err := sink.Flush(context.Background())
		if gpucost.ErrorCode(err) != gpucost.EInvalid || sink.Held() != 1 {
			t.Errorf("%s token: Flush = %v, %d held; want an invalid-token error and the sample still held", name, err, sink.Held())
		}
	}
}

func TestRemoteSinkCloseGivesUpWithItsContext(t *testing.T) {
	sink := &RemoteSink{Client: &Client{URL: "http://127.0.0.1:1", Token: "gpc_x"}, MinBackoff: time.Millisecond}
	sink.Add(context.Background(), testSamples(1, 1, 3, testNow)...)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := sink.Close(ctx); gpucost.ErrorCode(err) != gpucost.EUnavailable || sink.Held() != 3 {
		t.Errorf("Close with no server = %v, %d held; want unavailable naming 3 undelivered", err, sink.Held())
	}
}

// A 429 with Retry-After keeps the batch and makes the agent wait as long as the server asked,
// longer than its own backoff, before it posts again.
func TestRemoteSinkWaitsOutRetryAfter(t *testing.T) {
	f := newFixture(t)
	var refuse atomic.Bool
	refuse.Store(true)
	var posts atomic.Int64
	next := f.srv.Handler()
	f.ts.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		posts.Add(1)
		if refuse.Load() {
			w.Header().Set("Retry-After", "30")
			writeError(w, http.StatusTooManyRequests, gpucost.EUnavailable, "rate limit")
			return
		}
		next.ServeHTTP(w, r)
	})
	now := testNow
	sink := &RemoteSink{Client: &Client{URL: f.ts.URL, Token: f.secrets[gpucost.RoleIngest]},
		Now: func() time.Time { return now }, MinBackoff: time.Second}
	ctx := context.Background()
	all := testSamples(1, 2, 5, testNow.Add(-time.Hour))
	sink.Add(ctx, all...)
	sink.Flush(ctx)
	refuse.Store(false)
	now = now.Add(20 * time.Second) // past MinBackoff, before Retry-After
	sink.Flush(ctx)
	if posts.Load() != 1 || sink.Held() != len(all) {
		t.Fatalf("20 s after a 429 with Retry-After: 30: %d posts, %d held; want 1 post and all %d held", posts.Load(), sink.Held(), len(all))
	}
	now = now.Add(11 * time.Second)
	sink.Flush(ctx)
	if st := sink.Stats(); posts.Load() != 2 || st.Sent != len(all) || sink.Held() != 0 {
		t.Errorf("31 s after the 429: %d posts, %+v, %d held; want the batch sent on the second post", posts.Load(), st, sink.Held())
	}
}
