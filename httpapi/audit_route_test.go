package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// auditFixture is a server whose SQLite store holds four audit entries, the oldest 40 days back.
func auditFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	for _, e := range []gpucost.AuditEntry{
		{At: testNow.Add(-40 * 24 * time.Hour), Actor: "cli root@ops-1", Action: gpucost.AuditTokenRevoke, Target: "token 1 (old)", Source: "cli"},
		{At: testNow.Add(-3 * time.Hour), Actor: "cli root@ops-1", Action: gpucost.AuditTokenCreate, Target: "token 7 (agents)", Detail: "role ingest", Source: "cli"},
		{At: testNow.Add(-2 * time.Hour), Actor: "token 3 (ci, admin)", Action: gpucost.AuditBillReplace, Target: "import 12 (a.csv)", Source: "10.0.0.7:5123"},
		{At: testNow.Add(-time.Hour), Actor: "token 3 (ci, admin)", Action: gpucost.AuditBillRemove, Target: "import 9 (b.csv)", Source: "10.0.0.7:5123"},
	} {
		if _, err := f.db.RecordAudit(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	f.srv.Audit = f.db
	return f
}

func TestAuditRoute(t *testing.T) {
	f := auditFixture(t)
	admin := f.secrets[gpucost.RoleAdmin]
	for _, tc := range []struct {
		name, query string
		want        string // targets, newest first
		total       int
	}{
		{"last 30 days", "", "import 9 (b.csv); import 12 (a.csv); token 7 (agents)", 3},
		{"since 90d", "?since=90d", "import 9 (b.csv); import 12 (a.csv); token 7 (agents); token 1 (old)", 4},
		{"action prefix", "?action=bill.", "import 9 (b.csv); import 12 (a.csv)", 2},
		{"action", "?action=token.revoke&since=60d", "token 1 (old)", 1},
		{"actor's leading words", "?actor=token+3", "import 9 (b.csv); import 12 (a.csv)", 2},
		{"actor and action", "?actor=cli&action=token.", "token 7 (agents)", 1},
		{"first page", "?limit=2", "import 9 (b.csv); import 12 (a.csv)", 3},
		{"second page", "?limit=2&offset=2", "token 7 (agents)", 3},
		{"none", "?action=session.end", "", 0},
	} {
		status, out := f.do(t, "GET", "/api/v1/audit"+tc.query, admin, nil)
		var resp AuditResponse
		if err := json.Unmarshal(out, &resp); status != http.StatusOK || err != nil {
			t.Errorf("%s: GET /api/v1/audit%s = %d %s (%v)", tc.name, tc.query, status, out, err)
			continue
		}
		var got []string
		for _, e := range resp.Entries {
			got = append(got, e.Target)
		}
		if strings.Join(got, "; ") != tc.want || resp.Page.Total != tc.total {
			t.Errorf("%s: GET /api/v1/audit%s = %q (total %d), want %q (total %d)", tc.name, tc.query, got, resp.Page.Total, tc.want, tc.total)
		}
	}

	// Following next from the first page reaches the rest.
	_, out := f.do(t, "GET", "/api/v1/audit?limit=2", admin, nil)
	var first, second AuditResponse
	json.Unmarshal(out, &first)
	if !strings.Contains(first.Page.Next, "cursor=") {
		t.Fatalf("first page: next = %q, want a cursor", first.Page.Next)
	}
	_, out = f.do(t, "GET", first.Page.Next, admin, nil)
	if err := json.Unmarshal(out, &second); err != nil || len(second.Entries) != 1 || second.Entries[0].Target != "token 7 (agents)" || second.Page.Next != "" {
		t.Errorf("GET %s = %s; want the last entry and no next", first.Page.Next, out)
	}
	status, out := f.do(t, "GET", "/api/v1/audit?action=bill.remove", admin, nil)
	if status != 200 || !strings.Contains(string(out), `"actor":"token 3 (ci, admin)","action":"bill.remove","target":"import 9 (b.csv)","source":"10.0.0.7:5123"`) {
		t.Errorf("an entry's fields are not in the response: %s", out)
	}
}

func TestAuditRouteRefused(t *testing.T) {
	f := auditFixture(t)
	admin := f.secrets[gpucost.RoleAdmin]
	for _, tc := range []struct {
		path, secret string
		status       int
		says         string
	}{
		{"/api/v1/audit", "", 401, "needs a token"},
		{"/api/v1/audit", f.secrets[gpucost.RoleViewer], 403, "needs role admin"},
		{"/api/v1/audit", f.secrets[gpucost.RoleIngest], 403, "needs role admin"},
		{"/api/v1/audit", f.revoked, 401, ""},
		{"/api/v1/audit?action=bills", admin, 400, "parameter action=\\\"bills\\\": use one of bill.replace"},
		{"/api/v1/audit?action=nope.", admin, 400, "parameter action"},
		{"/api/v1/audit?since=forever", admin, 400, "parameter since"},
		{"/api/v1/audit?policy=p", admin, 400, "unknown parameter policy"},
		{"/api/v1/audit?actor=a&actor=b", admin, 400, "given 2 times"},
		{"/api/v1/audit?limit=0", admin, 400, "parameter limit"},
		{"/api/v1/audit?cursor=x&offset=1", admin, 400, "both given"},
	} {
		status, out := f.do(t, "GET", tc.path, tc.secret, nil)
		if status != tc.status || !strings.Contains(string(out), tc.says) {
			t.Errorf("GET %s = %d %s; want %d saying %q", tc.path, status, out, tc.status, tc.says)
		}
	}
	f.srv.Audit = nil
	if status, _ := f.do(t, "GET", "/api/v1/audit", admin, nil); status != http.StatusServiceUnavailable {
		t.Errorf("GET /api/v1/audit without an audit log = %d, want 503", status)
	}
}

// TestPutBudgetsAudited checks that a budgets replacement is kept in the audit trail with the
// budgets before and after, and that a refused one is not.
func TestPutBudgetsAudited(t *testing.T) {
	f, _ := viewFixture(t, 1)
	f.srv.Budgets, f.srv.Audit = &fakeBudgets{}, f.db
	ctx := context.Background()
	admin := f.secrets[gpucost.RoleAdmin]
	bad := []byte("budgets:\n  - name: research\n    period: weekly\n    amount: 1000\n")
	if status, _ := f.do(t, "PUT", "/api/v1/budgets", admin, bad); status != http.StatusBadRequest {
		t.Fatalf("PUT invalid budgets = %d, want 400", status)
	}
	if got, err := f.db.Audit(ctx, gpucost.AuditFilter{}); err != nil || len(got) != 0 {
		t.Errorf("after a refused PUT: audit = %+v, %v; want nothing", got, err)
	}
	doc := []byte("budgets:\n  - name: research\n    period: monthly\n    amount: 1000\n  - name: fleet\n    period: quarterly\n    amount: 9000\n")
	if status, out := f.do(t, "PUT", "/api/v1/budgets", admin, doc, "Content-Type", "application/yaml"); status != http.StatusOK {
		t.Fatalf("PUT budgets = %d %s", status, out)
	}
	got, err := f.db.Audit(ctx, gpucost.AuditFilter{})
	if err != nil || len(got) != 1 {
		t.Fatalf("after PUT budgets: audit = %+v, %v; want one entry", got, err)
	}
	e := got[0]
	if e.Action != gpucost.AuditBudgetsReplace || !strings.HasPrefix(e.Actor, "token ") || !strings.HasSuffix(e.Actor, "(admin-token, admin)") ||
		!strings.HasSuffix(e.Detail, " → 2 budgets (research, fleet)") || e.Source == "" || !e.At.Equal(testNow) {
		t.Errorf("audit entry = %+v; want budgets.replace by the admin token, ending → 2 budgets (research, fleet)", e)
	}
}

func TestBudgetNames(t *testing.T) {
	many := strings.Split("a b c d e f g h i j k l", " ")
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{nil, "0 budgets"},
		{[]string{"fleet"}, "1 budget (fleet)"},
		{[]string{"fleet", "research"}, "2 budgets (fleet, research)"},
		{many, "12 budgets (a, b, c, d, e, f, g, h, i, j and 2 more)"},
	} {
		if got := budgetNames(tc.names); got != tc.want {
			t.Errorf("budgetNames(%q) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// BenchmarkAudit is GET /api/v1/audit?limit=100 and ?action=bill.&limit=100 over a SQLite trail
// of 5,000 entries in the period: the read, the filter and one page as JSON.
// go test ./httpapi -run XXX -bench Audit
func BenchmarkAudit(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	for i := range 5000 {
		e := gpucost.AuditEntry{At: testNow.Add(-time.Duration(i) * time.Minute), Actor: "token 3 (ci, admin)", Action: gpucost.AuditActions[i%len(gpucost.AuditActions)],
			Target: "import " + strconv.Itoa(i) + " (focus.csv)", Detail: "1,204 lines $10,230.00 → 1,210 lines $10,245.50", Source: "10.0.0.7"}
		if _, err := f.db.RecordAudit(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	f.srv.Audit = f.db
	admin := f.secrets[gpucost.RoleAdmin]
	for _, q := range []string{"?limit=100", "?action=bill.&limit=100"} {
		b.Run(q, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if status, _ := f.do(b, "GET", "/api/v1/audit"+q, admin, nil); status != http.StatusOK {
					b.Fatalf("GET /api/v1/audit%s = %d", q, status)
				}
			}
		})
	}
}
