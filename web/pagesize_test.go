package web

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// maxPageBytes is the most one dashboard page may weigh, its HTML with the chart data.
const maxPageBytes = 300 << 10

// rawFigure finds what a banner must not show a person: a field name, or an amount or count
// printed as a program writes it (181436.47, 12345) rather than as $181,436.47 or 12,345.
var rawFigure = regexp.MustCompile(`\b[a-z]+_[a-z_]+\b|(^|[^0-9,.$])[0-9]{4,}(\.[0-9]+)?\b`)

var noteBanner = regexp.MustCompile(`<p class="note">([^<]*)</p>`)

// TestPageSizes serves every page to a viewer over the fake fleet and over a fleet of 10,000
// GPUs with thousands of alerts, and fails where a page weighs more than 300 KB or a banner
// shows a raw figure or field name.
func TestPageSizes(t *testing.T) {
	for _, fleet := range []struct {
		name  string
		views httpapi.Views
	}{
		{"fake fleet", newFakeViews(t)},
		{"10,000 GPUs", fleetViews{fakeViews: newFakeViews(t), n: 10000}},
	} {
		tokens := &memTokens{}
		d := &Dashboard{Views: fleet.views, Tokens: tokens, Key: []byte("0123456789abcdef0123456789abcdef"),
			Now: func() time.Time { return testNow }, Log: slog.New(slog.DiscardHandler)}
		ts := &testSite{t: t, tokens: tokens, now: testNow, h: d.Handler()}
		secret, _ := tokens.newToken(t, "size", gpucost.RoleViewer)
		cookie := ts.login(secret)
		for _, path := range []string{"/", "/gpus", "/gpus?by=host", "/gpus?per=200", "/gpus?since=30d", "/alerts", "/alerts?per=200",
			"/costs", "/idle", "/recommendations", "/budgets", "/jobs", "/activity"} {
			res := ts.do("GET", path, nil, cookie)
			body, _ := io.ReadAll(res.Body)
			if res.StatusCode != 200 {
				t.Errorf("%s: GET %s = %d", fleet.name, path, res.StatusCode)
				continue
			}
			if len(body) > maxPageBytes {
				t.Errorf("%s: GET %s weighs %d KB; a page may weigh 300 KB", fleet.name, path, len(body)>>10)
			}
			for _, m := range noteBanner.FindAllStringSubmatch(string(body), -1) {
				if raw := rawFigure.FindString(m[1]); raw != "" {
					t.Errorf("%s: GET %s shows a banner with %q: %s", fleet.name, path, raw, m[1])
				}
			}
		}
	}
}

func TestNoteSentence(t *testing.T) {
	for _, tc := range []struct{ note, want string }{
		{"Total USD: billed 181436.47, effective 175002.1.",
			"The USD bill for the period comes to $181,436.47 as billed and $175,002.10 as effective cost, after discounts, credits and amortised commitments."},
		{"12034 stored lines from 3 imports; Cost + Idle reconcile with them to the cent in every currency.",
			"The period's 12,034 stored bill lines come from 3 imports; the cost and idle cost shown reconcile with them to the cent in every currency."},
		{"61 stored lines from 1 import; the bill-priced costs reconcile with them to the cent in every currency.",
			"The period's 61 stored bill lines come from 1 import; the bill-priced costs reconcile with them to the cent in every currency."},
		{"GPU usage lines: 61, 61 with telemetry. Idle is GPU-hours − used GPU-hours (held × utilisation) at each GPU-hour's price.",
			"Telemetry covers 61 of the bill's 61 GPU usage lines. Idle is GPU-hours − used GPU-hours (held × utilisation) at each GPU-hour's price."},
		{"GPU usage lines: 10240, 10001 split by telemetry (policy proportional); idle GPU capacity is in Idle, apart from the users.",
			"Telemetry split 10,001 of the bill's 10,240 GPU usage lines among the GPUs' users (the proportional policy); the idle capacity of those GPUs is shown as idle cost, apart from the users."},
		{"GPU usage lines: 1; the store has no GPU telemetry for the period, so each is charged whole to the owner its tags name.",
			"The store has no GPU telemetry for the period, so each of the bill's 1 GPU usage line is charged whole to the owner its tags name."},
		{"  NVIDIA L4 without a bill line priced at $0.80/GPU-h (aws g6 on-demand, median region)",
			"GPU-hours of the NVIDIA L4 that no bill line covers are priced at $0.80/GPU-h (aws g6 on-demand, median region)."},
		{"Spend in EUR (20512.3 this month) is left out of the USD figures; currencies are never converted.",
			"Spend in EUR (EUR 20,512.30 this month) is left out of the USD figures; currencies are never converted."},
		{"Each step is priced on its group as the steps before it left it; alternatives are not added, so the steps' savings add up to monthly_saving (gpucost report savings).",
			"Each step is priced on its group as the steps before it left it; alternatives are not added, so the steps' savings add up to the plan's monthly saving, the figure gpucost report savings gives."},
		{"12345.6 GPU-hours of models neither the bill nor the catalog prices are not in the costs: GPU-00000001-1111.",
			"12,345.6 GPU-hours of models neither the bill nor the catalog prices are not in the costs: GPU-00000001-1111."},
		{"Prices for 2 GPUs are guesses from the bundled catalog.", "Prices for 2 GPUs are guesses from the bundled catalog."},
	} {
		if got := noteSentence(tc.note); got != tc.want {
			t.Errorf("noteSentence(%q) =\n %q, want\n %q", tc.note, got, tc.want)
		}
		if got := noteSentence(tc.note); rawFigure.MatchString(got) && !strings.Contains(got, "GPU-0000") {
			t.Errorf("noteSentence(%q) = %q still shows %q", tc.note, got, rawFigure.FindString(got))
		}
	}
}

// BenchmarkGPUsPage10k is the GPUs page of a fleet of 10,000 GPUs: filtering, sorting and
// paging the view's groups, and rendering the page of 50 and its heatmap.
func BenchmarkGPUsPage10k(b *testing.B) {
	f := fleetViews{fakeViews: &fakeViews{}, n: 10000}
	q := httpapi.Query{By: "gpu", From: testNow.Add(-7 * day).Truncate(time.Hour), To: testNow.Truncate(time.Hour)}
	rep, _ := f.GPUs(b.Context(), q)
	hm, _ := f.Heatmap(b.Context(), q)
	al, _ := f.Alerts(b.Context(), q)
	r := httptest.NewRequest("GET", "/gpus?sort=util&q=node-&page=3", nil)
	lp, err := parseListParams(r.URL.Query(), gpuSorts)
	if err != nil {
		b.Fatal(err)
	}
	site := &site{d: &Dashboard{Now: func() time.Time { return testNow }}, assets: mustAssets()}
	p := pageList[1]
	b.ReportAllocs()
	var size int
	for b.Loop() {
		data := gpuPage(rep, hm, al, lp)
		w := httptest.NewRecorder()
		site.render(w, r, 200, p.template, layout{Page: &p, Title: p.title, Data: data})
		size = w.Body.Len()
	}
	if size > maxPageBytes {
		b.Fatalf("the page weighs %d bytes", size)
	}
	b.ReportMetric(float64(size), "bytes/page")
}
