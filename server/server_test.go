package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/web"
)

// TestRun starts the server on port 0 over a new SQLite store, asks /readyz and the overview's
// login redirect, and stops it: Run returns nil and leaves the write-ahead log empty.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, st, ln, Options{Flush: time.Second, ViewsEvery: time.Minute, MaxBill: 1 << 20,
			WALDir: filepath.Join(dir, "wal"), StoreDir: dir, Log: slog.New(slog.DiscardHandler)})
	}()
	url := "http://" + ln.Addr().String()
	var resp *http.Response
	for range 100 {
		if resp, err = http.Get(url + "/readyz"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /readyz = %d %s; want 200", resp.StatusCode, body)
	}
	resp, err = http.Get(url + "/api/v1/overview")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/overview without a token = %d; want 401", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel = %v; want nil", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return within 30s of its context's end")
	}
}

// TestSecurityApplied checks what Security sets on the server and the dashboard: the limits, one
// throttle for both, the proxies, the store's revoked sessions; nil keeps httpapi's defaults.
func TestSecurityApplied(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	proxies, err := httpapi.ParseTrustedProxies("10.0.0.0/8")
	if err != nil {
		t.Fatal(err)
	}
	s := &Security{IngestLimit: httpapi.Limit{Rate: 100, Burst: 50_000}, BillLimit: httpapi.Limit{Rate: -1}, AuthFailures: -1, TrustedProxies: proxies}
	srv, d := &httpapi.Server{}, &web.Dashboard{}
	s.apply(srv, d, st)
	if srv.IngestLimit != s.IngestLimit || srv.BillLimit != s.BillLimit {
		t.Errorf("limits = %+v, %+v; want %+v, %+v", srv.IngestLimit, srv.BillLimit, s.IngestLimit, s.BillLimit)
	}
	if srv.AuthThrottle == nil || d.Throttle != srv.AuthThrottle || srv.AuthThrottle.Failures != -1 {
		t.Errorf("throttle = %+v, dashboard's %p; want one, shared, off", srv.AuthThrottle, d.Throttle)
	}
	if len(srv.TrustedProxies) != 1 || d.Sessions == nil {
		t.Errorf("proxies %v, sessions %v; want 10.0.0.0/8 and the store", srv.TrustedProxies, d.Sessions)
	}
	var none *Security
	srv, d = &httpapi.Server{}, &web.Dashboard{}
	none.apply(srv, d, st)
	if srv.IngestLimit != (httpapi.Limit{}) || srv.AuthThrottle == nil || srv.AuthThrottle.Failures != 0 || d.Throttle != srv.AuthThrottle || d.Sessions == nil {
		t.Errorf("nil Security: %+v; want the server's defaults, a shared default throttle and the store's sessions", srv)
	}
}

func TestQueryKey(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	a := queryKey("costs", httpapi.Query{From: from, By: "team", Filter: map[string]string{"team": "ml", "namespace": "train"}})
	b := queryKey("costs", httpapi.Query{From: from, By: "team", Filter: map[string]string{"namespace": "train", "team": "ml"}})
	if a != b {
		t.Errorf("queryKey of one query = %q and %q; want one key whatever the map's order", a, b)
	}
	for _, q := range []httpapi.Query{{From: from, By: "project"}, {From: from.Add(time.Hour), By: "team"}, {By: "team"}} {
		if k := queryKey("costs", q); k == a {
			t.Errorf("queryKey(%+v) = %q, the key of another query", q, k)
		}
	}
	if queryKey("idle", httpapi.Query{}) == queryKey("alerts", httpapi.Query{}) {
		t.Error("two views share a key")
	}
}

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ name, msg, url string }{
		{"password", "dial nats://gpucost:s3cret@host:4222: refused", "nats://gpucost:s3cret@host:4222"},
		{"token as user", "dial nats://s3cret@host:4222: refused", "nats://s3cret@host:4222"},
	} {
		if got := redactURL(c.msg, c.url); strings.Contains(got, "s3cret") || !strings.Contains(got, "REDACTED") {
			t.Errorf("%s: redactURL(%q) = %q; want the secret REDACTED", c.name, c.msg, got)
		}
	}
	if got := redactURL("refused", "nats://host:4222"); got != "refused" {
		t.Errorf("redactURL without credentials = %q; want the message unchanged", got)
	}
}
