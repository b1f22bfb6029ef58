package web

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// benchSite returns a site over the fake fleet and a request for path with a viewer's session.
func benchSite(b *testing.B, path string) (*testSite, *http.Request) {
	ts := newTestSite(b)
	secret, _ := ts.tokens.newToken(b, "bench", gpucost.RoleViewer)
	sc := ts.login(secret)
	r := httptest.NewRequest("GET", path, nil)
	r.AddCookie(sc)
	return ts, r
}

// BenchmarkOverviewRender is the overview's server-side render time: the data is loaded
// once, and each iteration renders the page.
func BenchmarkOverviewRender(b *testing.B) {
	ts, r := benchSite(b, "/")
	site := &site{d: &Dashboard{Views: ts.views, Tokens: ts.tokens, Key: []byte("k"), Now: func() time.Time { return testNow }}}
	site.keys, site.assets = newKeys(site.d.Key), mustAssets()
	p := pageList[0]
	q, _ := parseQuery(r, p, testNow)
	data, err := p.load(site, r, q)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		site.render(w, r, 200, p.template, layout{Page: &p, Title: p.title, Query: q, Data: data})
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkOverviewServe is a whole overview request: the session and token check, the fake
// views (which compute the forecast and budgets each time) and the render.
func BenchmarkOverviewServe(b *testing.B) {
	ts, r := benchSite(b, "/")
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		ts.h.ServeHTTP(w, r)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}

// BenchmarkGPUsHeatmapRender renders the GPUs page for 200 GPUs over 30 days: 144,000 cells.
func BenchmarkGPUsHeatmapRender(b *testing.B) {
	ts, r := benchSite(b, "/gpus?since=30d")
	hm := httpapi.Heatmap{By: "gpu"}
	for h := range 30 * 24 {
		hm.Hours = append(hm.Hours, testNow.Add(time.Duration(h-720)*time.Hour))
	}
	for g := range 200 {
		row := httpapi.HeatmapRow{Key: fmt.Sprintf("GPU-%036d", g), Host: fmt.Sprintf("host-%d", g/8), Util: make([]float64, len(hm.Hours))}
		for i := range row.Util {
			row.Util[i] = float64((g*7 + i*13) % 101)
		}
		hm.Rows = append(hm.Rows, row)
	}
	rep, _ := ts.views.GPUs(context.Background(), httpapi.Query{By: "gpu"})
	data := gpusPage{Heatmap: heatmap(hm), Report: rep}
	site := &site{d: &Dashboard{Now: func() time.Time { return testNow }}, assets: mustAssets()}
	p := pageList[1]
	b.ReportAllocs()
	var size int
	for b.Loop() {
		w := httptest.NewRecorder()
		site.render(w, r, 200, p.template, layout{Page: &p, Title: p.title, Data: data})
		size = w.Body.Len()
	}
	b.ReportMetric(float64(size), "bytes/page")
}
