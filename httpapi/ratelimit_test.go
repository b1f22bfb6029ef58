package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestLimiter(t *testing.T) {
	at := func(s float64) time.Time { return testNow.Add(time.Duration(s * float64(time.Second))) }
	l := newLimiter[int](Limit{Rate: 2, Burst: 10}, 2)
	steps := []struct {
		name string
		key  int
		n    int
		at   float64
		want time.Duration
	}{
		{"burst spent", 1, 10, 0, 0},
		{"empty: waits for 1", 1, 1, 0, 500 * time.Millisecond},
		{"more than the burst: waits until full", 1, 11, 0, 5 * time.Second},
		{"empty: waits for 4", 1, 4, 0, 2 * time.Second},
		{"refilled 2 in 1 s", 1, 2, 1, 0},
		{"another key has its own bucket", 2, 10, 1, 0},
		{"over the burst waits as from empty", 3, 11, 1, 0}, // a third key: untracked, let through
		{"refilled to the burst, never past it", 1, 10, 100, 0},
	}
	for _, s := range steps {
		if got := l.take(s.key, s.n, at(s.at)); got != s.want {
			t.Errorf("%s: take(%d, %d, +%vs) = %v; want %v", s.name, s.key, s.n, s.at, got, s.want)
		}
	}
	// Key 1 is empty, key 2 too; a new key finds the map full. Once they refill, they are swept.
	if got := l.take(4, 1, at(200)); got != 0 || len(l.buckets) != 1 {
		t.Errorf("take(new key) after all refilled = %v with %d buckets; want 0 with the full ones swept", got, len(l.buckets))
	}
	l.give(4, 5, at(200))
	if got := l.take(4, 10, at(200)); got != 0 {
		t.Errorf("take(4, 10) after giving back = %v; want 0", got)
	}
}

// TestIngestRateLimit checks the per-token bucket of POST /api/v1/samples: a push over it is
// refused with 429, Retry-After and the limit named, other tokens are not affected, and the
// bucket refills with time.
func TestIngestRateLimit(t *testing.T) {
	f := newFixture(t)
	now := testNow
	f.srv.Now = func() time.Time { return now }
	f.srv.IngestLimit = Limit{Rate: 10, Burst: 100}
	f.srv.MaxSamples = 100
	f.ts.Config.Handler = f.srv.Handler()
	body := samplesBody(t, testSamples(1, 8, 10, testNow.Add(-time.Hour))) // 80 samples
	ingest, admin := f.secrets[gpucost.RoleIngest], f.secrets[gpucost.RoleAdmin]
	if status, out := f.do(t, "POST", "/api/v1/samples", ingest, body); status != 200 {
		t.Fatalf("first push = %d %s", status, out)
	}
	req, _ := http.NewRequest("POST", f.ts.URL+"/api/v1/samples", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+ingest)
	res, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var eb ErrorBody
	json.NewDecoder(res.Body).Decode(&eb)
	res.Body.Close()
	// 20 samples are left: the push is refused at its 21st, for at least the 0.1 s that one
	// more takes, and what it took goes back.
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "1" ||
		!strings.Contains(eb.Error.Message, "limit of 10 samples a second (burst 100)") {
		t.Errorf("second push = %d, Retry-After %q, %q; want 429, 1 and the limit named", res.StatusCode, res.Header.Get("Retry-After"), eb.Error.Message)
	}
	if status, out := f.do(t, "POST", "/api/v1/samples", admin, body); status != 200 {
		t.Errorf("push with another token = %d %s; want 200", status, out)
	}
	now = now.Add(6 * time.Second)
	if status, out := f.do(t, "POST", "/api/v1/samples", ingest, body); status != 200 {
		t.Errorf("push after 6 s = %d %s; want 200", status, out)
	}
}

// TestBillRateLimit checks the per-token bucket of POST /api/v1/bills, ahead of the upload.
func TestBillRateLimit(t *testing.T) {
	f := newFixture(t)
	f.srv.BillLimit = Limit{Rate: 60.0 / 3600, Burst: 2}
	f.ts.Config.Handler = f.srv.Handler()
	ingest := f.secrets[gpucost.RoleIngest]
	for i := range 2 {
		if status, out := f.do(t, "POST", "/api/v1/bills?name=a.csv", ingest, []byte("x")); status == http.StatusTooManyRequests {
			t.Fatalf("upload %d = %d %s; want it let through", i+1, status, out)
		}
	}
	status, out := f.do(t, "POST", "/api/v1/bills?name=a.csv", ingest, []byte("x"))
	if status != http.StatusTooManyRequests || !strings.Contains(string(out), "limit of 60 bill uploads an hour (burst 2)") {
		t.Errorf("third upload = %d %s; want 429 naming the limit", status, out)
	}
}

// TestIngestQuotaBoundsConcurrentPushes checks that the samples a token's pushes decode at
// once never pass its burst: each takes its samples from the bucket as it decodes them.
func TestIngestQuotaBoundsConcurrentPushes(t *testing.T) {
	s := &Server{IngestLimit: Limit{Rate: 1, Burst: 2500}, Now: func() time.Time { return testNow }}
	s.defaults()
	a := &ingestQuota{s: s, token: 7}
	b := &ingestQuota{s: s, token: 7}
	if err := a.reserve(1500); err != nil {
		t.Fatalf("a.reserve(1500) = %v", err)
	}
	if err := b.reserve(900); err != nil {
		t.Fatalf("b.reserve(900) = %v", err)
	}
	if err := b.reserve(1001); err == nil {
		t.Errorf("b.reserve(1001) with 2,500 − 1,500 − 1,000 left = nil; want a 429")
	}
	a.settle(1200) // a decoded 1,200 of its 1,500: 300 go back
	if err := b.reserve(1200); err != nil {
		t.Errorf("b.reserve(1200) after a gave back 300 = %v; want nil", err)
	}
}
