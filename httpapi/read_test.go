package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/queue"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/spot"
)

// fakeViews serves fixed views of n groups each and remembers the last query.
type fakeViews struct {
	n    int
	mu   sync.Mutex
	last Query
	err  error
}

func (v *fakeViews) saw(q Query) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.last = q
	return v.err
}

func (v *fakeViews) query() Query {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.last
}

func usd(s string) gpucost.Money {
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		panic(err)
	}
	return m
}

func (v *fakeViews) Overview(ctx context.Context, now time.Time) (Overview, error) {
	return Overview{Now: now, MonthToDate: usd("100.50"), GPUs: 8, IdlePercent: 25, Budgets: []budget.Status{}}, v.saw(Query{})
}

func (v *fakeViews) GPUs(ctx context.Context, q Query) (analyze.Report, error) {
	rep := analyze.Report{From: q.From, To: q.To, Fleet: analyze.GroupStats{Key: analyze.FleetGroup, GPUs: v.n}}
	for i := range v.n {
		rep.Groups = append(rep.Groups, analyze.GroupStats{Key: fmt.Sprintf("GPU-%04d", i), GPUs: 1, UtilMean: 50})
	}
	return rep, v.saw(q)
}

func (v *fakeViews) Heatmap(ctx context.Context, q Query) (Heatmap, error) {
	return Heatmap{By: "gpu", Hours: []time.Time{testNow}, Rows: []HeatmapRow{{Key: "GPU-1", Util: []float64{-1}}}}, v.saw(q)
}

func (v *fakeViews) Costs(ctx context.Context, q Query) (CostReport, error) {
	rep := CostReport{By: q.By, Reconciled: true, Total: []gpucost.Money{usd("10")}, Bill: []gpucost.Money{usd("10")}}
	for i := range v.n {
		rep.Groups = append(rep.Groups, CostGroup{Group: fmt.Sprintf("team-%d", i), Currency: "USD", CostLessIdle: usd("1"), TotalCost: usd("1")})
	}
	return rep, v.saw(q)
}

func (v *fakeViews) Idle(ctx context.Context, q Query) (analyze.IdleReport, error) {
	return analyze.IdleReport{Periods: []analyze.IdlePeriod{{Duration: gpucost.Duration(time.Hour), Series: &gpucost.Series{}}}}, v.saw(q)
}

func (v *fakeViews) Alerts(ctx context.Context, q Query) (analyze.AlertReport, error) {
	return analyze.AlertReport{Now: testNow, Alerts: []analyze.Alert{{State: analyze.Firing}}}, v.saw(q)
}

func (v *fakeViews) Recommendations(ctx context.Context, q Query) (RecommendationReport, error) {
	step := recommend.PlanStep{ID: "g/idle/schedule", Lever: "idle", Recommendation: gpucost.Recommendation{Kind: "idle", Action: "stop it", MonthlySaving: usd("5")}}
	return RecommendationReport{MonthlySaving: usd("5"), Plan: recommend.Plan{Saving: usd("5"), Groups: []recommend.PlanGroup{{ID: "g", Steps: []recommend.PlanStep{step}}}}}, v.saw(q)
}

func (v *fakeViews) Budgets(ctx context.Context, now time.Time) ([]budget.Status, error) {
	return []budget.Status{{Budget: "research", Period: "2026-11", Amount: usd("1000")}}, v.saw(Query{})
}

func (v *fakeViews) Jobs(ctx context.Context) ([]spot.JobReport, error) {
	return []spot.JobReport{{Job: "llama-ft", Status: "done"}}, v.saw(Query{})
}

func (v *fakeViews) Queues(ctx context.Context, now time.Time) ([]queue.Status, error) {
	return []queue.Status{{Queue: "q1", Pending: 3}}, v.saw(Query{})
}

func viewFixture(t *testing.T, n int) (*fixture, *fakeViews) {
	f := newFixture(t)
	v := &fakeViews{n: n}
	f.srv.Views = v
	return f, v
}

// readPaths are every read endpoint.
var readPaths = []string{"/api/v1/overview", "/api/v1/gpus", "/api/v1/utilization", "/api/v1/costs", "/api/v1/allocations",
	"/api/v1/idle", "/api/v1/alerts", "/api/v1/recommendations", "/api/v1/budgets", "/api/v1/jobs", "/api/v1/queues"}

// TestReadRoles checks that every read endpoint refuses a request without a token (401) and
// an ingest token (403), and answers viewer and admin tokens with JSON.
func TestReadRoles(t *testing.T) {
	f, _ := viewFixture(t, 3)
	for _, path := range readPaths {
		if status, _ := f.do(t, "GET", path, "", nil); status != http.StatusUnauthorized {
			t.Errorf("GET %s without a token = %d; want 401", path, status)
		}
		if status, _ := f.do(t, "GET", path, f.revoked, nil); status != http.StatusUnauthorized {
			t.Errorf("GET %s with a revoked token = %d; want 401", path, status)
		}
		if status, _ := f.do(t, "GET", path, f.secrets[gpucost.RoleIngest], nil); status != http.StatusForbidden {
			t.Errorf("GET %s with an ingest token = %d; want 403", path, status)
		}
		for _, role := range []gpucost.Role{gpucost.RoleViewer, gpucost.RoleAdmin} {
			status, out := f.do(t, "GET", path, f.secrets[role], nil)
			if status != http.StatusOK || !json.Valid(out) {
				t.Errorf("GET %s with a %s token = %d %s; want 200 and JSON", path, role, status, out)
			}
		}
	}
	if strings.Contains(f.logs.String(), f.secrets[gpucost.RoleViewer]) {
		t.Error("the log holds a token secret")
	}
}

// TestReadPaging walks a list of 250 groups a page at a time by the next links.
func TestReadPaging(t *testing.T) {
	f, _ := viewFixture(t, 250)
	viewer := f.secrets[gpucost.RoleViewer]
	next := "/api/v1/gpus?by=host&limit=100"
	var keys []string
	for pages := 0; next != ""; pages++ {
		if pages > 3 {
			t.Fatal("more than 3 pages of 250 groups at 100 a page")
		}
		status, out := f.do(t, "GET", next, viewer, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", next, status, out)
		}
		var resp struct {
			Groups []struct{ Key string }
			Fleet  struct{ GPUs int }
			Page   Page `json:"page"`
		}
		if err := json.Unmarshal(out, &resp); err != nil {
			t.Fatal(err)
		}
		if resp.Page.Total != 250 || resp.Page.Limit != 100 || resp.Fleet.GPUs != 250 {
			t.Errorf("GET %s: page %+v, fleet %d GPUs; want total 250, limit 100, 250 GPUs", next, resp.Page, resp.Fleet.GPUs)
		}
		for _, g := range resp.Groups {
			keys = append(keys, g.Key)
		}
		next = resp.Page.Next
		if next != "" && !strings.Contains(next, "by=host") {
			t.Errorf("next %s lost the query's by=host", next)
		}
	}
	if len(keys) != 250 || keys[0] != "GPU-0000" || keys[249] != "GPU-0249" {
		t.Errorf("paged through %d groups, %v … ; want GPU-0000 … GPU-0249", len(keys), keys[:min(3, len(keys))])
	}
	status, out := f.do(t, "GET", "/api/v1/costs?offset=240&limit=20", viewer, nil)
	var costs struct {
		Groups     []struct{ Group string } `json:"groups"`
		Reconciled bool                     `json:"reconciled"`
		Page       Page                     `json:"page"`
	}
	if err := json.Unmarshal(out, &costs); status != http.StatusOK || err != nil {
		t.Fatalf("GET costs?offset=240 = %d %s", status, out)
	}
	if len(costs.Groups) != 10 || costs.Groups[0].Group != "team-240" || costs.Page.Next != "" || !costs.Reconciled {
		t.Errorf("costs?offset=240&limit=20 = %d groups from %q, next %q; want 10 from team-240 and no next", len(costs.Groups), costs.Groups[0].Group, costs.Page.Next)
	}
	status, out = f.do(t, "GET", "/api/v1/costs?offset=900", viewer, nil)
	if err := json.Unmarshal(out, &costs); status != http.StatusOK || err != nil || len(costs.Groups) != 0 || costs.Page.Total != 250 {
		t.Errorf("costs?offset=900 = %d %s; want an empty page of 250", status, out)
	}
}

// TestReadQuery checks how parameters become the views' query.
func TestReadQuery(t *testing.T) {
	f, v := viewFixture(t, 1)
	viewer := f.secrets[gpucost.RoleViewer]
	for _, tc := range []struct {
		path string
		want Query
	}{
		{"/api/v1/gpus", Query{}},
		{"/api/v1/gpus?since=24h&by=namespace", Query{From: testNow.Add(-24 * time.Hour), To: testNow, By: "namespace"}},
		{"/api/v1/costs?since=2d&to=2026-11-01T00:00:00Z", Query{From: time.Date(2026, 10, 30, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)}},
		{"/api/v1/costs?from=2026-10-01T00:00:00Z&by=tag:cost-center", Query{From: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), To: testNow, By: "tag:cost-center"}},
		{"/api/v1/allocations", Query{By: "team"}},
		{"/api/v1/idle?filter=team:ml&namespace=serving", Query{Filter: map[string]string{"team": "ml", "namespace": "serving"}}},
		{"/api/v1/alerts?filter=label:gpu-pool:a100&Filter=x", Query{}}, // refused: an unknown parameter
	} {
		status, out := f.do(t, "GET", tc.path, viewer, nil)
		if strings.Contains(tc.path, "Filter=") {
			if status != http.StatusBadRequest || !strings.Contains(string(out), "unknown parameter Filter") {
				t.Errorf("GET %s = %d %s; want 400 naming Filter", tc.path, status, out)
			}
			continue
		}
		if status != http.StatusOK {
			t.Errorf("GET %s = %d %s", tc.path, status, out)
			continue
		}
		got := v.query()
		if !got.From.Equal(tc.want.From) || !got.To.Equal(tc.want.To) || got.By != tc.want.By || fmt.Sprint(got.Filter) != fmt.Sprint(tc.want.Filter) {
			t.Errorf("GET %s: query %+v; want %+v", tc.path, got, tc.want)
		}
	}
}

// TestReadBadParams checks that each bad parameter gets a 400 naming it and what to use.
func TestReadBadParams(t *testing.T) {
	f, _ := viewFixture(t, 1)
	viewer := f.secrets[gpucost.RoleViewer]
	for _, tc := range []struct{ path, want string }{
		{"/api/v1/gpus?since=yesterday", "since=\"yesterday\": use a duration such as 30d"},
		{"/api/v1/gpus?since=0d", "since=\"0d\""},
		{"/api/v1/gpus?from=2026-11-01", "from=\"2026-11-01\": use RFC 3339"},
		{"/api/v1/gpus?to=2026-11-01T00:00:00Z", "parameter to without since or from"},
		{"/api/v1/gpus?from=2026-11-02T00:00:00Z&to=2026-11-01T00:00:00Z", "from must be before to"},
		{"/api/v1/gpus?since=7d&from=2026-11-01T00:00:00Z", "since and from are both given"},
		{"/api/v1/costs?limit=0", "limit=\"0\": use 1 to 1000"},
		{"/api/v1/costs?limit=5000", "limit=\"5000\": use 1 to 1000"},
		{"/api/v1/costs?offset=-1", "offset=\"-1\""},
		{"/api/v1/costs?cursor=nope", "cursor=\"nope\": use the cursor of a response's next link"},
		{"/api/v1/costs?cursor=" + encodeCursor(5) + "&offset=3", "cursor and offset are both given"},
		{"/api/v1/costs?by=team&by=project", "parameter by is given 2 times"},
		{"/api/v1/costs?filter=team", "filter=\"team\": use filter=KEY:VALUE"},
		{"/api/v1/costs?filter=team:ml&team=infra", "team is already filtered to \"ml\""},
		{"/api/v1/allocations?by=sku", "by=\"sku\": allocations group by an owner"},
		{"/api/v1/utilization?by=pod", "by=\"pod\": the heatmap has a row per gpu"},
		{"/api/v1/idle?by=host", "unknown parameter by"},
		{"/api/v1/budgets?since=7d", "unknown parameter since"},
		{"/api/v1/overview?limit=3", "unknown parameter limit: this endpoint takes no parameters"},
	} {
		status, out := f.do(t, "GET", tc.path, viewer, nil)
		var body ErrorBody
		if err := json.Unmarshal(out, &body); status != http.StatusBadRequest || err != nil || body.Error.Code != gpucost.EInvalid ||
			!strings.Contains(body.Error.Message, tc.want) {
			t.Errorf("GET %s = %d %s; want 400 saying %q", tc.path, status, out, tc.want)
		}
	}
}

// TestReadViewErrors checks that a view's error reaches the client with its status, and an
// internal one without its text.
func TestReadViewErrors(t *testing.T) {
	f, v := viewFixture(t, 1)
	viewer := f.secrets[gpucost.RoleViewer]
	v.err = gpucost.Errorf(gpucost.EUnavailable, "the store is busy")
	if status, out := f.do(t, "GET", "/api/v1/gpus", viewer, nil); status != http.StatusServiceUnavailable || !strings.Contains(string(out), "busy") {
		t.Errorf("GET gpus with an unavailable store = %d %s; want 503", status, out)
	}
	v.err = fmt.Errorf("disk on fire at /var/lib/secret")
	if status, out := f.do(t, "GET", "/api/v1/costs", viewer, nil); status != http.StatusInternalServerError || strings.Contains(string(out), "secret") {
		t.Errorf("GET costs with an internal error = %d %s; want 500 without the error's text", status, out)
	}
	f.srv.Views = nil
	if status, _ := f.do(t, "GET", "/api/v1/overview", viewer, nil); status != http.StatusServiceUnavailable {
		t.Errorf("GET overview without views = %d; want 503", status)
	}
}

func TestCursorRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 100, 123456} {
		if got, ok := decodeCursor(encodeCursor(n)); !ok || got != n {
			t.Errorf("decodeCursor(encodeCursor(%d)) = %d, %v", n, got, ok)
		}
	}
	u, _ := url.Parse("/api/v1/gpus?limit=2&offset=0&by=host")
	page, pg := pageOf([]int{1, 2, 3}, paging{limit: 2}, u)
	if len(page) != 2 || pg.Next == "" || strings.Contains(pg.Next, "offset") {
		t.Errorf("pageOf = %v, %+v; want 2 items and a next link without offset", page, pg)
	}
}

// FuzzReadParams checks that no query string makes the read parameters panic, and that what
// they accept is a sane query.
func FuzzReadParams(f *testing.F) {
	for _, s := range []string{"since=7d&by=namespace", "from=2026-10-01T00:00:00Z&to=2026-11-01T00:00:00Z",
		"filter=team:ml&filter=namespace:serving&limit=10&cursor=" + encodeCursor(10), "offset=5&limit=1000", "since=1.5w", "team=a&team=b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		query, err := parseQuery(q, testNow, telemetryParams)
		if err == nil && !query.From.IsZero() && !query.From.Before(query.To) {
			t.Errorf("parseQuery(%q) = %+v: an empty period", raw, query)
		}
		p, err := parsePaging(q)
		if err == nil && (p.limit < 1 || p.limit > MaxPageLimit || p.offset < 0) {
			t.Errorf("parsePaging(%q) = %+v", raw, p)
		}
	})
}
