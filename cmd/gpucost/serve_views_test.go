package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/sqlite"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// viewServer is gpucost serve over a demo store on port 0, on the demo's clock.
type viewServer struct {
	url    string
	db     string
	tokens map[gpucost.Role]string
	logs   *lockedBuffer
}

// startViewServer serves the store db (a SQLite path or a postgres:// URL) with a token of each
// role.
func startViewServer(t *testing.T, db string, o serveOptions) *viewServer {
	t.Helper()
	return startViewServerEnv(t, db, o, func(string) string { return "" })
}

// startViewServerEnv is startViewServer with serve's environment read through getenv: the
// credentials and endpoints of the bill sources.
func startViewServerEnv(t *testing.T, db string, o serveOptions, getenv func(string) string) *viewServer {
	t.Helper()
	s := &viewServer{db: db, tokens: map[gpucost.Role]string{}, logs: &lockedBuffer{}}
	for _, role := range []gpucost.Role{gpucost.RoleViewer, gpucost.RoleIngest, gpucost.RoleAdmin} {
		code, secret, _ := runAt(t, db, demoNow, "token", "create", "--name", string(role), "--role", string(role))
		if code != exitOK {
			t.Fatalf("token create --role %s: exit %d", role, code)
		}
		s.tokens[role] = strings.TrimSpace(secret)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.url = "http://" + ln.Addr().String()
	e := liveEnv(s.db, s.logs, getenv)
	e.now = func() time.Time { return demoNow }
	store, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.serve(ctx, store, ln, o) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		store.Close()
		for role, secret := range s.tokens {
			if strings.Contains(s.logs.String(), secret) {
				t.Errorf("the server log holds the %s token's secret", role)
			}
		}
	})
	return s
}

func (s *viewServer) do(t *testing.T, method, path string, role gpucost.Role, body []byte, header ...string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if role != "" {
		req.Header.Set("Authorization", "Bearer "+s.tokens[role])
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// checkGolden compares a JSON response, indented, with testdata/NAME.golden.json.
func checkGolden(t *testing.T, name string, out []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, out, "", "  "); err != nil {
		t.Fatalf("%s: not JSON: %v\n%s", name, err, out)
	}
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/gpucost -run %s -update writes it)", err, t.Name())
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from %s (-update rewrites it):\n%s", name, path, firstDiff(buf.String(), string(want)))
	}
}

// firstDiff shows the first line where got and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return "line " + itoa(i+1) + ":\n got  " + g[i] + "\n want " + w[i]
		}
	}
	return "lengths differ: " + itoa(len(g)) + " and " + itoa(len(w)) + " lines"
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestServeReadAPI reads every endpoint of a server over the 3-day demo fleet: tokens and
// roles, golden views, paging, a bad parameter, and the costs against gpucost report cost.
func TestServeReadAPI(t *testing.T) {
	dir := loadDemo(t)
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	checkReadAPI(t, s)
	checkCostsMatchReport(t, s, dir)
}

// TestServeReadAPIPostgres serves the same demo fleet from PostgreSQL: every view is the same
// golden JSON as from SQLite.
func TestServeReadAPIPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the demo fleet into PostgreSQL")
	}
	pg := pgtest.Start(t)
	if code, _, errOut := runAt(t, pg, demoNow, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo --db postgres: exit %d\n%s", code, errOut)
	}
	checkReadAPI(t, startViewServer(t, pg, serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20}))
}

// checkReadAPI reads every endpoint of s, which serves the 3-day demo fleet.
func checkReadAPI(t *testing.T, s *viewServer) {
	t.Helper()
	for _, path := range []string{"/api/v1/overview", "/api/v1/gpus", "/api/v1/utilization", "/api/v1/costs", "/api/v1/allocations",
		"/api/v1/idle", "/api/v1/alerts", "/api/v1/recommendations", "/api/v1/budgets", "/api/v1/jobs", "/api/v1/queues"} {
		if status, _ := s.do(t, "GET", path, "", nil); status != http.StatusUnauthorized {
			t.Errorf("GET %s without a token = %d; want 401", path, status)
		}
		if status, _ := s.do(t, "GET", path, gpucost.RoleIngest, nil); status != http.StatusForbidden {
			t.Errorf("GET %s with an ingest token = %d; want 403", path, status)
		}
	}
	for _, g := range []struct{ name, path string }{
		{"api-overview", "/api/v1/overview"},
		{"api-gpus-namespace", "/api/v1/gpus?by=namespace&since=3d"},
		{"api-utilization-host", "/api/v1/utilization?by=host&since=6h&limit=2"},
		{"api-costs-team", "/api/v1/costs?by=team&since=3d"},
		{"api-allocations-namespace-serving", "/api/v1/allocations?by=namespace&since=3d&team=inference"},
		{"api-idle", "/api/v1/idle?since=3d&limit=3&namespace=notebooks"},
		{"api-alerts", "/api/v1/alerts?since=6h&limit=3"},
		{"api-recommendations", "/api/v1/recommendations?since=3d&limit=3"},
		{"api-jobs", "/api/v1/jobs"},
		{"api-queues", "/api/v1/queues"},
	} {
		status, out := s.do(t, "GET", g.path, gpucost.RoleViewer, nil)
		if status != http.StatusOK {
			t.Errorf("GET %s = %d %s", g.path, status, out)
			continue
		}
		checkGolden(t, g.name, out)
	}
	status, out := s.do(t, "GET", "/api/v1/recommendations?since=3d&team=data-science", gpucost.RoleViewer, nil)
	var recs struct {
		Plan struct {
			Groups []struct {
				Resources []string
				Steps     []struct{ Recommendation struct{ Resources []string } }
			}
		}
	}
	if err := json.Unmarshal(out, &recs); status != http.StatusOK || err != nil || len(recs.Plan.Groups) == 0 || len(recs.Plan.Groups[0].Steps) == 0 {
		t.Errorf("GET recommendations?team=data-science = %d %s", status, out)
	}
	for _, g := range recs.Plan.Groups {
		ids := g.Resources
		for _, s := range g.Steps {
			ids = append(ids, s.Recommendation.Resources...)
		}
		for _, id := range ids {
			if !strings.HasPrefix(id, "notebook-") {
				t.Errorf("recommendations for team data-science change %s", id)
			}
		}
	}
	if status, out := s.do(t, "GET", "/api/v1/recommendations?pod=x", gpucost.RoleViewer, nil); status != http.StatusBadRequest || !strings.Contains(string(out), "filter pod") {
		t.Errorf("GET recommendations?pod=x = %d %s; want 400", status, out)
	}
	checkGPUPages(t, s)
	status, out = s.do(t, "GET", "/api/v1/gpus?since=yesterday", gpucost.RoleViewer, nil)
	if status != http.StatusBadRequest || !strings.Contains(string(out), "since") {
		t.Errorf("GET gpus?since=yesterday = %d %s; want 400 naming since", status, out)
	}
}

// checkCostsMatchReport checks /api/v1/costs against gpucost report cost over the same period.
func checkCostsMatchReport(t *testing.T, s *viewServer, dir string) {
	t.Helper()
	want := reportTeamCosts(t, dir, "3d")
	_, out := s.do(t, "GET", "/api/v1/costs?by=team&since=3d", gpucost.RoleViewer, nil)
	var rep struct {
		Groups []struct {
			Group, Currency string
			CostLessIdle    string  `json:"cost_less_idle"`
			IdleCost        string  `json:"idle_cost"`
			UsedGPUHours    float64 `json:"used_gpu_hours"`
		} `json:"groups"`
		Total      []string `json:"total"`
		Bill       []string `json:"bill"`
		Reconciled bool     `json:"reconciled"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Reconciled || len(rep.Total) != 1 || rep.Total[0] != rep.Bill[0] || len(rep.Groups) != len(want) {
		t.Errorf("costs: reconciled %v, total %v, bill %v, %d groups; want reconciled and the report's %d teams", rep.Reconciled, rep.Total, rep.Bill, len(rep.Groups), len(want))
	}
	for _, g := range rep.Groups {
		used, _ := gpucost.ParseMoney(g.CostLessIdle, g.Currency)
		idle, _ := gpucost.ParseMoney(g.IdleCost, g.Currency)
		if w := want[g.Group]; w.CostUSD != dollars(used) || w.IdleUSD != dollars(idle) || w.GPUHours != g.UsedGPUHours {
			t.Errorf("costs team %s: %s + %s idle, %.2f GPU-h; report cost says %+v", g.Group, g.CostLessIdle, g.IdleCost, g.UsedGPUHours, w)
		}
	}
}

// checkGPUPages pages through the 88 GPUs 50 at a time.
func checkGPUPages(t *testing.T, s *viewServer) {
	t.Helper()
	seen := map[string]bool{}
	next := "/api/v1/gpus?since=3d&limit=50"
	for pages := 0; next != ""; pages++ {
		status, out := s.do(t, "GET", next, gpucost.RoleViewer, nil)
		var resp struct {
			Groups []struct{ Key string }
			Page   httpapi.Page `json:"page"`
		}
		if err := json.Unmarshal(out, &resp); status != http.StatusOK || err != nil || pages > 2 {
			t.Fatalf("GET %s = %d %s", next, status, out)
		}
		if resp.Page.Total != 88 {
			t.Errorf("GET %s: total %d; want 88 GPUs", next, resp.Page.Total)
		}
		for _, g := range resp.Groups {
			seen[g.Key] = true
		}
		next = resp.Page.Next
	}
	if len(seen) != 88 {
		t.Errorf("paged through %d distinct GPUs; want 88", len(seen))
	}
}

// TestServeBillUpload uploads bills: one lands whole, the same one again changes nothing, a
// malformed one is refused with its line and column and changes nothing either.
func TestServeBillUpload(t *testing.T) {
	s := startViewServer(t, filepath.Join(t.TempDir(), "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	focusBill, err := os.ReadFile("../../billing/focus/testdata/focus_1_2.csv")
	if err != nil {
		t.Fatal(err)
	}
	if status, _ := s.do(t, "POST", "/api/v1/bills?name=focus.csv", gpucost.RoleViewer, focusBill); status != http.StatusForbidden {
		t.Errorf("POST bills with a viewer token = %d; want 403", status)
	}
	status, out := s.do(t, "POST", "/api/v1/bills?name=focus-2025-01.csv", gpucost.RoleIngest, focusBill, "Content-Type", "text/csv")
	var imp struct {
		Format    string
		Rows      int
		Lines     int `json:"lines_stored"`
		Unchanged bool
		Totals    []struct {
			BilledCost string `json:"billed_cost"`
		}
	}
	if err := json.Unmarshal(out, &imp); status != http.StatusCreated || err != nil || imp.Format != "focus" || imp.Rows == 0 || imp.Unchanged {
		t.Fatalf("POST a FOCUS bill = %d %s; want 201 and its rows imported", status, out)
	}
	// What the CLI imports from the same file has the same totals.
	cli, code, errOut := importJSON(t, t.TempDir(), "../../billing/focus/testdata/focus_1_2.csv")
	if code != exitOK || len(cli) != 1 || cli[0].Rows != imp.Rows || cli[0].Lines != imp.Lines || cli[0].Totals[0].BilledCost != imp.Totals[0].BilledCost {
		t.Errorf("the CLI imported %+v (exit %d %s); the server %+v", cli, code, errOut, imp)
	}
	status, out = s.do(t, "POST", "/api/v1/bills?name=focus-2025-01-again.csv", gpucost.RoleAdmin, focusBill)
	if err := json.Unmarshal(out, &imp); status != http.StatusOK || err != nil || !imp.Unchanged {
		t.Errorf("POST the same bill again = %d %s; want 200, unchanged", status, out)
	}
	status, out = s.do(t, "POST", "/api/v1/bills?name=cur.csv&format=aws-cur", gpucost.RoleIngest, append(bytes.Clone(focusBill), '\n'))
	if status != http.StatusBadRequest {
		t.Errorf("POST a FOCUS bill as aws-cur = %d %s; want 400", status, out)
	}
	bad := bytes.Replace(focusBill, []byte("\n"), []byte("\nnot,a,bill\n"), 1)
	status, out = s.do(t, "POST", "/api/v1/bills?name=broken.csv", gpucost.RoleIngest, bad)
	if status != http.StatusBadRequest || !strings.Contains(string(out), "broken.csv:2:") || strings.Contains(string(out), os.TempDir()) {
		t.Errorf("POST a malformed bill = %d %s; want 400 naming broken.csv line 2, and no temporary path", status, out)
	}
	status, out = s.do(t, "POST", "/api/v1/bills?name=focus-2025-01.csv", gpucost.RoleIngest, append(bytes.Clone(focusBill), focusBill[bytes.IndexByte(focusBill, '\n')+1:]...))
	if status != http.StatusConflict || !strings.Contains(string(out), "replace=true") && !strings.Contains(string(out), "--replace") {
		t.Errorf("POST other content under an imported name = %d %s; want 409", status, out)
	}
	db, err := sqlite.Open(context.Background(), s.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	imports, err := db.CostImports(context.Background())
	if err != nil || len(imports) != 1 || imports[0].Name != "focus-2025-01.csv" {
		t.Errorf("stored imports = %+v, %v; want the one good bill only", imports, err)
	}
}

// TestServeBudgets replaces the budgets through the API and reads their statuses.
func TestServeBudgets(t *testing.T) {
	s := startViewServer(t, filepath.Join(loadDemo(t), "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Hour, maxBill: 1 << 20})
	if status, out := s.do(t, "GET", "/api/v1/budgets", gpucost.RoleViewer, nil); status != http.StatusOK || !strings.Contains(string(out), `"budgets":[]`) {
		t.Errorf("GET budgets before any = %d %s; want an empty list", status, out)
	}
	doc := []byte("budgets:\n  - name: research\n    scope: {team: research}\n    period: monthly\n    amount: 50000\n")
	if status, _ := s.do(t, "PUT", "/api/v1/budgets", gpucost.RoleViewer, doc); status != http.StatusForbidden {
		t.Errorf("PUT budgets with a viewer token = %d; want 403", status)
	}
	status, out := s.do(t, "PUT", "/api/v1/budgets", gpucost.RoleAdmin, doc, "Content-Type", "application/yaml")
	if status != http.StatusOK {
		t.Fatalf("PUT budgets = %d %s", status, out)
	}
	// The change shows at once, though views are kept for an hour.
	status, out = s.do(t, "GET", "/api/v1/budgets", gpucost.RoleViewer, nil)
	if status != http.StatusOK {
		t.Fatalf("GET budgets = %d %s", status, out)
	}
	checkGolden(t, "api-budgets", out)
	bad := []byte(`{"budgets": [{"name": "research", "period": "monthly", "amount": -5}]}`)
	status, out = s.do(t, "PUT", "/api/v1/budgets", gpucost.RoleAdmin, bad, "Content-Type", "application/json")
	if status != http.StatusBadRequest || !strings.Contains(string(out), "amount") {
		t.Errorf("PUT invalid budgets = %d %s; want 400 naming amount", status, out)
	}
	e := liveEnv(s.db, &lockedBuffer{}, func(string) string { return "" })
	db, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	bs, source, err := server.LoadBudgets(context.Background(), db, "")
	if err != nil || len(bs) != 1 || bs[0].Name != "research" || !strings.Contains(source, server.BudgetsSetting) {
		t.Errorf("LoadBudgets = %+v, %q, %v; want the stored research budget", bs, source, err)
	}
	file := filepath.Join(t.TempDir(), "budgets.yaml")
	os.WriteFile(file, []byte("budgets:\n  - {name: all, period: quarterly, amount: 9}\n"), 0o644)
	bs, source, err = server.LoadBudgets(context.Background(), db, file)
	if err != nil || len(bs) != 1 || bs[0].Name != "all" || source != file {
		t.Errorf("LoadBudgets with a file = %+v, %q, %v; want the file's budget", bs, source, err)
	}
	sb := server.NewBudgetStore(db, file)
	if _, err := sb.PutBudgets(context.Background(), doc); gpucost.ErrorCode(err) != gpucost.EConflict {
		t.Errorf("PutBudgets with serve --budgets = %v; want a conflict", err)
	}
}
