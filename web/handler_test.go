package web

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// testSite is a dashboard over fake views and an in-memory token store, with its log kept.
type testSite struct {
	t      testing.TB
	views  *fakeViews
	tokens *memTokens
	now    time.Time
	log    *syncBuffer
	h      http.Handler
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newTestSite(t testing.TB) *testSite {
	ts := &testSite{t: t, views: newFakeViews(t), tokens: &memTokens{}, now: testNow, log: &syncBuffer{}}
	d := &Dashboard{Views: ts.views, Activity: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return ts.now }, Log: slog.New(slog.NewTextHandler(ts.log, nil))}
	ts.h = d.Handler()
	return ts
}

// do serves one request with the given cookies and form (POST when form is not nil).
func (ts *testSite) do(method, target string, form url.Values, cookies ...*http.Cookie) *http.Response {
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	r := httptest.NewRequest(method, target, body)
	if form != nil {
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for _, c := range cookies {
		r.AddCookie(c)
	}
	w := httptest.NewRecorder()
	ts.h.ServeHTTP(w, r)
	return w.Result()
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// loginForm fetches the login form and returns its CSRF token and login cookie.
func (ts *testSite) loginForm() (string, *http.Cookie) {
	ts.t.Helper()
	res := ts.do("GET", "/login", nil)
	body := readBody(ts.t, res)
	m := csrfField.FindStringSubmatch(body)
	c := cookieNamed(res, loginCookie)
	if res.StatusCode != 200 || m == nil || c == nil {
		ts.t.Fatalf("GET /login = %d, csrf %v, cookie %v", res.StatusCode, m, c)
	}
	return m[1], c
}

// login logs in with secret and returns the session cookie.
func (ts *testSite) login(secret string) *http.Cookie {
	ts.t.Helper()
	csrf, lc := ts.loginForm()
	res := ts.do("POST", "/login", url.Values{"token": {secret}, "csrf": {csrf}, "next": {"/"}}, lc)
	c := cookieNamed(res, sessionCookie)
	if res.StatusCode != http.StatusSeeOther || c == nil {
		ts.t.Fatalf("POST /login = %d with session cookie %v; body %s", res.StatusCode, c, readBody(ts.t, res))
	}
	return c
}

func readBody(t testing.TB, res *http.Response) string {
	t.Helper()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func cookieNamed(res *http.Response, name string) *http.Cookie {
	for _, c := range res.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

func TestLoginFlow(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "alice", gpucost.RoleViewer)

	res := ts.do("GET", "/costs?by=project", nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=%2Fcosts%3Fby%3Dproject" {
		t.Fatalf("GET /costs without a session = %d to %q, want 303 to the login form", res.StatusCode, res.Header.Get("Location"))
	}
	csrf, lc := ts.loginForm()
	res = ts.do("POST", "/login", url.Values{"token": {" " + secret + "\n"}, "csrf": {csrf}, "next": {"/costs?by=project"}}, lc)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/costs?by=project" {
		t.Fatalf("POST /login = %d to %q, want 303 to /costs?by=project", res.StatusCode, res.Header.Get("Location"))
	}
	sc := cookieNamed(res, sessionCookie)
	if sc == nil {
		t.Fatal("POST /login set no session cookie")
	}
	if !sc.HttpOnly || sc.SameSite != http.SameSiteStrictMode || sc.Path != "/" || sc.Secure || sc.MaxAge != int(SessionTTL/time.Second) {
		t.Errorf("session cookie = %+v, want HttpOnly, SameSite=Strict, Path=/, not Secure over plain HTTP, Max-Age 12h", sc)
	}
	if strings.Contains(sc.Value, secret) {
		t.Error("the session cookie holds the token secret")
	}
	if gone := cookieNamed(res, loginCookie); gone == nil || gone.MaxAge >= 0 {
		t.Errorf("POST /login left the login cookie: %v", gone)
	}

	res = ts.do("GET", "/costs?by=project", nil, sc)
	body := readBody(t, res)
	if res.StatusCode != 200 || !strings.Contains(body, "alice") || !strings.Contains(body, "Cost per day by project") {
		t.Fatalf("GET /costs with the session = %d, want 200 naming alice and the grouping", res.StatusCode)
	}
	if q := ts.views.lastQuery(); q.By != "project" {
		t.Errorf("Costs got By %q, want project", q.By)
	}

	// Still logged in, the login form sends one on.
	res = ts.do("GET", "/login?next=/idle", nil, sc)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/idle" {
		t.Errorf("GET /login with a session = %d to %q, want 303 to /idle", res.StatusCode, res.Header.Get("Location"))
	}
	if strings.Contains(ts.log.String(), secret) {
		t.Error("the log holds the token secret")
	}
}

func TestSessionCookieSecureOverTLS(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "alice", gpucost.RoleAdmin)
	csrf, lc := ts.loginForm()
	r := httptest.NewRequest("POST", "https://dash.example/login", strings.NewReader(url.Values{"token": {secret}, "csrf": {csrf}}.Encode()))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.TLS = &tls.ConnectionState{}
	r.AddCookie(lc)
	w := httptest.NewRecorder()
	ts.h.ServeHTTP(w, r)
	if c := cookieNamed(w.Result(), sessionCookie); c == nil || !c.Secure {
		t.Fatalf("session cookie over TLS = %v, want Secure", c)
	}
}

func TestLoginRefused(t *testing.T) {
	ts := newTestSite(t)
	ingest, _ := ts.tokens.newToken(t, "node-1", gpucost.RoleIngest)
	revoked, rt := ts.tokens.newToken(t, "old", gpucost.RoleViewer)
	if err := ts.tokens.RevokeToken(context.Background(), rt.ID, testNow); err != nil {
		t.Fatal(err)
	}
	unknown, _ := gpucost.NewTokenSecret()
	for _, tc := range []struct {
		name, token string
		status      int
		says        string
	}{
		{"unknown", unknown, http.StatusUnauthorized, "not valid"},
		{"revoked", revoked, http.StatusUnauthorized, "revoked"},
		{"not a token", "hunter2", http.StatusUnauthorized, "starts with gpc_"},
		{"empty", "", http.StatusUnauthorized, "starts with gpc_"},
		{"ingest role", ingest, http.StatusForbidden, "viewer or admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			csrf, lc := ts.loginForm()
			res := ts.do("POST", "/login", url.Values{"token": {tc.token}, "csrf": {csrf}}, lc)
			body := readBody(t, res)
			if res.StatusCode != tc.status || !strings.Contains(body, tc.says) {
				t.Errorf("POST /login with %s token = %d, want %d saying %q", tc.name, res.StatusCode, tc.status, tc.says)
			}
			if c := cookieNamed(res, sessionCookie); c != nil {
				t.Errorf("POST /login with %s token set a session cookie", tc.name)
			}
			if tc.token != "" && strings.Contains(body, tc.token) {
				t.Errorf("the refusal page shows the token")
			}
		})
	}
	for _, s := range []string{ingest, revoked, unknown} {
		if strings.Contains(ts.log.String(), s) {
			t.Error("the log holds a token secret")
		}
	}
}

func TestRevokedTokenEndsSession(t *testing.T) {
	ts := newTestSite(t)
	secret, tok := ts.tokens.newToken(t, "bob", gpucost.RoleViewer)
	sc := ts.login(secret)
	if res := ts.do("GET", "/", nil, sc); res.StatusCode != 200 {
		t.Fatalf("GET / = %d, want 200", res.StatusCode)
	}
	ts.tokens.RevokeToken(context.Background(), tok.ID, testNow)
	res := ts.do("GET", "/", nil, sc)
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("GET / after revoking the token = %d to %q, want 303 to /login", res.StatusCode, res.Header.Get("Location"))
	}
}

func TestSessionExpiresAndResistsTampering(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "carol", gpucost.RoleViewer)
	sc := ts.login(secret)

	tampered := *sc
	b := []byte(tampered.Value)
	b[5] ^= 1
	tampered.Value = string(b)
	if res := ts.do("GET", "/", nil, &tampered); res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / with a tampered cookie = %d, want 303 to the login form", res.StatusCode)
	}
	// A cookie signed with another key.
	other := newKeys([]byte("another key, another server....."))
	forged := &http.Cookie{Name: sessionCookie, Value: other.encode(newSession(gpucost.HashTokenSecret(secret), testNow.Add(time.Hour)))}
	if res := ts.do("GET", "/", nil, forged); res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / with a cookie signed under another key = %d, want 303", res.StatusCode)
	}
	ts.now = testNow.Add(SessionTTL)
	if res := ts.do("GET", "/", nil, sc); res.StatusCode != http.StatusSeeOther {
		t.Errorf("GET / 12 h after login = %d, want 303 to the login form", res.StatusCode)
	}
}

func TestIngestSessionForbidden(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "node-1", gpucost.RoleIngest)
	// An ingest token cannot log in; a session naming one (from a role change, or a forged
	// form) still gets no page.
	k := newKeys([]byte("0123456789abcdef0123456789abcdef"))
	sc := &http.Cookie{Name: sessionCookie, Value: k.encode(newSession(gpucost.HashTokenSecret(secret), testNow.Add(time.Hour)))}
	res := ts.do("GET", "/gpus", nil, sc)
	if body := readBody(t, res); res.StatusCode != http.StatusForbidden || !strings.Contains(body, "viewer or admin") {
		t.Fatalf("GET /gpus with an ingest session = %d, want 403", res.StatusCode)
	}
	if ts.views.lastQuery().By != "" {
		t.Error("an ingest session reached the views")
	}
}

func TestCSRF(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "dave", gpucost.RoleViewer)
	csrf, lc := ts.loginForm()
	otherCSRF, _ := ts.loginForm()

	for _, tc := range []struct {
		name    string
		form    url.Values
		cookies []*http.Cookie
	}{
		{"no token", url.Values{"token": {secret}}, []*http.Cookie{lc}},
		{"wrong token", url.Values{"token": {secret}, "csrf": {csrf + "x"}}, []*http.Cookie{lc}},
		{"another form's token", url.Values{"token": {secret}, "csrf": {otherCSRF}}, []*http.Cookie{lc}},
		{"no login cookie", url.Values{"token": {secret}, "csrf": {csrf}}, nil},
	} {
		res := ts.do("POST", "/login", tc.form, tc.cookies...)
		if res.StatusCode != http.StatusForbidden || cookieNamed(res, sessionCookie) != nil {
			t.Errorf("POST /login with %s = %d, session cookie %v; want 403 and none", tc.name, res.StatusCode, cookieNamed(res, sessionCookie))
		}
	}

	sc := ts.login(secret)
	page := readBody(t, ts.do("GET", "/", nil, sc))
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no logout form with a CSRF token")
	}
	for _, bad := range []string{"", m[1] + "A", csrf} {
		res := ts.do("POST", "/logout", url.Values{"csrf": {bad}}, sc)
		if res.StatusCode != http.StatusForbidden || cookieNamed(res, sessionCookie) != nil {
			t.Errorf("POST /logout with csrf %q = %d, want 403 and the cookie kept", bad, res.StatusCode)
		}
	}
	if res := ts.do("GET", "/", nil, sc); res.StatusCode != 200 {
		t.Fatalf("after refused logouts GET / = %d, want 200", res.StatusCode)
	}
	res := ts.do("POST", "/logout", url.Values{"csrf": {m[1]}}, sc)
	if c := cookieNamed(res, sessionCookie); res.StatusCode != http.StatusSeeOther || c == nil || c.MaxAge >= 0 {
		t.Errorf("POST /logout = %d, cookie %v; want 303 and the cookie deleted", res.StatusCode, c)
	}
}

func TestSafeNext(t *testing.T) {
	for _, tc := range []struct{ next, want string }{
		{"", "/"},
		{"/costs?by=team&since=30d", "/costs?by=team&since=30d"},
		{"/budgets", "/budgets"},
		{"//evil.example/", "/"},
		{"https://evil.example/", "/"},
		{"/\\evil.example", "/"},
		{"javascript:alert(1)", "/"},
		{"evil.example", "/"},
		{"/login", "/"},
		{"/logout?x=1", "/"},
		{"/%0d%0aSet-Cookie:x", "/%0d%0aSet-Cookie:x"},
		{"/\r\nLocation: x", "/"},
	} {
		if got := safeNext(tc.next); got != tc.want {
			t.Errorf("safeNext(%q) = %q, want %q", tc.next, got, tc.want)
		}
	}
}

// pageChecks names, per page, text the fake fleet's page must show: amounts as Money
// formats them, and names from the data.
var pageChecks = []struct {
	path string
	says []string
}{
	{"/", []string{"Spent this month", "$22,733.29", "research-gpus", "Savings available", "$1,691.35", "training", "37.3%", `data-chart="line"`}},
	{"/gpus", []string{"Utilisation per hour", fmt.Sprintf(`data-chart="heatmap" data-src="chart-heatmap" data-points="%d"`, heatmapCells(7*24)), "host-a", "overprovisioned", "Alerts", "1 firing"}},
	{"/gpus?by=host&since=24h", []string{"Utilisation by host", "host-b"}},
	{"/costs", []string{"Cost per day by team", "reconciled to the cent", "inference", `data-chart="stacked"`}},
	{"/costs?by=namespace&filter=team=ml", []string{"Cost per day by namespace", `value="team=ml"`}},
	{"/idle", []string{"Idle GPU-hours", "39.0", "19:00–08:00", "still idle", `data-chart="heatmap"`}},
	{"/recommendations", []string{"$1,234.57/month", "<details>", "idle 55 of 60 minutes", "Night jobs would wait",
		"research: 2 × aws us-east-1 p4d.24xlarge", "research-p4d.24xlarge/spot/spot-p4d.24xlarge", "1 alternative not chosen",
		"Commit to 1 × p4d.24xlarge for 1 year", "$300.00/month alone", "the jobs checkpoint every 10 min", "$3,000.00 → $1,308.65"}},
	{"/budgets", []string{"research-gpus", "all-aws", "2026-Q4", "Burn rate", `data-chart="line"`}},
	{"/jobs", []string{"llama-ft", "$188.00", "records", "1,250,000", "2314.5/s"}},
	{"/activity", []string{"Alerts sent", "research-gpus", "actual 80%", "finops-webhook", "status-failed", "connection refused",
		"Enforcement actions", "i-0exp1", "us-east-1", "applied", "dry run", "i-0ancient", "<details>", "spent $16,420.00 of $20,000.00 (82.1%)",
		"In scope by team=research", "IncorrectSpotRequestState", `name="since"`, `placeholder="policy=spot-cap,result=failed"`}},
}

func TestPages(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "erin", gpucost.RoleViewer)
	sc := ts.login(secret)
	for _, pc := range pageChecks {
		res := ts.do("GET", pc.path, nil, sc)
		body := readBody(t, res)
		if res.StatusCode != 200 {
			t.Errorf("GET %s = %d, want 200: %s", pc.path, res.StatusCode, body)
			continue
		}
		for _, s := range pc.says {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s does not show %q", pc.path, s)
			}
		}
		checkHeaders(t, pc.path, res)
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s Cache-Control = %q, want no-store", pc.path, res.Header.Get("Cache-Control"))
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, " on") && regexp.MustCompile(` on[a-z]+=`).MatchString(body) {
			t.Errorf("GET %s has an inline script, style or handler", pc.path)
		}
	}
}

func TestPageQueries(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "erin", gpucost.RoleViewer)
	sc := ts.login(secret)
	ts.do("GET", "/costs?since=7d&by=namespace&filter=team%3Dml,+env=prod", nil, sc)
	q := ts.views.lastQuery()
	wantTo := time.Date(2026, 11, 20, 15, 0, 0, 0, time.UTC)
	if q.By != "namespace" || !q.To.Equal(wantTo) || !q.From.Equal(wantTo.Add(-7*day)) || q.Filter["team"] != "ml" || q.Filter["env"] != "prod" || len(q.Filter) != 2 {
		t.Errorf("GET /costs?since=7d&by=namespace&filter=team=ml,env=prod gave the views %+v", q)
	}
	for _, bad := range []string{"/costs?since=forever", "/costs?since=400d", "/costs?by=colour", "/gpus?filter=team", "/idle?filter==x", "/gpus?since=0d"} {
		res := ts.do("GET", bad, nil, sc)
		if body := readBody(t, res); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "such as") && !strings.Contains(body, "groups by") {
			t.Errorf("GET %s = %d, want 400 saying what to give", bad, res.StatusCode)
		}
	}
}

func TestEmptyStates(t *testing.T) {
	ts := newTestSite(t)
	ts.views.empty = true
	secret, _ := ts.tokens.newToken(t, "frank", gpucost.RoleAdmin)
	sc := ts.login(secret)
	for _, pc := range []struct{ path, says string }{
		{"/", "gpucost import billing FILE"},
		{"/", "gpucost agent --server URL"},
		{"/", "No budgets configured"},
		{"/gpus", "No telemetry in this period"},
		{"/costs", "No cost in this period. Import a bill with <code>gpucost import billing FILE</code>"},
		{"/idle", "No GPU was idle"},
		{"/recommendations", "No recommendations"},
		{"/budgets", "No budgets configured"},
		{"/jobs", "No spot jobs recorded"},
		{"/jobs", "gpucost queue serve"},
		{"/activity", "No alert sent in this period"},
		{"/activity", "gpucost serve --policies policies.yaml"},
	} {
		res := ts.do("GET", pc.path, nil, sc)
		body := readBody(t, res)
		if res.StatusCode != 200 || !strings.Contains(body, pc.says) {
			t.Errorf("GET %s with no data = %d, want 200 saying %q", pc.path, res.StatusCode, pc.says)
		}
		if strings.Contains(body, "data-chart=") {
			t.Errorf("GET %s with no data draws a chart", pc.path)
		}
	}
}

func TestViewErrors(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "gina", gpucost.RoleViewer)
	sc := ts.login(secret)
	ts.views.err = gpucost.Errorf(gpucost.EUnavailable, "store: database is locked")
	res := ts.do("GET", "/costs", nil, sc)
	if body := readBody(t, res); res.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "database is locked") {
		t.Errorf("GET /costs with the store unavailable = %d, want 503 with the reason", res.StatusCode)
	}
	ts.views.err = io.ErrUnexpectedEOF
	res = ts.do("GET", "/gpus", nil, sc)
	if body := readBody(t, res); res.StatusCode != http.StatusInternalServerError || strings.Contains(body, "unexpected EOF") {
		t.Errorf("GET /gpus with an internal error = %d, want 500 without the internal message", res.StatusCode)
	}
	if !strings.Contains(ts.log.String(), "unexpected EOF") {
		t.Error("the internal error is not in the log")
	}
	ts.views.err = nil
	ts.tokens.down = true
	if res := ts.do("GET", "/", nil, sc); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET / with the token store down = %d, want 503", res.StatusCode)
	}
}

func TestStaticAssets(t *testing.T) {
	ts := newTestSite(t)
	a := mustAssets()
	for _, name := range []string{"app.js", "app.css", "vendor/echarts.min.js", "vendor/uPlot.iife.min.js", "vendor/uPlot.min.css", "vendor/LICENSE.echarts", "vendor/LICENSE.uplot"} {
		res := ts.do("GET", a.URL(name), nil)
		body := readBody(t, res)
		if res.StatusCode != 200 || len(body) == 0 || res.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s = %d, %d bytes, Cache-Control %q; want 200 cached for a year", a.URL(name), res.StatusCode, len(body), res.Header.Get("Cache-Control"))
		}
		checkHeaders(t, name, res)
	}
	if res := ts.do("GET", "/static/app.js?v=old", nil); res.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("GET /static/app.js?v=old Cache-Control = %q, want no-cache", res.Header.Get("Cache-Control"))
	}
	r := httptest.NewRequest("GET", a.URL("vendor/echarts.min.js"), nil)
	r.Header.Set("Accept-Encoding", "br, gzip")
	w := httptest.NewRecorder()
	ts.h.ServeHTTP(w, r)
	if w.Header().Get("Content-Encoding") != "gzip" || w.Body.Len() > len(a.files["vendor/echarts.min.js"].data)/2 {
		t.Errorf("gzip request for echarts: encoding %q, %d bytes", w.Header().Get("Content-Encoding"), w.Body.Len())
	}
	r = httptest.NewRequest("GET", a.URL("app.js"), nil)
	r.Header.Set("If-None-Match", `"`+a.files["app.js"].hash+`"`)
	w = httptest.NewRecorder()
	ts.h.ServeHTTP(w, r)
	if w.Code != http.StatusNotModified {
		t.Errorf("GET app.js with its ETag = %d, want 304", w.Code)
	}
	if res := ts.do("GET", "/static/nope.js", nil); res.StatusCode != 404 {
		t.Errorf("GET /static/nope.js = %d, want 404", res.StatusCode)
	}
}

func TestUnknownPage(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "hal", gpucost.RoleViewer)
	sc := ts.login(secret)
	res := ts.do("GET", "/nope", nil, sc)
	if body := readBody(t, res); res.StatusCode != 404 || !strings.Contains(body, "no page /nope") {
		t.Errorf("GET /nope = %d, want 404", res.StatusCode)
	}
	checkHeaders(t, "/nope", res)
	if res := ts.do("POST", "/gpus", url.Values{}, sc); res.StatusCode != 404 && res.StatusCode != 405 {
		t.Errorf("POST /gpus = %d, want 404 or 405", res.StatusCode)
	}
}

func checkHeaders(t *testing.T, what string, res *http.Response) {
	t.Helper()
	for k, want := range map[string]string{
		"Content-Security-Policy": contentSecurityPolicy,
		"X-Frame-Options":         "DENY",
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         "same-origin",
	} {
		if got := res.Header.Get(k); got != want {
			t.Errorf("%s: %s = %q, want %q", what, k, got, want)
		}
	}
}
