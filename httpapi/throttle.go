package httpapi

import (
	"fmt"
	"net/http"
	"net/netip"
	"sync"
	"time"
)

// Defaults of a Throttle.
const (
	// DefaultAuthFailures is how many failed token checks or logins one source address may make
	// in a row before it must wait: far more than a person mistyping or an agent restarting with
	// an old token, far too few to guess anything.
	DefaultAuthFailures = 20

	// DefaultAuthFailureRefill is how often a throttled address earns one more try: ten a minute,
	// sustained, once the first DefaultAuthFailures are spent.
	DefaultAuthFailureRefill = 6 * time.Second

	// MaxThrottledSources bounds the addresses a Throttle tracks (about 100 bytes each, so 10
	// MB at most). Past it, with none of them due to be forgotten, a new address is not
	// throttled: a flood of addresses must not lock everyone out.
	MaxThrottledSources = 100_000
)

// Throttle slows down guessing: it counts the failed credential checks (unknown or revoked
// tokens, at the API or the dashboard's login) of each source address in a token bucket of
// Failures, one back every Refill, and refuses an address whose bucket is empty until it
// refills. A successful check costs nothing and is never delayed. IPv6 addresses count by
// their /64, which one host usually holds whole. The zero Throttle uses the defaults; its
// methods are safe for concurrent use.
type Throttle struct {
	Failures int           // DefaultAuthFailures if zero; less than zero turns the throttle off
	Refill   time.Duration // DefaultAuthFailureRefill if zero

	once sync.Once
	lim  *limiter[netip.Addr]
}

// NewThrottle returns a throttle of failures tries, one more every refill.
func NewThrottle(failures int, refill time.Duration) *Throttle {
	return &Throttle{Failures: failures, Refill: refill}
}

// limiter returns the throttle's buckets, nil when it is off.
func (t *Throttle) limiter() *limiter[netip.Addr] {
	t.once.Do(func() {
		n, every := t.Failures, t.Refill
		if n == 0 {
			n = DefaultAuthFailures
		}
		if every <= 0 {
			every = DefaultAuthFailureRefill
		}
		if n > 0 {
			t.lim = newLimiter[netip.Addr](Limit{Rate: 1 / every.Seconds(), Burst: n}, MaxThrottledSources)
		}
	})
	return t.lim
}

// Wait returns how long addr must wait before its next credential check, 0 if it may check
// now. addr is a client address as ClientAddr returns it.
func (t *Throttle) Wait(addr string, now time.Time) time.Duration {
	if t == nil {
		return 0
	}
	key, ok := throttleKey(addr)
	if !ok {
		return 0
	}
	return t.limiter().wait(key, now)
}

// Failed counts a failed credential check of addr.
func (t *Throttle) Failed(addr string, now time.Time) {
	if t == nil {
		return
	}
	if key, ok := throttleKey(addr); ok {
		t.limiter().take(key, 1, now)
	}
}

// Refusal is the message of a throttled address: "too many failed logins from 203.0.113.7;
// try again in 41 s", where what is "failed logins" or "failed token checks".
func Refusal(what, addr string, wait time.Duration) string {
	return fmt.Sprintf("too many %s from %s; try again in %d s", what, addr, retrySeconds(wait))
}

// SetRetryAfter sets a response's Retry-After header to wait, in whole seconds rounded up.
func SetRetryAfter(w http.ResponseWriter, wait time.Duration) {
	w.Header().Set("Retry-After", fmt.Sprint(retrySeconds(wait)))
}

// throttleKey is what an address is throttled by: itself, or its /64 for IPv6.
func throttleKey(addr string) (netip.Addr, bool) {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return netip.Addr{}, false
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr(), true
	}
	return a, true
}
