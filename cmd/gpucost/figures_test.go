package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// figure is one group's figures as an output shows them: hours as numbers, money as its
// exact decimal.
type figure struct {
	GPUHours, Used, Idle float64
	Cost, IdleCost       string
}

// Field names of the figures in each output's JSON.
var (
	utilFields   = [6]string{"key", "gpu_hours", "used_gpu_hours", "idle_gpu_hours", "cost", "idle_cost"}
	figureFields = [6]string{"group", "gpu_hours", "used_gpu_hours", "idle_gpu_hours", "gpu_cost", "idle_cost"}
)

func figuresOf(t *testing.T, groups []any, f [6]string) map[string]figure {
	t.Helper()
	out := map[string]figure{}
	for _, g := range groups {
		m, _ := g.(map[string]any)
		num := func(k string) float64 { v, _ := m[k].(float64); return v }
		str := func(k string) string { v, _ := m[k].(string); return v }
		if num(f[1]) == 0 {
			continue // a group of other spend, without GPU time
		}
		out[str(f[0])] = figure{num(f[1]), num(f[2]), num(f[3]), str(f[4]), str(f[5])}
	}
	return out
}

func decodeJSON(t *testing.T, what, out string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%s: %v\n%s", what, err, out)
	}
	return v
}

// cli runs a report with --output json and returns its decoded output.
func cli(t *testing.T, dir string, args ...string) any {
	t.Helper()
	code, out, errOut := runCLI(t, dir, append(args, "--output", "json")...)
	if code != exitOK {
		t.Fatalf("%s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return decodeJSON(t, strings.Join(args, " "), out)
}

func field(v any, path ...string) any {
	for _, p := range path {
		m, _ := v.(map[string]any)
		v = m[p]
	}
	return v
}

func items(v any) []any { l, _ := v.([]any); return l }

// sameFigures fails unless every output shows each group with the same figures, to the
// nano-dollar, and all show the same groups.
func sameFigures(t *testing.T, what string, outputs map[string]map[string]figure) {
	t.Helper()
	var first string
	for name := range outputs {
		if first == "" || name < first {
			first = name
		}
	}
	want := outputs[first]
	if len(want) < 3 {
		t.Errorf("%s: %s shows %d groups: %v", what, first, len(want), want)
	}
	for name, got := range outputs {
		for g, w := range want {
			if got[g] != w {
				t.Errorf("%s group %s: %s shows %+v, %s %+v", what, g, name, got[g], first, w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: %s shows %d groups, %s %d", what, name, len(got), first, len(want))
		}
	}
}

// TestFiguresAgreeEverywhere checks that the demo headline, report utilization, idle, cost and
// kpi, the API's views and the overview show the same GPU-hours, used and idle GPU-hours, GPU
// cost and idle cost for the same fleet, period and group, on the demo fleet and on the same
// fleet with a bill covering only some hosts and days (the rest priced by the catalog).
func TestFiguresAgreeEverywhere(t *testing.T) {
	dir := loadDemo(t)
	t.Run("demo", func(t *testing.T) { checkFiguresAgree(t, dir, "bill") })
	t.Run("partial bill", func(t *testing.T) {
		partialBill(t, dir)
		checkFiguresAgree(t, dir, "mixed")
	})
}

// partialBill replaces the demo's bill with one that leaves out research's machines and
// inference's lines of 2026-11-30.
func partialBill(t *testing.T, dir string) {
	f, err := os.Open(filepath.Join(dir, "gpucost-bill.focus.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	kept := rows[:1]
	for _, r := range rows[1:] {
		tags, start := r[col["Tags"]], r[col["ChargePeriodStart"]]
		if strings.Contains(tags, `"team":"research"`) ||
			strings.Contains(tags, `"team":"inference"`) && strings.HasPrefix(start, "2026-11-30") {
			continue
		}
		kept = append(kept, r)
	}
	if len(kept) == len(rows) || len(kept) < 2 {
		t.Fatalf("the partial bill keeps %d of %d rows", len(kept), len(rows))
	}
	path := filepath.Join(dir, "partial.focus.csv")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := csv.NewWriter(out)
	w.WriteAll(kept)
	if err := out.Close(); err != nil || w.Error() != nil {
		t.Fatal(err, w.Error())
	}
	if code, _, errOut := runCLI(t, dir, "bills", "remove", "1"); code != exitOK {
		t.Fatalf("bills remove 1: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runCLI(t, dir, "import", "billing", path); code != exitOK {
		t.Fatalf("import billing %s: exit %d\n%s", path, code, errOut)
	}
}

func checkFiguresAgree(t *testing.T, dir, source string) {
	const until = "2026-12-02T00:00:00Z" // demoNow: the demo's 3 days are 2026-11-29 to 12-02
	period := []string{"--since", "3d", "--until", until}
	query := "from=2026-11-29T00:00:00Z&to=" + until
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	api := func(path string) any {
		t.Helper()
		status, out := s.do(t, "GET", path, gpucost.RoleViewer, nil)
		if status != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, status, out)
		}
		return decodeJSON(t, path, string(out))
	}

	util := cli(t, dir, append([]string{"report", "utilization", "--by", "namespace"}, period...)...)
	fleetFig := figuresOf(t, []any{field(util, "fleet")}, utilFields)["(fleet)"]
	if got := field(util, "fleet", "price_source"); got != source {
		t.Errorf("report utilization prices the fleet from %v; want %s", got, source)
	}
	sameFigures(t, "by namespace", map[string]map[string]figure{
		"report utilization": figuresOf(t, items(field(util, "groups")), utilFields),
		"report cost":        figuresOf(t, items(field(cli(t, dir, append([]string{"report", "cost", "--by", "namespace"}, period...)...), "groups")), figureFields),
		"report kpi":         figuresOf(t, items(cli(t, dir, append([]string{"report", "kpi", "--by", "namespace"}, period...)...)), figureFields),
		"/api/v1/gpus":       figuresOf(t, items(field(api("/api/v1/gpus?by=namespace&limit=100&"+query), "groups")), utilFields),
		"/api/v1/costs":      figuresOf(t, items(field(api("/api/v1/costs?by=namespace&limit=100&"+query), "groups")), figureFields),
	})
	costTeam := figuresOf(t, items(field(cli(t, dir, append([]string{"report", "cost", "--by", "team"}, period...)...), "groups")), figureFields)
	sameFigures(t, "by team", map[string]map[string]figure{
		"report cost":   costTeam,
		"report kpi":    figuresOf(t, items(cli(t, dir, append([]string{"report", "kpi", "--by", "team"}, period...)...)), figureFields),
		"/api/v1/costs": figuresOf(t, items(field(api("/api/v1/costs?by=team&limit=100&"+query), "groups")), figureFields),
	})

	// The money that is not a GPU figure: the same keys mean the same amounts in the CLI and API.
	moneyOf := func(groups []any) map[string][3]any {
		out := map[string][3]any{}
		for _, g := range groups {
			m, _ := g.(map[string]any)
			out[fmt.Sprint(m["group"])] = [3]any{m["billed_cost"], m["total_cost"], m["cost_less_idle"]}
		}
		return out
	}
	cliMoney := moneyOf(items(field(cli(t, dir, append([]string{"report", "cost", "--by", "team"}, period...)...), "groups")))
	apiMoney := moneyOf(items(field(api("/api/v1/costs?by=team&limit=100&"+query), "groups")))
	if !reflect.DeepEqual(cliMoney, apiMoney) || len(cliMoney) == 0 {
		t.Errorf("billed_cost, total_cost, cost_less_idle by team: report cost %v; /api/v1/costs %v", cliMoney, apiMoney)
	}

	// The fleet: report idle's figures, and the groups' sum.
	idle := figuresOf(t, items(field(cli(t, dir, append([]string{"report", "idle"}, period...)...), "fleet")), figureFields)
	if idle["(fleet)"] != fleetFig {
		t.Errorf("report idle's fleet %+v; report utilization's %+v", idle["(fleet)"], fleetFig)
	}
	var cost, idleCost gpucost.Money
	hours := 0.0
	for _, f := range costTeam {
		c, _ := gpucost.ParseMoney(f.Cost, "USD")
		i, _ := gpucost.ParseMoney(f.IdleCost, "USD")
		cost, idleCost, hours = cost.Add(c), idleCost.Add(i), hours+f.GPUHours
	}
	if cost.Decimal() != fleetFig.Cost || idleCost.Decimal() != fleetFig.IdleCost || math.Abs(hours-fleetFig.GPUHours) > 1e-6 {
		t.Errorf("the teams sum to %s GPU cost, %s idle, %.6f GPU-h; the fleet is %+v", cost.Decimal(), idleCost.Decimal(), hours, fleetFig)
	}

	// The demo's headline over the same days.
	code, out, errOut := runCLI(t, dir, "demo", "--days", "3", "--no-serve")
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	head := fmt.Sprintf("%s of idle GPU time", mustMoney(t, fleetFig.IdleCost).Dollars())
	total := fmt.Sprintf("of GPU cost %s", mustMoney(t, fleetFig.Cost).Dollars())
	if !strings.Contains(out, head) || !strings.Contains(out, total) {
		t.Errorf("the demo headline lacks %q and %q:\n%s", head, total, out)
	}

	// The overview: the month so far by team, its idle cost and idle share.
	ov := api("/api/v1/overview")
	month := cli(t, dir, "report", "cost", "--by", "team", "--since", "1d", "--until", until)
	monthTeams := figuresOf(t, items(field(month, "groups")), figureFields)
	for _, g := range items(field(ov, "top_teams")) {
		f := figuresOf(t, []any{g}, figureFields)
		for team, got := range f {
			if got != monthTeams[team] {
				t.Errorf("overview top team %s: %+v; report cost --since 1d %+v", team, got, monthTeams[team])
			}
		}
	}
	var mtd, mIdle, mGPU gpucost.Money
	for _, g := range items(field(month, "groups")) {
		mtd = mtd.Add(mustMoney(t, field(g, "total_cost").(string)))
		mIdle = mIdle.Add(mustMoney(t, field(g, "idle_cost").(string)))
		mGPU = mGPU.Add(mustMoney(t, field(g, "gpu_cost").(string)))
	}
	if field(ov, "month_to_date") != mtd.Decimal() || field(ov, "idle_cost") != mIdle.Decimal() {
		t.Errorf("overview month to date %v, idle %v; report cost --since 1d %s, %s", field(ov, "month_to_date"), field(ov, "idle_cost"), mtd.Decimal(), mIdle.Decimal())
	}
	// The idle share beside the idle cost is the same month's: idle cost ÷ GPU cost.
	if got, want := field(ov, "idle_pct"), fleet.IdleShare(mIdle, mGPU); got != want {
		t.Errorf("overview idle_pct %v; report cost --since 1d: idle %s of GPU cost %s = %v%%", got, mIdle.Decimal(), mGPU.Decimal(), want)
	}
}

func mustMoney(t *testing.T, s string) gpucost.Money {
	t.Helper()
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		t.Fatalf("money %q: %v", s, err)
	}
	return m
}
