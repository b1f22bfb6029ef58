package web

import (
	"context"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenAudit is an audit trail of fixed entries, newest first.
type goldenAudit []gpucost.AuditEntry

func (a goldenAudit) RecordAudit(context.Context, gpucost.AuditEntry) (int64, error) {
	return 0, fmt.Errorf("the golden audit trail is read-only")
}

func (a goldenAudit) Audit(context.Context, gpucost.AuditFilter) ([]gpucost.AuditEntry, error) {
	return a, nil
}

// loadPage loads template's data from d as a viewer with role sees it, the way the page's
// handler does.
func loadPage(t *testing.T, d *Dashboard, template string, role gpucost.Role) any {
	t.Helper()
	for _, p := range pageList {
		if p.template != template {
			continue
		}
		path := strings.TrimSuffix(p.path, "{$}")
		r := httptest.NewRequest("GET", path, nil)
		r = r.WithContext(context.WithValue(r.Context(), viewerKey{}, &viewer{Token: gpucost.Token{Name: "golden", Role: role}}))
		q, err := parseQuery(r, p, d.Now())
		if err != nil {
			t.Fatalf("parseQuery(%s) = %v", path, err)
		}
		data, err := p.load(&site{d: d}, r, q)
		if err != nil {
			t.Fatalf("load %s = %v", path, err)
		}
		return data
	}
	t.Fatalf("no page %s", template)
	return nil
}

// goldenPages are the overview, GPUs, idle, activity and recommendations pages' data: the fake fleet's, a new
// server's, and the fleet's changed to take every branch the writers have.
func goldenPages(t *testing.T) map[string]layout {
	views := newFakeViews(t)
	audit := goldenAudit{
		{At: testNow.Add(-2 * time.Hour), Actor: "token 3 (ci-admin, admin)", Action: gpucost.AuditBillReplace, Target: "import 12 (focus-2026-10.csv)",
			Detail: "1,204 lines → 1,210 lines", Source: "10.0.0.7:51234"},
		{At: testNow.Add(-3 * time.Hour), Actor: "cli root@ops-1", Action: gpucost.AuditTokenCreate, Target: "token 7 (agents)", Detail: "role ingest", Source: "cli"},
	}
	now := func() time.Time { return testNow }
	full := &Dashboard{Views: views, Activity: views, Audit: audit, Now: now}
	empty := &Dashboard{Views: &fakeViews{empty: true}, Activity: &fakeViews{empty: true}, Audit: goldenAudit{}, Now: now}
	noLog := &Dashboard{Views: views, Now: now}
	admin, viewer := gpucost.RoleAdmin, gpucost.RoleViewer
	with := func(d any) layout { return layout{Data: d} }
	pages := map[string]layout{}
	for _, name := range []string{"overview", "gpus", "alerts", "idle", "activity", "recommendations"} {
		tmpl := name + ".html"
		pages[name+"-full"] = with(loadPage(t, full, tmpl, admin))
		pages[name+"-empty"] = with(loadPage(t, empty, tmpl, admin))
	}
	pages["activity-viewer"] = with(loadPage(t, full, "activity.html", viewer))
	pages["activity-nolog"] = with(loadPage(t, noLog, "activity.html", admin))
	for name, l := range hostileLayouts() {
		if name == "overview.html" || name == "activity.html" || name == "recommendations.html" {
			pages[strings.TrimSuffix(name, ".html")+"-hostile"] = l
		}
	}

	o := loadPage(t, full, "overview.html", admin).(overviewPage)
	o.Forecast.HistoryDays, o.NoGPUs, o.Notes = 0, true, []string{"Prices for 2 GPUs are guesses from the bundled catalog."}
	pages["overview-edge"] = with(o)

	g := loadPage(t, empty, "gpus.html", admin).(gpusPage)
	g.Report.Outside, g.Alerts.Series = 3, 6
	pages["gpus-edge"] = with(g)

	i := loadPage(t, full, "idle.html", admin).(idlePage)
	i.Idle.Unpriced, i.Longest = 1, i.Longest[:2]
	i.Longest[1].Priced, i.Longest[1].Cost = false, gpucost.Money{}
	pages["idle-edge"] = with(i)
	i = loadPage(t, full, "idle.html", admin).(idlePage)
	i.Longest[1].Series = nil
	pages["idle-noseries"] = with(i)

	a := loadPage(t, full, "activity.html", admin).(activityPage)
	a.MoreAlerts, a.MoreActions, a.MoreAudit = 5, 3, 7
	for k := range a.Alerts {
		a.Alerts[k].Status = 0
	}
	for k := range a.Actions {
		a.Actions[k].Action.Evidence.Rule = ""
	}
	pages["activity-edge"] = with(a)
	for name, l := range pages {
		if page := strings.SplitN(name, "-", 2)[0]; page == "gpus" || page == "alerts" {
			l.Path = "/" + page // their links keep the page's parameters
			pages[name] = l
		}
	}
	return pages
}

// TestPagesGolden writes the content of the overview, GPUs, idle, activity and recommendations pages from fixed
// data and compares it with testdata/golden; a page whose writer fails has the error first.
// go test ./web -run TestPagesGolden -update rewrites the files.
func TestPagesGolden(t *testing.T) {
	for name, l := range goldenPages(t) {
		page := strings.SplitN(name, "-", 2)[0] + ".html"
		h := &htmlPage{assets: mustAssets()}
		pageWriters[page](h, l)
		got := h.String()
		if h.err != nil {
			got = "error: " + h.err.Error() + "\n" + got
		}
		file := filepath.Join("testdata", "golden", name+".html")
		if *update {
			if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Fatalf("%v: run go test ./web -run TestPagesGolden -update to write it", err)
		}
		if got != string(want) {
			t.Errorf("%s writes content that differs from %s:\n%s", page, file, firstDiff(got, string(want)))
		}
	}
}

// firstDiff shows the line where got and want first differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got  %q\n want %q", i+1, gl, wl)
		}
	}
	return "(same lines, different bytes)"
}
