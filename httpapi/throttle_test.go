package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestThrottleFailedTokenChecks checks that a source address is refused with 429 after
// DefaultAuthFailures failed token checks, that other addresses are not, that a successful
// check costs nothing, and that the address may try again once a failure has refilled.
func TestThrottleFailedTokenChecks(t *testing.T) {
	f := newFixture(t)
	now := testNow
	f.srv.Now = func() time.Time { return now }
	f.srv.TrustedProxies = TrustedProxies{netipPrefix(t, "127.0.0.0/8")} // so X-Forwarded-For names the source
	h := f.srv.Handler()
	get := func(from, secret string) *httptest.ResponseRecorder {
		r := httptest.NewRequest("GET", "/api/v1/whoami", nil)
		r.RemoteAddr = "127.0.0.1:5000"
		r.Header.Set("X-Forwarded-For", from)
		r.Header.Set("Authorization", "Bearer "+secret)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	viewer := f.secrets[gpucost.RoleViewer]
	for i := range DefaultAuthFailures {
		if w := get("203.0.113.7", "gpc_wrong"); w.Code != http.StatusUnauthorized {
			t.Fatalf("failure %d = %d %s; want 401", i+1, w.Code, w.Body)
		}
		if i%5 == 0 { // successes in between neither count nor reset the failures
			if w := get("203.0.113.7", viewer); w.Code != http.StatusOK {
				t.Fatalf("valid token after %d failures = %d %s; want 200", i+1, w.Code, w.Body)
			}
		}
	}
	for _, secret := range []string{"gpc_wrong", f.revoked, viewer} {
		w := get("203.0.113.7", secret)
		var eb ErrorBody
		json.Unmarshal(w.Body.Bytes(), &eb)
		if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "6" ||
			eb.Error.Message != "too many failed token checks from 203.0.113.7; try again in 6 s" {
			t.Errorf("check after %d failures = %d, Retry-After %q, %q; want 429 for 6 s", DefaultAuthFailures, w.Code, w.Header().Get("Retry-After"), eb.Error.Message)
		}
	}
	if w := get("203.0.113.8", "gpc_wrong"); w.Code != http.StatusUnauthorized {
		t.Errorf("failure from another address = %d; want 401, not throttled", w.Code)
	}
	if w := get("203.0.113.8", viewer); w.Code != http.StatusOK {
		t.Errorf("valid token from another address = %d; want 200", w.Code)
	}
	now = now.Add(DefaultAuthFailureRefill)
	if w := get("203.0.113.7", viewer); w.Code != http.StatusOK {
		t.Errorf("valid token %v later = %d; want 200", DefaultAuthFailureRefill, w.Code)
	}
	if w := get("203.0.113.7", "gpc_wrong"); w.Code != http.StatusUnauthorized {
		t.Errorf("failure %v later = %d; want 401: one more try", DefaultAuthFailureRefill, w.Code)
	}
	if w := get("203.0.113.7", "gpc_wrong"); w.Code != http.StatusTooManyRequests {
		t.Errorf("second failure %v later = %d; want 429", DefaultAuthFailureRefill, w.Code)
	}
}

// TestThrottleIgnoresUntrustedForwardedFor checks that X-Forwarded-For from a peer that is not
// a trusted proxy does not let a client pass as many addresses.
func TestThrottleIgnoresUntrustedForwardedFor(t *testing.T) {
	f := newFixture(t)
	f.srv.AuthThrottle = NewThrottle(3, time.Minute)
	h := f.srv.Handler()
	codes := []int{}
	for i := range 5 {
		r := httptest.NewRequest("GET", "/api/v1/whoami", nil)
		r.RemoteAddr = "192.0.2.1:5000"
		r.Header.Set("X-Forwarded-For", "198.51.100."+string(rune('1'+i)))
		r.Header.Set("Authorization", "Bearer gpc_wrong")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		codes = append(codes, w.Code)
		if w.Code == http.StatusTooManyRequests && !strings.Contains(w.Body.String(), "from 192.0.2.1;") {
			t.Errorf("429 names %s; want the peer 192.0.2.1", w.Body)
		}
	}
	if want := []int{401, 401, 401, 429, 429}; !slices.Equal(codes, want) {
		t.Errorf("failures with a new X-Forwarded-For each from an untrusted peer = %v; want %v", codes, want)
	}
}

func TestThrottleKeys(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:2:ffff::9"}, // one /64
		{"::ffff:192.0.2.1", "192.0.2.1"},
	} {
		ka, _ := throttleKey(c.a)
		kb, _ := throttleKey(c.b)
		if ka != kb {
			t.Errorf("throttleKey(%s) = %v, throttleKey(%s) = %v; want the same", c.a, ka, c.b, kb)
		}
	}
	if ka, _ := throttleKey("2001:db8:1:2::1"); ka == must(throttleKey("2001:db8:1:3::1")) {
		t.Errorf("two /64s share a throttle key")
	}
}

func must[T any](v T, _ bool) T { return v }
