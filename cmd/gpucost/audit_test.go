package main

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/gpucost/gpucost/server"
)

var auditNow = time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)

// TestAuditCommand makes and revokes a token on SQLite and on PostgreSQL and reads both back
// from gpucost audit: newest first, by this command line's user, filtered, in every --output.
func TestAuditCommand(t *testing.T) {
	for _, store := range []struct{ name, db string }{
		{"sqlite", filepath.Join(t.TempDir(), "gpucost.db")},
		{"postgres", ""},
	} {
		t.Run(store.name, func(t *testing.T) {
			db := store.db
			if db == "" {
				db = pgtest.Start(t)
			}
			testAuditCommand(t, db)
		})
	}
}

func testAuditCommand(t *testing.T, db string) {
	if code, _, errOut := runAt(t, db, auditNow.Add(-10*24*time.Hour), "token", "create", "--name", "old", "--role", "viewer"); code != exitOK {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runAt(t, db, auditNow.Add(-time.Hour), "token", "create", "--name", "ci", "--role", "admin", "--output", "json"); code != exitOK {
		t.Fatalf("token create --output json: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runAt(t, db, auditNow, "token", "revoke", "2"); code != exitOK {
		t.Fatalf("token revoke 2: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runAt(t, db, auditNow, "audit", "--output", "json")
	var entries []gpucost.AuditEntry
	if err := json.Unmarshal([]byte(out), &entries); code != exitOK || err != nil {
		t.Fatalf("audit --output json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Action+" "+e.Target+" "+e.Detail)
		if !strings.HasPrefix(e.Actor, "cli ") || e.Actor != cliActor() || e.Source != "cli" {
			t.Errorf("entry %+v: want actor %q from cli", e, cliActor())
		}
	}
	want := "token.revoke token 2 (ci) role admin; token.create token 2 (ci) role admin; token.create token 1 (old) role viewer"
	if strings.Join(got, "; ") != want || !entries[0].At.Equal(auditNow) {
		t.Errorf("audit = %q at %v, want %q (newest first) at %v", got, entries[0].At, want, auditNow)
	}
	for _, tc := range []struct {
		args        []string
		says, lacks []string
	}{
		{nil, []string{"Audit trail", "token.revoke", "token 2 (ci)", "token 1 (old)", "role viewer"}, nil},
		{[]string{"--since", "7d"}, []string{"token 2 (ci)"}, []string{"token 1 (old)"}},
		{[]string{"--action", "token.revoke"}, []string{"token.revoke"}, []string{"token.create"}},
		{[]string{"--action", "token."}, []string{"token.revoke", "token.create"}, nil},
		{[]string{"--action", "bill."}, []string{"No audit entry matches."}, []string{"token"}},
		{[]string{"--actor", "cli"}, []string{"token 1 (old)"}, nil},
		{[]string{"--actor", "token 3"}, []string{"No audit entry matches."}, []string{"token 1 (old)"}},
		{[]string{"--limit", "1"}, []string{"token.revoke", "The latest 1 entries"}, []string{"token.create"}},
		{[]string{"--output", "csv"}, []string{"id,time,actor,action,target,detail,source\n3,2026-12-02T00:00:00Z,"}, nil},
	} {
		code, out, errOut := runAt(t, db, auditNow, append([]string{"audit"}, tc.args...)...)
		all := out + errOut
		if code != exitOK {
			t.Errorf("audit %q: exit %d\n%s", tc.args, code, all)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(all, s) {
				t.Errorf("audit %q does not say %q:\n%s", tc.args, s, all)
			}
		}
		for _, s := range tc.lacks {
			if strings.Contains(out, s) {
				t.Errorf("audit %q shows %q:\n%s", tc.args, s, out)
			}
		}
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--action", "bills"}, "use one of bill.replace"},
		{[]string{"--limit", "-1"}, "--limit -1"},
		{[]string{"--since", "forever"}, "--since"},
		{[]string{"--output", "yaml"}, "--output"},
		{[]string{"extra"}, "unknown command"},
	} {
		if code, _, errOut := runAt(t, db, auditNow, append([]string{"audit"}, tc.args...)...); code != exitInvalid || !strings.Contains(errOut, tc.says) {
			t.Errorf("audit %q: exit %d, want %d saying %q:\n%s", tc.args, code, exitInvalid, tc.says, errOut)
		}
	}
}

// TestAuditNoStore reads the audit trail of a store that does not exist yet, without making it.
func TestAuditNoStore(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none.db")
	code, out, errOut := runAt(t, db, auditNow, "audit", "--output", "json")
	if code != exitOK || strings.TrimSpace(out) != "[]" || !strings.Contains(errOut, "nothing has been audited") || fileExists(db) {
		t.Errorf("audit without a store: exit %d, %q, %q; want [] and a note, and no file made", code, out, errOut)
	}
}

// TestAuditHelpExamples runs every example of gpucost audit --help as written, on a store that
// holds an entry.
func TestAuditHelpExamples(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gpucost.db")
	if code, _, errOut := runAt(t, db, auditNow, "token", "create", "--name", "ci", "--role", "admin"); code != exitOK {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	code, help, _ := runAt(t, db, auditNow, "audit", "--help")
	if code != exitOK || !strings.Contains(help, "Examples:") {
		t.Fatalf("audit --help: exit %d, no examples:\n%s", code, help)
	}
	n := 0
	for _, line := range strings.Split(newAuditCmd(&env{}).Example, "\n") {
		args := exampleWords(t, strings.TrimSpace(line))
		if len(args) < 2 || args[0] != "gpucost" {
			continue
		}
		n++
		if !strings.Contains(help, strings.TrimSpace(line)) {
			t.Errorf("audit --help lacks the example %q", line)
		}
		if code, _, errOut := runAt(t, db, auditNow, args[1:]...); code != exitOK {
			t.Errorf("example %q: exit %d\n%s", line, code, errOut)
		}
	}
	if n < 3 {
		t.Errorf("audit --help has %d examples, want at least 3", n)
	}
}

// checkEnforceAudit checks that gpucost enforce kept the actions it carried out in the audit
// trail, as this command line's user, and none of its dry run's.
func checkEnforceAudit(t *testing.T, db string) {
	t.Helper()
	code, out, errOut := runEnforceCLI(t, db, "audit", "--action", "enforce", "--output", "json")
	var entries []gpucost.AuditEntry
	if err := json.Unmarshal([]byte(out), &entries); code != exitOK || err != nil {
		t.Fatalf("audit --action enforce: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	targets := map[string]string{}
	for _, e := range entries {
		if e.Actor != cliActor() || e.Source != "cli" || strings.HasSuffix(e.Detail, " planned") {
			t.Errorf("enforce audit entry %+v: want one carried out, by %s", e, cliActor())
		}
		targets[e.Target] += e.Detail + "; "
	}
	if d := targets["ec2-instance i-exp1 (us-east-1)"]; !strings.Contains(d, "policy research-stop: stop done") || !strings.Contains(d, "policy research-stop: tag done") {
		t.Errorf("audit of i-exp1 = %q; want its tag and stop by research-stop, done (entries %+v)", d, entries)
	}
	if d := targets["ec2-instance i-spotB (us-east-1)"]; !strings.Contains(d, "policy spot-cap: stop done") {
		t.Errorf("audit of i-spotB = %q; want its stop by spot-cap (entries %+v)", d, entries)
	}
}

// checkServeEnforceAudit checks that gpucost serve --apply kept its stop of i-exp1 in the audit
// trail as the server's policies.
func checkServeEnforceAudit(t *testing.T, db string) {
	t.Helper()
	code, out, errOut := runAt(t, db, budgetNow, "audit", "--action", "enforce", "--output", "json")
	var entries []gpucost.AuditEntry
	if err := json.Unmarshal([]byte(out), &entries); code != exitOK || err != nil {
		t.Fatalf("audit --action enforce: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	if len(entries) != 1 || entries[0].Actor != server.Actor() || entries[0].Source != "serve" ||
		entries[0].Target != "ec2-instance i-exp1 (us-east-1)" || entries[0].Detail != "policy research-stop: stop done" {
		t.Errorf("audit after serve --apply = %+v; want i-exp1's stop once, by %s", entries, server.Actor())
	}
}

// TestServeAudit runs gpucost serve: a budgets replacement through the API is kept in the
// audit trail as the admin token that sent it, beside the command line's token.create, and GET
// /api/v1/audit shows both to admins only.
func TestServeAudit(t *testing.T) {
	db := filepath.Join(t.TempDir(), "gpucost.db")
	code, secret, errOut := runAt(t, db, budgetNow, "token", "create", "--name", "ops", "--role", "admin")
	if code != exitOK {
		t.Fatalf("token create: exit %d\n%s", code, errOut)
	}
	admin := strings.TrimSpace(secret)
	s := startEnforcingServer(t, db, serveOptions{flush: time.Second, keepMinutes: 24 * time.Hour, viewsEvery: time.Minute,
		maxBill: 1 << 20, checkEvery: time.Hour})
	defer s.stop()
	call := func(method, path, token, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.url+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/yaml")
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	if status, out := call("PUT", "/api/v1/budgets", admin, demoBudgets); status != http.StatusOK {
		t.Fatalf("PUT /api/v1/budgets = %d %s", status, out)
	}
	if status, _ := call("GET", "/api/v1/audit", s.viewer, ""); status != http.StatusForbidden {
		t.Errorf("GET /api/v1/audit as a viewer = %d, want 403", status)
	}
	status, out := call("GET", "/api/v1/audit", admin, "")
	var resp httpapi.AuditResponse
	if err := json.Unmarshal([]byte(out), &resp); status != http.StatusOK || err != nil {
		t.Fatalf("GET /api/v1/audit = %d %s (%v)", status, out, err)
	}
	var got []string
	for _, e := range resp.Entries {
		got = append(got, e.Action+" "+e.Target+" by "+e.Actor)
	}
	want := []string{"budgets.replace budgets by token 1 (ops, admin)", "token.create token 2 (viewer) by " + cliActor(), "token.create token 1 (ops) by " + cliActor()}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Fatalf("GET /api/v1/audit = %q, want %q", got, want)
	}
	if d := resp.Entries[0].Detail; !strings.HasPrefix(d, "0 budgets → 3 budgets (research-roomy, research-tight, inference)") || resp.Entries[0].Source == "" {
		t.Errorf("budgets.replace detail %q from %q; want none before, the three after, and the client's address", d, resp.Entries[0].Source)
	}
}
