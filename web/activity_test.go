package web

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

func TestActivityPage(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "ivy", gpucost.RoleViewer)
	sc := ts.login(secret)
	for _, tc := range []struct {
		path        string
		says, lacks []string
	}{
		{"/activity?since=7d", []string{"i-0spotB", "i-0exp1", "actual 80%"}, []string{"i-0ancient", "actual 50%"}},
		{"/activity?filter=result=failed", []string{"i-0spotB", "finops-webhook", "connection refused"}, []string{"i-0exp1", "actual 80%"}},
		{"/activity?filter=policy=spot-cap", []string{"i-0spotB", "i-0ancient", "No alert sent in this period"}, []string{"i-0exp1", "research-gpus 2026-11"}},
		{"/activity?filter=target=finops-webhook", []string{"all-aws", "No enforcement action in this period"}, []string{"finops-slack"}},
		{"/activity?filter=budget=research-gpus", []string{"actual 80%", "i-0exp1"}, []string{"all-aws", "i-0spotB"}},
	} {
		res := ts.do("GET", tc.path, nil, sc)
		body := readBody(t, res)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200", tc.path, res.StatusCode)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s does not show %q", tc.path, s)
			}
		}
		for _, s := range tc.lacks {
			if strings.Contains(body, s) {
				t.Errorf("GET %s shows %q, which the period or filter excludes", tc.path, s)
			}
		}
	}
	if q := ts.views.lastQuery(); !q.From.Equal(time.Date(2026, 10, 21, 15, 0, 0, 0, time.UTC)) {
		t.Errorf("the activity page read the logs from %v, want the 30 days to the next hour", q.From)
	}
	res := ts.do("GET", "/activity?filter=colour=red", nil, sc)
	if body := readBody(t, res); res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "filters by action, actor, budget, policy, result, target") {
		t.Errorf("GET /activity?filter=colour=red = %d, want 400 naming the filters", res.StatusCode)
	}
	ts.views.err = gpucost.Errorf(gpucost.EUnavailable, "store: database is locked")
	if res := ts.do("GET", "/activity", nil, sc); res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("GET /activity with the store unavailable = %d, want 503", res.StatusCode)
	}
}

// TestActivityDisabled serves a dashboard without an activity log: the page says how to get one.
func TestActivityDisabled(t *testing.T) {
	ts := newTestSite(t)
	d := &Dashboard{Views: ts.views, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return testNow }, Log: slog.New(slog.DiscardHandler)}
	ts.h = d.Handler()
	secret, _ := ts.tokens.newToken(t, "jo", gpucost.RoleViewer)
	sc := ts.login(secret)
	res := ts.do("GET", "/activity", nil, sc)
	if body := readBody(t, res); res.StatusCode != 200 || !strings.Contains(body, "This server keeps no activity log") || !strings.Contains(body, "--policies policies.yaml") {
		t.Errorf("GET /activity without a log = %d, want 200 saying how to turn alerts and enforcement on:\n%s", res.StatusCode, body)
	}
}

func TestAlertRows(t *testing.T) {
	var got []string
	for _, r := range alertRows(fakeDeliveries(), "", "") {
		got = append(got, r.Key+" "+r.Target+" "+r.Result+" "+strconv.Itoa(r.Attempts))
	}
	want := []string{
		"policy:research-stop:2026-11 finops-slack delivered 1",
		"budget:all-aws:2026-Q4:forecast:100 finops-webhook failed 1",
		"budget:research-gpus:2026-11:actual:80 finops-slack delivered 2",
		"budget:research-gpus:2026-11:actual:50 finops-slack delivered 1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("alertRows(fake) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	ds := fakeDeliveries()[1:2]
	if rows := alertRows(ds, "", ""); len(rows) != 1 || rows[0].Result != "retrying" {
		t.Errorf("alertRows(one failed attempt that is not final) = %+v, want retrying", rows)
	}
	if rows := alertRows(fakeDeliveries(), "", "research-stop"); len(rows) != 1 || rows[0].Policy != "research-stop" {
		t.Errorf("alertRows(policy research-stop) = %+v, want its one alert", rows)
	}
}

// BenchmarkActivityPage is GET /activity over the fake logs: the reads, the folding of attempts
// into alerts and the render.
func BenchmarkActivityPage(b *testing.B) {
	ts, r := benchSite(b, "/activity")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		ts.h.ServeHTTP(w, r)
		if w.Code != http.StatusOK {
			b.Fatalf("GET /activity = %d", w.Code)
		}
	}
}

// TestActivityAudit serves the activity page with an audit trail in a SQLite store: admins see
// the period's entries, filtered by action (a prefix such as bill.) and actor; viewers are told
// it is for admins.
func TestActivityAudit(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, e := range []gpucost.AuditEntry{
		{At: testNow.Add(-40 * day), Actor: "cli root@ops-1", Action: gpucost.AuditTokenRevoke, Target: "token 1 (ancient)"},
		{At: testNow.Add(-3 * time.Hour), Actor: "cli root@ops-1", Action: gpucost.AuditTokenCreate, Target: "token 7 (agents)", Detail: "role ingest", Source: "cli"},
		{At: testNow.Add(-2 * time.Hour), Actor: "token 3 (ci-admin, admin)", Action: gpucost.AuditBillReplace, Target: "import 12 (focus-2026-10.csv)",
			Detail: "1,204 lines → 1,210 lines", Source: "10.0.0.7:51234"},
	} {
		if _, err := db.RecordAudit(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	ts := newTestSite(t)
	d := &Dashboard{Views: ts.views, Activity: ts.views, Audit: db, Tokens: ts.tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
		Now: func() time.Time { return testNow }, Log: slog.New(slog.DiscardHandler)}
	ts.h = d.Handler()
	adminSecret, admin := ts.tokens.newToken(t, "ada", gpucost.RoleAdmin)
	viewerSecret, _ := ts.tokens.newToken(t, "ivy", gpucost.RoleViewer)
	asAdmin, asViewer := ts.login(adminSecret), ts.login(viewerSecret)
	for _, tc := range []struct {
		path        string
		as          *http.Cookie
		says, lacks []string
	}{
		{"/activity", asAdmin, []string{"Audit trail", "token 7 (agents)", "import 12 (focus-2026-10.csv)", "1,204 lines → 1,210 lines", "i-0spotB"},
			[]string{"token 1 (ancient)", "admin tokens only"}},
		{"/activity?since=90d", asAdmin, []string{"token 1 (ancient)", "token 7 (agents)"}, nil},
		{"/activity?filter=action=bill.", asAdmin, []string{"import 12"}, []string{"token 7 (agents)"}},
		{"/activity?filter=action=token.create", asAdmin, []string{"token 7 (agents)"}, []string{"import 12"}},
		{"/activity?filter=actor=cli", asAdmin, []string{"token 7 (agents)"}, []string{"import 12"}},
		{"/activity?filter=action=session.end", asAdmin, []string{"No audited action in this period"}, []string{"import 12", "token 7 (agents)"}},
		{"/activity", asViewer, []string{"Audit trail", "shown to admin tokens only", "i-0spotB"}, []string{"token 7 (agents)", "import 12"}},
	} {
		res := ts.do("GET", tc.path, nil, tc.as)
		body := readBody(t, res)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s = %d, want 200:\n%s", tc.path, res.StatusCode, body)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(body, s) {
				t.Errorf("GET %s does not show %q", tc.path, s)
			}
		}
		for _, s := range tc.lacks {
			if strings.Contains(body, s) {
				t.Errorf("GET %s shows %q, which the period, filter or role excludes", tc.path, s)
			}
		}
	}

	// A logout's session end is kept as the session's token.
	s := &site{d: d}
	r := httptest.NewRequest("POST", "/logout", nil)
	s.recordSessionEnd(r, session{TokenHash: gpucost.HashTokenSecret(adminSecret)})
	got, err := db.Audit(ctx, gpucost.AuditFilter{Action: gpucost.AuditSessionEnd})
	want := "token " + strconv.FormatInt(admin.ID, 10) + " (ada, admin)"
	if err != nil || len(got) != 1 || got[0].Actor != want || !got[0].At.Equal(testNow) || got[0].Source != "192.0.2.1" {
		t.Errorf("after recordSessionEnd: audit = %+v, %v; want one session.end by %s", got, err, want)
	}
}

// TestAlertRowsFoldGPUEvents: a GPU alert message on three GPUs, sent on its second attempt,
// is one row of two attempts and three GPUs, not four rows; events whose message is older than
// the attempts read fold into one row per target and time.
func TestAlertRowsFoldGPUEvents(t *testing.T) {
	at := testNow.Add(-time.Hour)
	msg := "gpu-alerts:gpu_underutilized:gpu.alert.firing:0a1b2c3d4e5f6071"
	fail := gpucost.Delivery{Key: msg, Kind: "gpu.alert.firing", Target: "ops", Attempt: 1, At: at.Add(-time.Minute), Status: 503}
	sent := gpucost.Delivery{Key: msg, Kind: "gpu.alert.firing", Target: "ops", Attempt: 2, At: at, OK: true, Final: true, Status: 200}
	ds := []gpucost.Delivery{fail, sent}
	for _, gpu := range []string{"node-1/GPU-a", "node-1/GPU-b", "node-2/GPU-c"} {
		ev := sent
		ev.Key = "gpu-alert:gpu_underutilized:" + gpu + ":2026-11-20T09:00:00Z"
		ds = append(ds, ev)
	}
	old := gpucost.Delivery{Kind: "gpu.alert.no_data", Target: "ops", Attempt: 1, At: at.Add(-2 * time.Hour), OK: true, Final: true}
	for _, gpu := range []string{"node-3/GPU-d", "node-3/GPU-e"} {
		ev := old
		ev.Key = "gpu-alert:vram_oom_risk:" + gpu + ":2026-11-20T07:00:00Z:no-data"
		ds = append(ds, ev)
	}
	slices.SortStableFunc(ds, func(a, b gpucost.Delivery) int { return a.At.Compare(b.At) })
	rows := alertRows(ds, "", "")
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%s %s %s attempts=%d gpus=%d: %s", r.GPURule, r.Target, r.Result, r.Attempts, r.GPUs, gpuAlertWhat(r)))
	}
	want := []string{
		"gpu_underutilized ops delivered attempts=2 gpus=3: firing on 3 GPUs",
		"vram_oom_risk ops delivered attempts=1 gpus=2: no data from 2 GPUs",
	}
	if !slices.Equal(got, want) {
		t.Errorf("alertRows(a GPU alert message and its events) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var h htmlPage
	writeAlertRow(&h, rows[0])
	if html := h.String(); !strings.Contains(html, "GPU alert gpu_underutilized") || !strings.Contains(html, "firing on 3 GPUs") {
		t.Errorf("writeAlertRow(GPU alert message) = %s, want the rule and its 3 GPUs", html)
	}
}
