package httpapi

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Default per-token rate limits. A 10,000-GPU fleet whose agents share one ingest token
// pushes 1,000 samples a second (one sample per GPU every 10 s, agent.Agent's default
// interval); the defaults leave a wide margin over that and over a day's bill uploads.
const (
	// DefaultIngestRate is the samples a second one token may push, sustained: 20 times what a
	// 10,000-GPU fleet sharing one token sends.
	DefaultIngestRate = 20_000

	// DefaultIngestBurst is the samples one token may push at once above the rate: five agents
	// emptying a full DefaultRemoteBuffer (100,000 samples each) after a server outage, or 100
	// of their batches. It must be at least the samples one request may carry.
	DefaultIngestBurst = 500_000

	// DefaultBillRate is the bill uploads an hour one token may make, sustained: one every 10 s,
	// where a fleet uploads a few exports a day per cloud account.
	DefaultBillRate = 360

	// DefaultBillBurst is the bill uploads one token may make at once: a month of daily exports
	// of two clouds re-uploaded after a fix.
	DefaultBillBurst = 60
)

// Limit is a token bucket: Burst units may be spent at once, refilled at Rate a second.
type Limit struct {
	Rate  float64 // units a second; 0 or less means no limit
	Burst int     // units held at most
}

// unlimited reports whether l limits nothing.
func (l Limit) unlimited() bool { return l.Rate <= 0 || l.Burst <= 0 }

// bucket is one key's tokens at a time.
type bucket struct {
	tokens float64
	at     time.Time
}

// limiter keeps a token bucket for each key, up to maxKeys of them. A bucket that has refilled
// is as good as none, so it is dropped when the map fills; a new key beyond maxKeys when no
// bucket can be dropped is let through untracked rather than refused, so a flood of keys
// cannot lock everyone out.
type limiter[K comparable] struct {
	limit   Limit
	maxKeys int

	mu      sync.Mutex
	buckets map[K]*bucket
}

func newLimiter[K comparable](l Limit, maxKeys int) *limiter[K] {
	return &limiter[K]{limit: l, maxKeys: maxKeys, buckets: make(map[K]*bucket)}
}

// get returns key's bucket refilled to now, or nil when it is not tracked and cannot be.
// l.mu is held.
func (l *limiter[K]) get(key K, now time.Time) *bucket {
	b := l.buckets[key]
	if b == nil {
		if len(l.buckets) >= l.maxKeys {
			l.sweep(now)
			if len(l.buckets) >= l.maxKeys {
				return nil
			}
		}
		b = &bucket{tokens: float64(l.limit.Burst), at: now}
		l.buckets[key] = b
		return b
	}
	if now.After(b.at) {
		b.tokens = min(float64(l.limit.Burst), b.tokens+now.Sub(b.at).Seconds()*l.limit.Rate)
		b.at = now
	}
	return b
}

// sweep drops the buckets that are full by now. l.mu is held.
func (l *limiter[K]) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.tokens+now.Sub(b.at).Seconds()*l.limit.Rate >= float64(l.limit.Burst) {
			delete(l.buckets, k)
		}
	}
}

// take spends n units of key's bucket and returns 0, or spends nothing and returns how long
// until n units are there. n over the burst can never be taken: the wait is
// until the bucket is full.
func (l *limiter[K]) take(key K, n int, now time.Time) time.Duration {
	if l == nil || l.limit.unlimited() || n <= 0 {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(key, now)
	if b == nil {
		return 0
	}
	if n <= l.limit.Burst && b.tokens >= float64(n) {
		b.tokens -= float64(n)
		return 0
	}
	need := float64(min(n, l.limit.Burst)) - b.tokens
	return max(time.Nanosecond, time.Duration(math.Ceil(need/l.limit.Rate*float64(time.Second))))
}

// give returns n units to key's bucket: what a request took and did not use.
func (l *limiter[K]) give(key K, n int, now time.Time) {
	if l == nil || l.limit.unlimited() || n <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.get(key, now); b != nil {
		b.tokens = min(float64(l.limit.Burst), b.tokens+float64(n))
	}
}

// wait returns how long until key's bucket holds a unit again; 0 when it holds one now.
func (l *limiter[K]) wait(key K, now time.Time) time.Duration {
	if l == nil || l.limit.unlimited() {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		return 0
	}
	tokens := min(float64(l.limit.Burst), b.tokens+max(now.Sub(b.at).Seconds(), 0)*l.limit.Rate)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) / l.limit.Rate * float64(time.Second)))
}

// maxTokenBuckets bounds the per-token buckets kept: tokens are made by admins, so far fewer
// exist; past it, a token's requests go unlimited rather than refused.
const maxTokenBuckets = 100_000

// rateLimits are the per-token limits of ingest and bill uploads.
type rateLimits struct {
	samples *limiter[int64]
	bills   *limiter[int64]
}

func newRateLimits(samples, bills Limit) *rateLimits {
	return &rateLimits{samples: newLimiter[int64](samples, maxTokenBuckets), bills: newLimiter[int64](bills, maxTokenBuckets)}
}

// writeTooMany answers 429 with Retry-After, whole seconds rounded up, and msg.
func writeTooMany(w http.ResponseWriter, wait time.Duration, msg string) {
	SetRetryAfter(w, wait)
	writeError(w, http.StatusTooManyRequests, "too_many_requests", msg)
}

// retrySeconds is wait in whole seconds, rounded up, at least 1.
func retrySeconds(wait time.Duration) int {
	return max(1, int((wait+time.Second-1)/time.Second))
}

// limitBills refuses a bill upload past its token's limit with 429; the upload itself is
// next's (postBill in bills.go).
func (s *Server) limitBills(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		tok, _ := TokenFrom(r.Context())
		if wait := s.limits.bills.take(tok.ID, 1, s.Now()); wait > 0 {
			writeTooMany(w, wait, fmt.Sprintf("token %d is over its limit of %s bill uploads an hour (burst %d); try again in %d s",
				tok.ID, perHour(s.BillLimit.Rate), s.BillLimit.Burst, retrySeconds(wait)))
			return
		}
		next(w, r)
	}
}

// perHour writes a rate a second as a whole count an hour.
func perHour(rate float64) string { return strconv.FormatFloat(math.Round(rate*3600), 'f', -1, 64) }

// ingestQuota takes a push's samples from its token's bucket in chunks as they are decoded, so
// that concurrent pushes of one token hold at most its burst between them, and gives back what
// the push did not keep.
type ingestQuota struct {
	s        *Server
	token    int64
	taken    int
	finished bool
}

// ingestChunk is how many samples a push takes from its token's bucket at a time: small next
// to the burst, large enough that the bucket's lock is taken once per thousand samples.
const ingestChunk = 1000

// reserve makes sure n samples are paid for, taking another chunk when needed; it returns a
// 429 error when the token's bucket cannot pay.
func (q *ingestQuota) reserve(n int) error {
	if n <= q.taken {
		return nil
	}
	chunk := max(n-q.taken, min(ingestChunk, q.s.IngestLimit.Burst))
	lim, now := q.s.limits.samples, q.s.Now()
	if wait := lim.take(q.token, chunk, now); wait > 0 {
		// The last chunk may be more than the push needs: try the exact count before refusing.
		if wait = lim.take(q.token, n-q.taken, now); wait > 0 {
			// A refused push costs nothing: what it took goes back, and it is told to wait
			// until the bucket holds the samples it has sent so far.
			lim.give(q.token, q.taken, now)
			q.taken = 0
			if wait = lim.take(q.token, n, now); wait == 0 {
				q.taken = n
				return nil
			}
			return &rateError{wait: wait, msg: fmt.Sprintf(
				"token %d is over its limit of %s samples a second (burst %d); try again in %d s",
				q.token, strconv.FormatFloat(q.s.IngestLimit.Rate, 'f', -1, 64), q.s.IngestLimit.Burst, retrySeconds(wait))}
		}
		chunk = n - q.taken
	}
	q.taken += chunk
	return nil
}

// settle gives back what the push took beyond the samples it decoded; those are paid for
// whether they were kept, skipped or refused as malformed or too large, since decoding them
// cost the server.
func (q *ingestQuota) settle(decoded int) {
	if !q.finished {
		q.finished = true
		q.s.limits.samples.give(q.token, q.taken-decoded, q.s.Now())
	}
}
