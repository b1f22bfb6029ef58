package main

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// TestBudgetCheckOneAlertPerCheck: a budget found at 121% with thresholds 50, 80 and 100% sends
// one webhook, critical, named by 100%; a second check sends nothing; at 155% one more, named
// by 150%.
func TestBudgetCheckOneAlertPerCheck(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	hook := &hookReceiver{t: t, secret: leadsSecret}
	srv := httptest.NewServer(hook)
	defer srv.Close()
	targets := writeFile(t, dir, "targets.yaml", "targets:\n  hook: {webhook: {url: \""+srv.URL+"\", secret_env: LEADS_SECRET}}\n")
	budgets := func(amount gpucost.Money) string {
		return writeFile(t, dir, "budgets.yaml", fmt.Sprintf(`budgets:
  - name: research-gpus
    scope: {team: research, gpu_only: true}
    period: monthly
    amount: %s
    notify: [hook]
    thresholds: [{actual: 50}, {actual: 80}, {actual: 100}, {actual: 150}]
`, amount.Fixed(2)))
	}

	code, out, errOut := runCheckCLI(t, db, "budget", "status", "--file", budgets(gpucost.USD(1e12)), "--output", "json")
	var st []struct {
		Spent string `json:"spent"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil || len(st) != 1 {
		t.Fatalf("budget status: exit %d, stderr %s\n%s", code, errOut, out)
	}
	spent, err := gpucost.ParseMoney(st[0].Spent, "USD")
	if err != nil {
		t.Fatal(err)
	}
	check := func(amount gpucost.Money) string {
		t.Helper()
		code, out, errOut := runCheckCLI(t, db, "budget", "check", "--file", budgets(amount), "--targets", targets, "--backoff", "1ms")
		if code != exitOK {
			t.Fatalf("budget check: exit %d, stderr %s\n%s", code, errOut, out)
		}
		return out
	}

	out = check(spent.MulFloat(1 / 1.21))
	got := hook.payloads()
	if len(got) != 1 {
		t.Fatalf("first check at 121%%: %d webhooks, want 1\n%s", len(got), out)
	}
	p := got[0]
	if p.Severity != notify.SeverityCritical || !strings.Contains(p.Subject, "Budget research-gpus reached 121% (threshold 100%) in 2026-11") ||
		p.Key != "budget:research-gpus:2026-11:actual:100" || !strings.Contains(p.Text, "Also crossed: actual 80%, actual 50%.") {
		t.Errorf("webhook = %s %q key %s\n%s", p.Severity, p.Subject, p.Key, p.Text)
	}
	if !strings.Contains(out, "actual 100% (also actual 80%, actual 50%)") || !strings.Contains(out, "Alerts: 1 sent.") {
		t.Errorf("first check table:\n%s", out)
	}

	out = check(spent.MulFloat(1 / 1.21))
	if len(hook.payloads()) != 1 || !strings.Contains(out, "Alerts: 1 already delivered.") {
		t.Errorf("second check: %d webhooks in all, want still 1\n%s", len(hook.payloads()), out)
	}

	out = check(spent.MulFloat(1 / 1.55))
	got = hook.payloads()
	if len(got) != 2 || !strings.Contains(got[1].Subject, "reached 155% (threshold 150%)") || strings.Contains(got[1].Text, "Also crossed") {
		t.Fatalf("check at 155%%: %d webhooks in all, want 2, the last named by 150%%\n%s", len(got), out)
	}
	if len(check(spent.MulFloat(1/1.55))) == 0 || len(hook.payloads()) != 2 {
		t.Errorf("check at 155%% again: %d webhooks in all, want 2", len(hook.payloads()))
	}
}
