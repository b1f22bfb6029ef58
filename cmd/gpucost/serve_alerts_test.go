package main

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/notify"
)

// hook is a webhook target that records the alerts it is sent; hold, while open, keeps every
// request waiting.
type hook struct {
	mu   sync.Mutex
	keys []string
	hold chan struct{}
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.hold != nil {
		select {
		case <-h.hold:
		case <-r.Context().Done():
			return
		}
	}
	var m struct {
		Key string `json:"key"`
	}
	body, _ := io.ReadAll(r.Body)
	json.Unmarshal(body, &m)
	h.mu.Lock()
	h.keys = append(h.keys, m.Key)
	h.mu.Unlock()
}

func (h *hook) received() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.keys...)
}

// TestServeBudgetAlerts runs gpucost serve with budgets and targets over the demo fleet: every
// check's crossed thresholds reach each target in one alert, once however many checks run, and a target that hangs
// holds up neither ingest nor the other target.
func TestServeBudgetAlerts(t *testing.T) {
	dir := loadDemo(t)
	db := filepath.Join(dir, "gpucost.db")
	ok, slow := &hook{}, &hook{hold: make(chan struct{})}
	okSrv, slowSrv := httptest.NewServer(ok), httptest.NewServer(slow)
	defer okSrv.Close()
	defer slowSrv.Close()
	defer func() {
		select {
		case <-slow.hold:
		default:
			close(slow.hold)
		}
	}()
	budgets := writeFile(t, dir, "budgets.yaml", "budgets:\n  - name: fleet\n    period: monthly\n    amount: 1000\n    notify: [ok, slow]\n")
	targets := writeFile(t, dir, "targets.yaml", "targets:\n  ok: {webhook: {url: "+okSrv.URL+", secret_env: HOOK_SECRET}}\n"+
		"  slow: {webhook: {url: "+slowSrv.URL+", secret_env: HOOK_SECRET, timeout: 1m}}\n")
	getenv := func(k string) string {
		if k == "HOOK_SECRET" {
			return "s3cret-hook-key"
		}
		return ""
	}
	tmap, _, err := notify.ReadTargetsFile(targets, getenv)
	if err != nil {
		t.Fatal(err)
	}
	_, secret, _ := runAt(t, db, demoNow, "token", "create", "--name", "node", "--role", "ingest")
	logs := &lockedBuffer{}
	e := liveEnv(db, logs, getenv)
	e.now = func() time.Time { return demoNow }
	store, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- e.serve(ctx, store, ln, serveOptions{flush: 100 * time.Millisecond, keepMinutes: 24 * time.Hour,
			budgets: budgets, targets: tmap, checkEvery: 100 * time.Millisecond, viewsEvery: time.Minute, maxBill: 1 << 20})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()

	// The demo month has spent far beyond $1,000: actual 50, 80 and 100% and the forecast
	// cross, one alert named by actual 100%.
	waitFor(t, func() bool { return len(ok.received()) >= 1 }, "the ok target's alert while the slow one hangs")
	client := &httpapi.Client{URL: "http://" + ln.Addr().String(), Token: strings.TrimSpace(secret), HTTP: &http.Client{Timeout: 20 * time.Second}}
	g := gpucost.GPU{UUID: "GPU-alerts", Host: "h", Model: "NVIDIA A100-SXM4-80GB"}
	for i := range 20 {
		s := gpucost.NewSample(demoNow.Add(time.Duration(i)*time.Second), g)
		s.Util = 50
		if _, err := client.PostSamples(context.Background(), []gpucost.Sample{s}); err != nil {
			t.Fatalf("ingest while a webhook hangs: %v", err)
		}
	}

	close(slow.hold)
	log := store
	waitFor(t, func() bool {
		ds, _ := log.Deliveries(context.Background(), gpucost.DeliveryFilter{Target: "slow"})
		return len(ds) >= 2 // logged under actual 100% and forecast 100%
	}, "the slow target's alert once released")
	time.Sleep(500 * time.Millisecond) // five more checks
	if got := ok.received(); len(got) != 1 || got[0] != "budget:fleet:2026-12:actual:100" {
		t.Errorf("the ok target got %v over several checks; want budget:fleet:2026-12:actual:100 once", got)
	}
	if got := slow.received(); len(got) != 1 {
		t.Errorf("the slow target got %d alerts; want 1: %v", len(got), got)
	}
	if strings.Contains(logs.String(), "s3cret-hook-key") {
		t.Error("the server log holds the webhook secret")
	}
}

// waitFor polls cond for up to 30 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}
