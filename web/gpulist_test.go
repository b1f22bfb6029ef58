package web

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/httpapi"
)

// fleetViews is the fake fleet grown to n GPUs on hosts of 8, of two models, with a rule
// holding on every GPU whose number divides by 4 (firing) or 6 (no data), twice each on the
// first 100: the size of the fleets the dashboard pages must stay small for.
type fleetViews struct {
	*fakeViews
	n int
}

func (f fleetViews) GPUs(ctx context.Context, q httpapi.Query) (analyze.Report, error) {
	by, _ := analyze.ParseGroupBy(q.By)
	rep := analyze.Report{By: by, From: q.From, To: q.To, Currency: "USD"}
	hosts := map[string]int{}
	for i := range f.n {
		g := fleetGroup(i)
		if q.By == "host" {
			if at, ok := hosts[g.Host]; ok {
				o := &rep.Groups[at]
				o.GPUs++
				o.GPUHours += g.GPUHours
				o.Cost, o.IdleCost = o.Cost.Add(g.Cost), o.IdleCost.Add(g.IdleCost)
				continue
			}
			hosts[g.Host] = len(rep.Groups)
			g.Key = g.Host
		}
		rep.Groups = append(rep.Groups, g)
		rep.Fleet.GPUs++
		rep.Fleet.GPUHours += g.GPUHours
		rep.Fleet.Cost = rep.Fleet.Cost.Add(g.Cost)
	}
	rep.Fleet.Key = "fleet"
	return rep, nil
}

// fleetGroup is GPU i's utilisation over a week.
func fleetGroup(i int) analyze.GroupStats {
	model := "NVIDIA A100-SXM4-80GB"
	if i%3 == 0 {
		model = "NVIDIA H100 80GB HBM3"
	}
	mean := float64(i*37%100) + 0.5
	return analyze.GroupStats{Key: fleetUUID(i), Host: fmt.Sprintf("node-%04d", i/8), Model: model, GPUs: 1, Series: 1,
		GPUHours: 168, UtilMean: analyze.Stat(mean), UtilP95: analyze.Stat(min(mean*1.5, 100)), MemPeakMiB: 40000,
		IdlePct: analyze.Stat(100 - mean), Cost: gpucost.USD(168 * 3_210_000_000),
		IdleCost: gpucost.USD(int64(168*(100-mean)/100) * 3_210_000_000), Verdict: analyze.VerdictFor(mean)}
}

func fleetUUID(i int) string { return fmt.Sprintf("GPU-%08x-aaaa-bbbb-cccc-%012d", i, i) }

func (f fleetViews) Heatmap(ctx context.Context, q httpapi.Query) (httpapi.Heatmap, error) {
	h := httpapi.Heatmap{By: "gpu"}
	for t := q.From; t.Before(q.To); t = t.Add(time.Hour) {
		h.Hours = append(h.Hours, t)
	}
	for i := range f.n {
		row := httpapi.HeatmapRow{Key: fleetUUID(i), Host: fmt.Sprintf("node-%04d", i/8), Util: make([]float64, len(h.Hours))}
		for j := range row.Util {
			row.Util[j] = float64((i*7 + j*13) % 101)
		}
		h.Rows = append(h.Rows, row)
	}
	return h, nil
}

func (f fleetViews) Alerts(ctx context.Context, q httpapi.Query) (analyze.AlertReport, error) {
	rep := analyze.AlertReport{Now: q.To, Rules: analyze.DefaultRules(), Series: f.n}
	for i := range f.n {
		for k := range 1 + btoi(i < 100) {
			a := analyze.Alert{Series: gpucost.Series{GPU: gpucost.GPU{UUID: fleetUUID(i), Host: fmt.Sprintf("node-%04d", i/8)}},
				Start: testNow.Add(-time.Duration(k+1) * 5 * time.Hour), Duration: gpucost.Duration(3 * time.Hour), Evidence: "mean utilisation 3% for 3h (threshold 40%)"}
			switch {
			case i%4 == 0:
				a.Rule, a.State = rep.Rules[0], analyze.Firing
			case i%6 == 0:
				a.Rule, a.State = rep.Rules[1], analyze.AlertNoData
			default:
				continue
			}
			if k == 1 {
				a.State = analyze.Resolved
			}
			rep.Alerts = append(rep.Alerts, a)
		}
	}
	return rep, nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestParseListParams(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  listParams
		err   string
	}{
		{"", listParams{Page: 1, Per: 50, Sort: "idle_cost", Dir: "desc"}, ""},
		{"page=3&per=20&sort=host&q=+node-1+&model=X&idle=1", listParams{Page: 3, Per: 20, Sort: "host", Dir: "asc", Q: "node-1", Model: "X", Idle: true}, ""},
		{"sort=util&dir=asc", listParams{Page: 1, Per: 50, Sort: "util", Dir: "asc"}, ""},
		{"page=0", listParams{}, "page=0"},
		{"per=201", listParams{}, "from 1 to 200"},
		{"sort=cost", listParams{}, "sort by idle_cost, util, gpu_hours, host, model"},
		{"dir=up", listParams{}, "asc or desc"},
		{"idle=yes", listParams{}, "idle=1"},
	} {
		v, _ := url.ParseQuery(tc.query)
		got, err := parseListParams(v, gpuSorts)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("parseListParams(%q) = %v, want an error saying %q", tc.query, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseListParams(%q) = %+v, %v, want %+v", tc.query, got, err, tc.want)
		}
	}
}

// fleetPage loads the GPUs page of a fleet of n GPUs for query.
func fleetPage(t testing.TB, n int, query string) gpusPage {
	t.Helper()
	f := fleetViews{fakeViews: &fakeViews{}, n: n}
	q := httpapi.Query{By: "gpu", From: testNow.Add(-7 * day).Truncate(time.Hour), To: testNow.Truncate(time.Hour)}
	v, _ := url.ParseQuery(query)
	if v.Get("by") == "host" {
		q.By = "host"
	}
	lp, err := parseListParams(v, gpuSorts)
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := f.GPUs(context.Background(), q)
	hm, _ := f.Heatmap(context.Background(), q)
	al, _ := f.Alerts(context.Background(), q)
	return gpuPage(rep, hm, al, lp)
}

func TestGPUPageSortsFiltersAndPages(t *testing.T) {
	for _, tc := range []struct {
		query   string
		matched int
		rows    int
		check   func(a, b analyze.GroupStats) bool // holds for each pair of neighbouring rows
	}{
		{"", 10000, 50, func(a, b analyze.GroupStats) bool { return a.IdleCost.Nanos >= b.IdleCost.Nanos }},
		{"sort=util&dir=asc&page=200", 10000, 50, func(a, b analyze.GroupStats) bool { return a.UtilMean <= b.UtilMean }},
		{"sort=gpu_hours&per=200", 10000, 200, func(a, b analyze.GroupStats) bool { return a.GPUHours >= b.GPUHours }},
		{"sort=host&q=NODE-001", 80, 50, func(a, b analyze.GroupStats) bool { return a.Host <= b.Host && strings.HasPrefix(a.Host, "node-001") }},
		{"sort=model&model=NVIDIA+H100+80GB+HBM3", 3334, 50, func(a, b analyze.GroupStats) bool { return a.Model == "NVIDIA H100 80GB HBM3" }},
		{"idle=1&page=9999", 5000, 50, func(a, b analyze.GroupStats) bool { return a.IdlePct >= idleShare }},
		{"q=no-such-gpu", 0, 0, nil},
		{"by=host&sort=gpu_hours", 1250, 50, func(a, b analyze.GroupStats) bool { return a.GPUs == 8 && a.Key == a.Host }},
	} {
		p := fleetPage(t, 10000, tc.query)
		if p.Span.Total != tc.matched || len(p.Report.Groups) != tc.rows {
			t.Errorf("gpuPage(%q) keeps %d groups and shows %d, want %d and %d", tc.query, p.Span.Total, len(p.Report.Groups), tc.matched, tc.rows)
			continue
		}
		for i := 1; i < len(p.Report.Groups); i++ {
			if a, b := p.Report.Groups[i-1], p.Report.Groups[i]; !tc.check(a, b) {
				t.Errorf("gpuPage(%q): rows %d and %d out of order or filter: %+v, %+v", tc.query, i-1, i, a.Key, b.Key)
				break
			}
		}
		rows := len(p.Report.Groups) * map[bool]int{true: 8, false: 1}[strings.Contains(tc.query, "by=host")]
		if want := min(rows, heatmapCellBudget/168); len(p.Heatmap.Y) != want || p.HeatmapRows != rows {
			t.Errorf("gpuPage(%q): heatmap of %d rows of %d for %d table rows; want %d of %d", tc.query, len(p.Heatmap.Y), p.HeatmapRows, len(p.Report.Groups), want, rows)
		}
	}
	if p := fleetPage(t, 10000, "idle=1&page=9999"); p.Span.Page != 100 || p.Span.From != 4950 {
		t.Errorf("gpuPage(page=9999) shows page %d from row %d, want the last, 100, from 4950", p.Span.Page, p.Span.From)
	}
}

// TestGPUPageLinks checks that the sort and page links keep the period, grouping, filters and
// search, and the count links to the Alerts page.
func TestGPUPageLinks(t *testing.T) {
	p := fleetPage(t, 1000, "q=node-00&sort=util&per=20&page=2")
	l := layout{Path: "/gpus", Query: query{Query: httpapi.Query{By: "gpu"}, Since: "30d", Filter: "team=ml"}, Data: p}
	h := &htmlPage{assets: mustAssets()}
	writeGPUs(h, l)
	body := h.String()
	for _, want := range []string{
		`href="/gpus?by=gpu&amp;filter=team%3Dml&amp;page=3&amp;per=20&amp;q=node-00&amp;since=30d&amp;sort=util">next ›</a>`,
		`href="/gpus?by=gpu&amp;dir=asc&amp;filter=team%3Dml&amp;per=20&amp;q=node-00&amp;since=30d&amp;sort=util"`, // Mean, sorted desc: turn it
		`href="/gpus?by=gpu&amp;filter=team%3Dml&amp;per=20&amp;q=node-00&amp;since=30d&amp;sort=host"`,
		`21–40 of 800 GPUs`, `page 2 of 40`,
		`<input type="hidden" name="since" value="30d">`, `<input type="hidden" name="filter" value="team=ml">`,
		`366 alerts held in this period: 250 firing, 83 whose GPUs stopped reporting, 33 resolved.`,
		`href="/alerts?filter=team%3Dml&amp;since=30d"`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the GPUs page lacks %s", want)
		}
	}
}

// TestListParamsRefused checks that a bad table parameter is a 400 that says what to give.
func TestListParamsRefused(t *testing.T) {
	ts := newTestSite(t)
	secret, _ := ts.tokens.newToken(t, "lists", gpucost.RoleViewer)
	cookie := ts.login(secret)
	for path, want := range map[string]string{
		"/gpus?sort=cost":    "sort by idle_cost, util, gpu_hours, host, model",
		"/gpus?per=1000":     "from 1 to 200",
		"/alerts?page=first": "give a page number from 1",
	} {
		res := ts.do("GET", path, nil, cookie)
		if body := readBody(t, res); res.StatusCode != 400 || !strings.Contains(body, want) {
			t.Errorf("GET %s = %d; want 400 saying %q", path, res.StatusCode, want)
		}
	}
}
