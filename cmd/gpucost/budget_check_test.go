package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost/budget/alert"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/present"
)

const (
	leadsSecret = "leads-hmac-secret-3f9a"
	ctoSecret   = "cto-hmac-secret-77c1"
)

// hookReceiver is a webhook endpoint that checks each request's HMAC signature and keeps the
// payloads, or answers 503 while down is set.
type hookReceiver struct {
	t      *testing.T
	secret string
	down   atomic.Bool
	hits   atomic.Int32
	mu     sync.Mutex
	got    []notify.WebhookPayload
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.hits.Add(1)
	if h.down.Load() {
		http.Error(w, "maintenance", http.StatusServiceUnavailable)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if err := notify.Verify(h.secret, r.Header, body, time.Now(), 5*time.Minute); err != nil {
		h.t.Errorf("webhook signature: %v", err)
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var p notify.WebhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		h.t.Errorf("webhook body: %v", err)
	}
	if r.Header.Get(notify.HeaderKey) != p.Key {
		h.t.Errorf("Idempotency-Key %q, payload key %q", r.Header.Get(notify.HeaderKey), p.Key)
	}
	h.mu.Lock()
	h.got = append(h.got, p)
	h.mu.Unlock()
}

func (h *hookReceiver) payloads() []notify.WebhookPayload {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]notify.WebhookPayload(nil), h.got...)
}

func runCheckCLI(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	secrets := map[string]string{"LEADS_SECRET": leadsSecret, "CTO_SECRET": ctoSecret}
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return secrets[k] },
		now: func() time.Time { return budgetNow }}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	if s := out.String() + errb.String(); strings.Contains(s, leadsSecret) || strings.Contains(s, ctoSecret) {
		t.Errorf("a secret is in the output:\n%s", s)
	}
	return code, out.String(), errb.String()
}

func TestBudgetCheckDeliversOnce(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	leads := &hookReceiver{t: t, secret: leadsSecret}
	cto := &hookReceiver{t: t, secret: ctoSecret}
	cto.down.Store(true)
	leadsSrv, ctoSrv := httptest.NewServer(leads), httptest.NewServer(cto)
	defer leadsSrv.Close()
	defer ctoSrv.Close()
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	targets := writeFile(t, dir, "targets.yaml", `targets:
  finops: {webhook: {url: "`+leadsSrv.URL+`/finops", secret_env: LEADS_SECRET}}
  leads:  {webhook: {url: "`+leadsSrv.URL+`/leads/hook", secret_env: LEADS_SECRET}}
  cto:    {webhook: {url: "`+ctoSrv.URL+`/cto/hook", secret_env: CTO_SECRET}}
`)
	check := []string{"budget", "check", "--file", budgets, "--targets", targets, "--backoff", "1ms", "--attempts", "3"}

	// A dry run sends and records nothing.
	code, out, errOut := runCheckCLI(t, db, append(check, "--dry-run")...)
	if code != exitOK || !strings.Contains(out, "Alerts: 2 would send.") || leads.hits.Load()+cto.hits.Load() != 0 {
		t.Fatalf("dry run: exit %d, %d requests, stderr %s\n%s", code, leads.hits.Load()+cto.hits.Load(), errOut, out)
	}

	// research-tight crossed actual 50% (leads) and forecast 100% (leads, cto): one alert to
	// each target, named by the forecast; cto is down.
	code, out, errOut = runCheckCLI(t, db, append(check, "--output", "json")...)
	if code != exitUnavailable || !strings.Contains(errOut, "1 alert deliveries failed") {
		t.Fatalf("first check: exit %d, want %d; stderr %s\n%s", code, exitUnavailable, errOut, out)
	}
	var res []alert.Outcome
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 2 {
		t.Fatalf("first check json: %v\n%s", err, out)
	}
	want := []struct{ key, target, result string }{
		{"budget:research-tight:2026-11:forecast:100", "leads", alert.Sent},
		{"budget:research-tight:2026-11:forecast:100", "cto", alert.Failed},
	}
	for i, w := range want {
		if r := res[i]; r.Key != w.key || r.Target != w.target || r.Result != w.result {
			t.Errorf("alert %d = %+v; want %v", i, r, w)
		}
	}
	if strings.Join(res[0].Also, ",") != "actual 50%" || res[1].Also != nil {
		t.Errorf("alerts also report %q and %q; want actual 50%% to leads only", res[0].Also, res[1].Also)
	}
	if res[1].Attempts != 3 || res[1].Status != 503 || !strings.Contains(res[1].Error, "gave up after 3 attempt(s)") ||
		strings.Contains(res[1].Error, "/cto/hook") || cto.hits.Load() != 3 {
		t.Errorf("failing target: %+v after %d requests; want 3 attempts, 503, URL path redacted", res[1], cto.hits.Load())
	}
	checkPayloads(t, leads.payloads())

	// Again, as cron would: nothing reaches leads twice; cto is retried and still down.
	code, out, _ = runCheckCLI(t, db, check...)
	if code != exitUnavailable || !strings.Contains(out, "Alerts: 1 already delivered, 1 failed.") || len(leads.payloads()) != 1 || cto.hits.Load() != 6 {
		t.Fatalf("second check: exit %d, %d to leads, %d to cto\n%s", code, len(leads.payloads()), cto.hits.Load(), out)
	}
	cto.down.Store(false)
	code, out, _ = runCheckCLI(t, db, check...)
	if code != exitOK || !strings.Contains(out, "1 sent, 1 already delivered") || len(cto.payloads()) != 1 {
		t.Fatalf("third check, cto back: exit %d, %d to cto\n%s", code, len(cto.payloads()), out)
	}
	code, out, _ = runCheckCLI(t, db, check...)
	if code != exitOK || !strings.Contains(out, "Alerts: 2 already delivered.") || len(leads.payloads())+len(cto.payloads()) != 2 {
		t.Fatalf("fourth check: exit %d\n%s", code, out)
	}
	code, out, _ = runCheckCLI(t, db, "budget", "check", "--file", budgets, "--dry-run")
	if code != exitOK || !strings.Contains(out, "Alerts: 2 already delivered.") || strings.Contains(out, "would send") {
		t.Errorf("dry run after delivery: exit %d\n%s", code, out)
	}
	checkDeliveryLog(t, db)
}

func checkPayloads(t *testing.T, got []notify.WebhookPayload) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("leads received %d alerts, want 1", len(got))
	}
	p := got[0]
	if p.Key != "budget:research-tight:2026-11:forecast:100" || p.Kind != "budget.forecast" || p.Severity != notify.SeverityWarning ||
		!strings.Contains(p.Subject, "projected to exceed 100% in 2026-11") {
		t.Errorf("alert = %+v", p)
	}
	if !strings.Contains(p.Text, "of its $50,000.00 monthly budget for 2026-11") || !strings.Contains(p.Text, "is left for 11 days") ||
		!strings.Contains(p.Text, "Also crossed: actual 50%.") {
		t.Errorf("alert text = %s", p.Text)
	}
	names := []string{}
	for _, f := range p.Fields {
		names = append(names, f.Name)
		if f.Name == "Alert key" && f.Value != p.Key {
			t.Errorf("Alert key field %q, want %q", f.Value, p.Key)
		}
		if f.Name == "Crossed" && f.Value != "forecast 100%, actual 50%" {
			t.Errorf("Crossed field %q, want forecast 100%%, actual 50%%", f.Value)
		}
	}
	if strings.Join(names, ",") != "Budget,Period,Threshold,Crossed,Amount,Spent,Forecast,Left,Days left,Burn/day,Allowed/day,Alert key" {
		t.Errorf("fields = %v", names)
	}
}

func checkDeliveryLog(t *testing.T, db string) {
	t.Helper()
	code, out, errOut := runCheckCLI(t, db, "budget", "deliveries", "--output", "json")
	var rows []present.BudgetDelivery
	if code != exitOK || json.Unmarshal([]byte(out), &rows) != nil {
		t.Fatalf("budget deliveries: exit %d, stderr %s\n%s", code, errOut, out)
	}
	// leads: 1 sent, logged under its forecast and actual keys; cto: 3 failed attempts twice,
	// then 1 sent.
	ok, final := 0, 0
	for _, r := range rows {
		if r.OK {
			ok++
		}
		if r.Final {
			final++
		}
	}
	if len(rows) != 9 || ok != 3 || final != 5 {
		t.Errorf("delivery log: %d rows, %d ok, %d final; want 9, 3, 5\n%s", len(rows), ok, final, out)
	}
	code, out, _ = runCheckCLI(t, db, "budget", "deliveries", "--target", "cto", "--budget", "research-tight")
	if code != exitOK || strings.Count(out, "failed, retried") != 4 || strings.Count(out, "delivered") != 1 || strings.Contains(out, "leads") {
		t.Errorf("budget deliveries --target cto: exit %d\n%s", code, out)
	}
}

func TestBudgetCheckInvalid(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "none.db")
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	partial := writeFile(t, dir, "partial.yaml", "targets:\n  leads: {webhook: {url: \"https://hooks.example/x\", secret_env: LEADS_SECRET}}\n")
	unset := writeFile(t, dir, "unset.yaml", "targets:\n  leads: {webhook: {url: \"https://hooks.example/x\", secret_env: NOPE}}\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no file", []string{"--targets", partial}, "--file is required"},
		{"no targets", []string{"--file", budgets}, "--targets is required"},
		{"unknown target", []string{"--file", budgets, "--targets", partial}, `budgets.yaml:2: budget research-roomy notifies target "finops" (thresholds actual 50%, actual 80%, actual 100%, forecast 100%), which is not in`},
		{"unset secret", []string{"--file", budgets, "--targets", unset}, "unset.yaml:2: targets.leads.webhook.secret_env: environment variable NOPE is not set"},
		{"bad attempts", []string{"--file", budgets, "--dry-run", "--attempts", "0"}, "--attempts 0"},
	} {
		code, _, errOut := runCheckCLI(t, db, append([]string{"budget", "check"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("budget check %s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut, exitInvalid, tc.want)
		}
	}
	// Without a store nothing is spent, nothing crosses, and no store file is made.
	code, out, _ := runCheckCLI(t, db, "budget", "check", "--file", budgets, "--dry-run")
	if code != exitOK || !strings.Contains(out, "no threshold crossed") {
		t.Errorf("check without a store: exit %d\n%s", code, out)
	}
	code, out, _ = runCheckCLI(t, db, "budget", "deliveries")
	if code != exitOK || !strings.Contains(out, "No store file") || fileExists(db) {
		t.Errorf("deliveries without a store: exit %d, file made %v\n%s", code, fileExists(db), out)
	}
}
