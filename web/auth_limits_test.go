package web

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/sqlite"
)

// withSessions gives ts's dashboard a SQLite file's revoked sessions, as gpucost serve does.
func withSessions(ts *testSite) *sqlite.DB {
	ts.t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(ts.t.TempDir(), "g.db"))
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { db.Close() })
	d := &Dashboard{Views: ts.views, Activity: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return ts.now }, Log: slog.New(slog.NewTextHandler(ts.log, nil)), Sessions: db}
	ts.h = d.Handler()
	return db
}

// TestLogoutRevokesSession checks that a session's cookie, kept by someone after its logout, is
// refused: by this server and by a replica sharing the store and key.
func TestLogoutRevokesSession(t *testing.T) {
	ts := newTestSite(t)
	db := withSessions(ts)
	secret, _ := ts.tokens.newToken(t, "erin", gpucost.RoleViewer)
	sc := ts.login(secret)
	other := ts.login(secret) // a second session of the same token, in another browser
	page := readBody(t, ts.do("GET", "/", nil, sc))
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no logout form with a CSRF token")
	}
	if res := ts.do("POST", "/logout", url.Values{"csrf": {m[1]}}, sc); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /logout = %d; want 303", res.StatusCode)
	}
	replica := (&Dashboard{Views: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return ts.now }, Sessions: db}).Handler()
	for name, h := range map[string]http.Handler{"this server": ts.h, "a replica": replica} {
		r := httptest.NewRequest("GET", "/costs", nil)
		r.AddCookie(sc)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
			t.Errorf("GET /costs on %s with the logged-out cookie = %d to %q; want 303 to the login page", name, w.Code, w.Header().Get("Location"))
		}
	}
	if res := ts.do("GET", "/", nil, other); res.StatusCode != http.StatusOK {
		t.Errorf("GET / with the token's other session = %d; want 200: a logout ends one session", res.StatusCode)
	}
}

// TestLogoutStoreDown checks that a logout the store cannot record says so rather than
// pretend the session ended.
func TestLogoutStoreDown(t *testing.T) {
	ts := newTestSite(t)
	db := withSessions(ts)
	secret, _ := ts.tokens.newToken(t, "frank", gpucost.RoleViewer)
	sc := ts.login(secret)
	m := csrfField.FindStringSubmatch(readBody(t, ts.do("GET", "/", nil, sc)))
	db.Close()
	res := ts.do("POST", "/logout", url.Values{"csrf": {m[1]}}, sc)
	if res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(readBody(t, res), "could not be ended") {
		t.Errorf("POST /logout with the store closed = %d; want 503 saying the session could not be ended", res.StatusCode)
	}
}

// TestLoginThrottled checks that an address is refused with 429 after DefaultAuthFailures
// failed logins, with a message naming it and when to try again, and that another address is
// not.
func TestLoginThrottled(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "gina", gpucost.RoleViewer)
	unknown, _ := gpucost.NewTokenSecret()
	post := func(from, token string) *http.Response {
		csrf, lc := ts.loginForm()
		r := httptest.NewRequest("POST", "/login", strings.NewReader(url.Values{"token": {token}, "csrf": {csrf}}.Encode()))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.RemoteAddr = from + ":40000"
		r.AddCookie(lc)
		w := httptest.NewRecorder()
		ts.h.ServeHTTP(w, r)
		return w.Result()
	}
	for i := range httpapi.DefaultAuthFailures {
		if res := post("203.0.113.7", unknown); res.StatusCode != http.StatusUnauthorized {
			t.Fatalf("failed login %d = %d; want 401", i+1, res.StatusCode)
		}
	}
	res := post("203.0.113.7", secret)
	body := readBody(t, res)
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "6" ||
		!strings.Contains(body, "too many failed logins from 203.0.113.7; try again in 6 s") {
		t.Errorf("login after %d failures = %d, Retry-After %q; want 429 for 6 s with the reason", httpapi.DefaultAuthFailures, res.StatusCode, res.Header.Get("Retry-After"))
	}
	if c := cookieNamed(res, sessionCookie); c != nil {
		t.Errorf("a throttled login set a session cookie")
	}
	if res := post("203.0.113.8", secret); res.StatusCode != http.StatusSeeOther {
		t.Errorf("login from another address = %d; want 303", res.StatusCode)
	}
	ts.now = ts.now.Add(httpapi.DefaultAuthFailureRefill)
	if res := post("203.0.113.7", secret); res.StatusCode != http.StatusSeeOther {
		t.Errorf("login from the throttled address %v later = %d; want 303", httpapi.DefaultAuthFailureRefill, res.StatusCode)
	}
}

// TestCookieSecureBehindTrustedProxy checks that the dashboard's cookies are Secure when a
// trusted TLS proxy says the client came over HTTPS, and not when the same header comes from
// any other peer.
func TestCookieSecureBehindTrustedProxy(t *testing.T) {
	ts := newTestSite(t)
	api := &httpapi.Server{UI: ts.h, TrustedProxies: httpapi.TrustedProxies{netip.MustParsePrefix("10.0.0.0/8")}}
	h := api.Handler()
	for _, c := range []struct {
		name, peer, proto string
		secure            bool
	}{
		{"trusted proxy, https", "10.1.2.3:5000", "https", true},
		{"trusted proxy, http", "10.1.2.3:5000", "http", false},
		{"untrusted peer claiming https", "192.0.2.1:5000", "https", false},
		{"untrusted peer", "192.0.2.1:5000", "", false},
	} {
		r := httptest.NewRequest("GET", "/login", nil)
		r.RemoteAddr = c.peer
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		lc := cookieNamed(w.Result(), loginCookie)
		if lc == nil || lc.Secure != c.secure {
			t.Errorf("%s: login cookie %v; want Secure %v", c.name, lc, c.secure)
		}
	}
}
