package deploy

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// dashboardFile is the Grafana dashboard.
const dashboardFile = "grafana/gpucost.json"

type dashboard struct {
	Title      string
	UID        string
	Panels     []panel
	Templating struct {
		List []struct {
			Name       string
			Type       string
			Definition string
		}
	}
}

type panel struct {
	ID          int
	Type        string
	Title       string
	Description string
	Datasource  struct{ Type, UID string }
	GridPos     struct{ X, Y, W, H int }
	Targets     []struct{ RefID, Expr string }
	Panels      []panel // a collapsed row's
}

func readDashboard(t *testing.T) dashboard {
	t.Helper()
	b, err := os.ReadFile(dashboardFile)
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", dashboardFile, err)
	}
	return d
}

// queries returns every PromQL expression of the dashboard, by where it is: its panels'
// targets and its variables' label_values queries.
func (d dashboard) queries() map[string]string {
	out := map[string]string{}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				out[fmt.Sprintf("panel %q target %s", p.Title, tg.RefID)] = tg.Expr
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, v := range d.Templating.List {
		if m := labelValues.FindStringSubmatch(v.Definition); m != nil {
			out["variable "+v.Name] = m[1]
		}
	}
	return out
}

var labelValues = regexp.MustCompile(`^label_values\(([A-Za-z_:][A-Za-z0-9_:]*),\s*[A-Za-z_]+\)$`)

// variables are the values the dashboard's variables take when its queries are checked.
var variables = strings.NewReplacer("$team", ".*", "$namespace", ".*", "$host", ".*", "$monthly_budget", "10000")

// promqlWords are PromQL's keywords and aggregation modifiers, which look like metric names.
var promqlWords = []string{"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset", "inf", "nan"}

// metricNames returns the metric names a PromQL expression reads: identifiers that are not
// functions, keywords, label names or values, durations or numbers.
func metricNames(expr string) []string {
	s := regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).ReplaceAllString(expr, `""`) // label values
	s = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(s, "")               // matchers
	s = regexp.MustCompile(`\[[^\]]*\]`).ReplaceAllString(s, "")              // ranges
	s = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`).ReplaceAllString(s, "")
	var out []string
	for _, m := range regexp.MustCompile(`[A-Za-z_:][A-Za-z0-9_:]*\s*\(?`).FindAllString(s, -1) {
		if strings.HasSuffix(m, "(") {
			continue // a function or aggregation
		}
		name := strings.TrimSpace(m)
		if !slices.Contains(promqlWords, strings.ToLower(name)) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

func TestMetricNames(t *testing.T) {
	for expr, want := range map[string]string{
		`sum by (team) (gpucost_cost_usd{team=~"a|b"}) / 10000`:                           "gpucost_cost_usd",
		`avg_over_time(DCGM_FI_DEV_GPU_UTIL{Hostname=~".*"}[15m]) < 5 or vector(0)`:       "DCGM_FI_DEV_GPU_UTIL",
		`a / on(x) group_left(y) b_total`:                                                 "a b_total",
		`time() - max(gpucost_fleet_metrics_last_success_timestamp_seconds > 0)`:          "gpucost_fleet_metrics_last_success_timestamp_seconds",
		`sum(rate(gpucost_http_requests_total{code="5xx by (code)"}[5m])) without (code)`: "gpucost_http_requests_total",
	} {
		if got := strings.Join(metricNames(expr), " "); got != want {
			t.Errorf("metricNames(%q) = %q, want %q", expr, got, want)
		}
	}
}

// TestDashboardMetricsExist checks that every metric the dashboard queries is one gpucost's
// /metrics serves (read from a running gpucost serve) or one of dcgm-exporter's fields
// (telemetry/dcgmfields), and that promtool parses every query.
func TestDashboardMetricsExist(t *testing.T) {
	d := readDashboard(t)
	queries := d.queries()
	if len(queries) < 15 {
		t.Fatalf("%s: %d queries; want the whole dashboard", dashboardFile, len(queries))
	}
	served := gpucostMetricNames(t)
	used := map[string]bool{}
	for where, expr := range queries {
		names := metricNames(variables.Replace(expr))
		if len(names) == 0 {
			t.Errorf("%s: %q reads no metric", where, expr)
		}
		for _, n := range names {
			used[n] = true
			if !served[n] && dcgmfields.Of(n) == dcgmfields.Unknown {
				t.Errorf("%s: %s is neither in gpucost's /metrics nor a dcgm-exporter field", where, n)
			}
		}
	}
	// The dashboard shows what the issue asks: idle cost, utilisation, cost by team, and the GPUs.
	for _, n := range []string{"gpucost_idle_cost_usd", "gpucost_cost_usd", "gpucost_gpu_utilization_ratio", "gpucost_gpu_idle_ratio",
		dcgmfields.MetricGPUUtil, dcgmfields.MetricFBUsed} {
		if !used[n] {
			t.Errorf("%s does not show %s", dashboardFile, n)
		}
	}
	checkQueriesParse(t, queries)
}

// checkQueriesParse has promtool check rules parse each query as a recording rule.
func checkQueriesParse(t *testing.T, queries map[string]string) {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool is not installed; to check the dashboard's queries parse: apt-get install -y prometheus"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Log(msg)
		return
	}
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	keys := make([]string, 0, len(queries))
	for k := range queries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		q, _ := json.Marshal(variables.Replace(queries[k]))
		fmt.Fprintf(&b, "      - record: dashboard:query_%d\n        expr: %s\n", i, q)
	}
	file := filepath.Join(t.TempDir(), "queries.yaml")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "check", "rules", file).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules on the dashboard's queries: %v\n%s\n%s", err, out, b.String())
	}
}

// TestDashboardPanels checks the dashboard's shape: unique panel ids, every panel on the
// 24-column grid with a description, and every query on the $datasource variable.
func TestDashboardPanels(t *testing.T) {
	d := readDashboard(t)
	if d.UID == "" || d.Title == "" {
		t.Errorf("%s: uid %q title %q; want both", dashboardFile, d.UID, d.Title)
	}
	ids := map[int]bool{}
	for _, p := range d.Panels {
		if ids[p.ID] {
			t.Errorf("panel %q: id %d used twice", p.Title, p.ID)
		}
		ids[p.ID] = true
		if p.GridPos.X < 0 || p.GridPos.W <= 0 || p.GridPos.X+p.GridPos.W > 24 || p.GridPos.H <= 0 {
			t.Errorf("panel %q: gridPos %+v is off the 24-column grid", p.Title, p.GridPos)
		}
		if p.Type == "row" {
			continue
		}
		if p.Description == "" || len(p.Targets) == 0 {
			t.Errorf("panel %q: description %q, %d targets; want both", p.Title, p.Description, len(p.Targets))
		}
		if p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: datasource %q, want ${datasource}", p.Title, p.Datasource.UID)
		}
	}
}

// gpucostMetricNames runs gpucost serve over an empty store and returns the metric names its
// /metrics declares (a histogram's _bucket, _sum and _count series included).
func gpucostMetricNames(t *testing.T) map[string]bool {
	t.Helper()
	bin := filepath.Join(staticBinaries(t), "gpucost")
	dir := t.TempDir()
	db := filepath.Join(dir, "gpucost.db")
	env := append(os.Environ(), "XDG_DATA_HOME="+dir, "GPUCOST_DB=")
	token := createToken(t, bin, env, db, gpucost.RoleViewer)

	url := "http://" + startGpucost(t, bin, env, "--db", db, "serve", "--listen", "127.0.0.1:0") + "/metrics"
	page := httpGet(t, url, token)
	names := map[string]bool{}
	for _, line := range strings.Split(string(page), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "#" || f[1] != "TYPE" {
			continue
		}
		names[f[2]] = true
		if f[3] == "histogram" || f[3] == "summary" {
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[f[2]+s] = true
			}
		}
	}
	if !names["gpucost_cost_usd"] {
		t.Fatalf("GET %s declares no gpucost_cost_usd:\n%s", url, page)
	}
	return names
}
