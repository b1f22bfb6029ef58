package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// storeActivity is the SQLite store's two logs as one ActivityLog, as gpucost serve wires them.
type storeActivity struct {
	enforce.Log
	gpucost.DeliveryLog
}

// activityFixture is a server whose store holds a few actions and delivery attempts, the
// oldest 40 days back.
func activityFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	ctx := context.Background()
	acts, dels := enforce.Log{Store: f.db}, f.db
	cap1 := 1
	for _, a := range []struct {
		ago time.Duration
		a   enforce.Action
	}{
		{40 * 24 * time.Hour, enforce.Action{Policy: "spot-cap", Action: enforce.ActStop, DryRun: true, Result: enforce.ResultPlanned,
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-old"}}},
		{3 * time.Hour, enforce.Action{Policy: "research-stop", Action: enforce.ActStop, Result: enforce.ResultDone,
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-exp1", Region: "us-east-1"},
			Evidence: enforce.Evidence{Rule: "research-tight actual ≥ 60%", Budget: "research-tight", Percent: 70.5}}},
		{2 * time.Hour, enforce.Action{Policy: "spot-cap", Action: enforce.ActStop, Result: enforce.ResultFailed, Error: "IncorrectSpotRequestState",
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-spotB"}, Evidence: enforce.Evidence{SpotCount: 2, SpotCap: &cap1}}},
		{time.Hour, enforce.Action{Policy: "research-stop", Action: enforce.ActNotify, Targets: []string{"ops"}, DryRun: true, Result: enforce.ResultPlanned}},
	} {
		if _, err := acts.RecordAction(ctx, testNow.Add(-a.ago), a.a); err != nil {
			t.Fatal(err)
		}
	}
	for i, d := range []gpucost.Delivery{
		{Key: "budget:research:2026-11:actual:80", Kind: "budget.threshold", Target: "ops", Attempt: 1, Status: 503, Error: "503 Service Unavailable"},
		{Key: "budget:research:2026-11:actual:80", Kind: "budget.threshold", Target: "ops", Attempt: 2, OK: true, Final: true, Status: 200, Duration: 12 * time.Millisecond},
		{Key: "budget:fleet:2026-Q4:forecast:100", Kind: "budget.threshold", Target: "mail", Attempt: 1, OK: true, Final: true, Status: 250},
		{Key: "policy:spot-cap:2026-11-22", Kind: "policy.triggered", Target: "ops", Attempt: 1, OK: true, Final: true, Status: 200},
	} {
		d.At = testNow.Add(time.Duration(i-5) * time.Minute)
		if err := dels.RecordDelivery(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	f.srv.Activity = storeActivity{acts, dels}
	return f
}

func TestActivityActions(t *testing.T) {
	f := activityFixture(t)
	viewer := f.secrets[gpucost.RoleViewer]
	for _, tc := range []struct {
		name, query string
		want        []string // policy/action/resource-or-targets/result, newest first
		total       int
	}{
		{"last 30 days", "", []string{"research-stop notify ops planned", "spot-cap stop i-spotB failed", "research-stop stop i-exp1 done"}, 3},
		{"since 90d", "?since=90d", []string{"research-stop notify ops planned", "spot-cap stop i-spotB failed", "research-stop stop i-exp1 done", "spot-cap stop i-old planned"}, 4},
		{"policy", "?policy=spot-cap&since=60d", []string{"spot-cap stop i-spotB failed", "spot-cap stop i-old planned"}, 2},
		{"result", "?result=done", []string{"research-stop stop i-exp1 done"}, 1},
		{"resource", "?resource=i-spotB", []string{"spot-cap stop i-spotB failed"}, 1},
		{"first page", "?limit=2", []string{"research-stop notify ops planned", "spot-cap stop i-spotB failed"}, 3},
		{"second page", "?limit=2&offset=2", []string{"research-stop stop i-exp1 done"}, 3},
	} {
		status, out := f.do(t, "GET", "/api/v1/actions"+tc.query, viewer, nil)
		var resp ActionsResponse
		if err := json.Unmarshal(out, &resp); status != http.StatusOK || err != nil {
			t.Errorf("%s: GET /api/v1/actions%s = %d %s (%v)", tc.name, tc.query, status, out, err)
			continue
		}
		var got []string
		for _, e := range resp.Actions {
			id := strings.Join(e.Action.Targets, ",")
			if e.Action.Resource != nil {
				id = e.Action.Resource.ID
			}
			got = append(got, strings.Join([]string{e.Action.Policy, e.Action.Action, id, e.Action.Result}, " "))
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") || resp.Page.Total != tc.total {
			t.Errorf("%s: GET /api/v1/actions%s = %q (total %d), want %q (total %d)", tc.name, tc.query, got, resp.Page.Total, tc.want, tc.total)
		}
		if tc.name == "first page" && !strings.Contains(resp.Page.Next, "cursor=") {
			t.Errorf("first page: next = %q, want a cursor", resp.Page.Next)
		}
	}
	status, out := f.do(t, "GET", "/api/v1/actions?result=done", viewer, nil)
	if status != 200 || !strings.Contains(string(out), `"evidence":{"rule":"research-tight actual ≥ 60%"`) {
		t.Errorf("an action's evidence is not in the response: %s", out)
	}
}

func TestActivityDeliveries(t *testing.T) {
	f := activityFixture(t)
	viewer := f.secrets[gpucost.RoleViewer]
	for _, tc := range []struct {
		query string
		want  []string // key target attempt ok
	}{
		{"", []string{"policy:spot-cap:2026-11-22 ops 1 true", "budget:fleet:2026-Q4:forecast:100 mail 1 true",
			"budget:research:2026-11:actual:80 ops 2 true", "budget:research:2026-11:actual:80 ops 1 false"}},
		{"?target=mail", []string{"budget:fleet:2026-Q4:forecast:100 mail 1 true"}},
		{"?budget=research", []string{"budget:research:2026-11:actual:80 ops 2 true", "budget:research:2026-11:actual:80 ops 1 false"}},
		{"?key_prefix=policy:", []string{"policy:spot-cap:2026-11-22 ops 1 true"}},
		{"?since=3m", []string{"policy:spot-cap:2026-11-22 ops 1 true", "budget:fleet:2026-Q4:forecast:100 mail 1 true"}},
	} {
		status, out := f.do(t, "GET", "/api/v1/deliveries"+tc.query, viewer, nil)
		var resp DeliveriesResponse
		if err := json.Unmarshal(out, &resp); status != http.StatusOK || err != nil {
			t.Errorf("GET /api/v1/deliveries%s = %d %s (%v)", tc.query, status, out, err)
			continue
		}
		var got []string
		for _, d := range resp.Deliveries {
			got = append(got, d.Key+" "+d.Target+" "+strconv.Itoa(d.Attempt)+" "+strconv.FormatBool(d.OK))
		}
		if strings.Join(got, "; ") != strings.Join(tc.want, "; ") {
			t.Errorf("GET /api/v1/deliveries%s = %q, want %q", tc.query, got, tc.want)
		}
	}
	_, out := f.do(t, "GET", "/api/v1/deliveries?target=ops&budget=research&limit=1", viewer, nil)
	var resp DeliveriesResponse
	json.Unmarshal(out, &resp)
	if len(resp.Deliveries) != 1 || resp.Deliveries[0].Budget != "research" || resp.Deliveries[0].Threshold != "actual 80%" ||
		resp.Deliveries[0].Period != "2026-11" || resp.Deliveries[0].DurationS != 0.012 || resp.Page.Total != 2 {
		t.Errorf("the latest research alert to ops = %s; want budget research, period 2026-11, threshold actual 80%%, 12 ms, 2 in all", out)
	}
}

func TestActivityRefused(t *testing.T) {
	f := activityFixture(t)
	for _, tc := range []struct {
		path, secret string
		status       int
		says         string
	}{
		{"/api/v1/actions", "", 401, "needs a token"},
		{"/api/v1/deliveries", f.secrets[gpucost.RoleIngest], 403, "needs role viewer or admin"},
		{"/api/v1/actions", f.secrets[gpucost.RoleAdmin], 200, `"actions"`},
		{"/api/v1/actions?result=skipped", f.secrets[gpucost.RoleViewer], 400, "use planned, done, failed"},
		{"/api/v1/actions?since=forever", f.secrets[gpucost.RoleViewer], 400, "parameter since"},
		{"/api/v1/actions?target=ops", f.secrets[gpucost.RoleViewer], 400, "unknown parameter target"},
		{"/api/v1/actions?policy=a&policy=b", f.secrets[gpucost.RoleViewer], 400, "given 2 times"},
		{"/api/v1/deliveries?budget=a&key_prefix=b", f.secrets[gpucost.RoleViewer], 400, "both given"},
		{"/api/v1/deliveries?limit=0", f.secrets[gpucost.RoleViewer], 400, "parameter limit"},
	} {
		status, out := f.do(t, "GET", tc.path, tc.secret, nil)
		if status != tc.status || !strings.Contains(string(out), tc.says) {
			t.Errorf("GET %s = %d %s; want %d saying %q", tc.path, status, out, tc.status, tc.says)
		}
	}
	f.srv.Activity = nil
	if status, _ := f.do(t, "GET", "/api/v1/deliveries", f.secrets[gpucost.RoleViewer], nil); status != http.StatusServiceUnavailable {
		t.Errorf("GET /api/v1/deliveries without an activity log = %d, want 503", status)
	}
}

func TestDeliveryOf(t *testing.T) {
	for _, tc := range []struct {
		key                               string
		budget, period, threshold, policy string
	}{
		{"budget:research:2026-11:actual:80", "research", "2026-11", "actual 80%", ""},
		{"budget:a:b:2026-Q4:forecast:12.5", "a:b", "2026-Q4", "forecast 12.5%", ""},
		{"policy:spot-cap:2026-11-20", "", "2026-11-20", "", "spot-cap"},
		{"budget:short", "", "", "", ""},
		{"", "", "", "", ""},
	} {
		d := DeliveryOf(gpucost.Delivery{Key: tc.key})
		if d.Budget != tc.budget || d.Period != tc.period || d.Threshold != tc.threshold || d.Policy != tc.policy {
			t.Errorf("DeliveryOf(key %q) = budget %q period %q threshold %q policy %q; want %q %q %q %q", tc.key,
				d.Budget, d.Period, d.Threshold, d.Policy, tc.budget, tc.period, tc.threshold, tc.policy)
		}
	}
}

// BenchmarkActions is GET /api/v1/actions?limit=100 over a SQLite log of 5,000 actions in the
// period: the read, the newest-first order and one page as JSON.
func BenchmarkActions(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	acts := enforce.Log{Store: f.db}
	for i := range 5000 {
		a := enforce.Action{Policy: "spot-cap", Action: enforce.ActStop, DryRun: i%2 == 0, Result: enforce.ResultPlanned,
			Resource: &enforce.Ref{Kind: enforce.KindEC2, ID: "i-" + strconv.Itoa(i)}, Evidence: enforce.Evidence{Rule: "spot instances > 40", SpotCount: 41}}
		if _, err := acts.RecordAction(ctx, testNow.Add(-time.Duration(i)*time.Minute), a); err != nil {
			b.Fatal(err)
		}
	}
	f.srv.Activity = storeActivity{acts, f.db}
	viewer := f.secrets[gpucost.RoleViewer]
	b.ReportAllocs()
	for b.Loop() {
		if status, _ := f.do(b, "GET", "/api/v1/actions?limit=100", viewer, nil); status != http.StatusOK {
			b.Fatalf("GET /api/v1/actions = %d", status)
		}
	}
}

// FuzzActivityParams feeds the activity endpoints' parameter reader arbitrary query strings:
// it must accept them or answer EInvalid, and what it accepts starts within ten years of now.
func FuzzActivityParams(f *testing.F) {
	for _, q := range []string{"", "since=7d&policy=spot-cap&result=failed", "since=90m&limit=10&cursor=bzEw", "target=ops&budget=research",
		"key_prefix=budget%3Aresearch%3A&offset=3", "since=2w", "since=0d", "since=-1h", "policy=a&policy=b", "colour=red", "since=3661d", "%zz"} {
		f.Add(q)
	}
	names := []string{"policy", "resource", "result", "target", "budget", "key_prefix"}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		vals, since, err := parseActivity(q, testNow, names)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("parseActivity(%q) error %v has code %s; want invalid", raw, err, gpucost.ErrorCode(err))
			}
			return
		}
		if !since.Before(testNow) || since.Before(testNow.AddDate(-11, 0, 0)) {
			t.Fatalf("parseActivity(%q) since %v; want within ten years before %v", raw, since, testNow)
		}
		for k, v := range vals {
			if v != "" && q.Get(k) != v {
				t.Fatalf("parseActivity(%q)[%s] = %q; the query says %q", raw, k, v, q.Get(k))
			}
		}
		if _, err := parsePaging(q); err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Fatalf("parsePaging(%q): %v", raw, err)
		}
	})
}
