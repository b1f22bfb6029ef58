package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/sqlite"
)

// budgetNow is when the budget tests run: 20 November, with the demo bill up to then.
var budgetNow = time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)

// demoBillStore writes the demo fleet's bill for the two months before budgetNow into a store
// in dir and returns its path.
func demoBillStore(t *testing.T, dir string) string {
	t.Helper()
	cat, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	price := func(itype string) (gpucost.Money, bool) {
		for _, o := range cat.Offers() {
			if o.Provider == "aws" && o.Region == "us-east-1" && o.InstanceType == itype && o.HasOnDemand {
				return o.OnDemand, true
			}
		}
		return gpucost.Money{}, false
	}
	path := filepath.Join(dir, "demo.db")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	stop := errors.New("stop")
	var billErr error
	lines := func(yield func(*gpucost.CostLine) bool) {
		billErr = demo.Bill(demo.Fleet(), budgetNow.AddDate(0, -2, 0), budgetNow.Truncate(24*time.Hour), price, func(l *gpucost.CostLine) error {
			if !yield(l) {
				return stop
			}
			return nil
		})
	}
	imp := gpucost.CostImport{Name: "demo-bill.focus.csv", Checksum: "demo", Format: "focus", Grain: time.Hour}
	if _, err := db.PutCosts(ctx, imp, lines, nil); err != nil || billErr != nil {
		t.Fatalf("store the demo bill: %v, %v", err, billErr)
	}
	return path
}

func runBudgetCLI(t *testing.T, db string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		now: func() time.Time { return budgetNow }}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	return code, out.String(), errb.String()
}

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// The demo's research team (six p3.8xlarge and the weekly 8×A100 evaluation) spends about
// $1,780 a day: some $35,600 by 20 November and about $53,000 projected for the month.
const demoBudgets = `budgets:
  - name: research-roomy
    scope: {team: research}
    period: monthly
    amount: 100000
    notify: [finops]
  - name: research-tight
    scope: {team: research, gpu_only: true}
    period: monthly
    amount: 50000
    thresholds:
      - {actual: 50, notify: [leads]}
      - {forecast: 100, notify: [leads, cto]}
  - name: inference
    scope: {team: inference}
    period: quarterly
    amount: 2000000
`

const demoJob = `name: finetune
instance_type: p4d.24xlarge
count: 2
hours: 48
region: us-east-1
scope: {team: research}
`

func TestBudgetStatusDemo(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	code, out, errOut := runBudgetCLI(t, db, "budget", "status", "--file", budgets)
	if code != exitOK {
		t.Fatalf("budget status: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"research-roomy", "research-tight", "2026-11", "2026-Q4", "actual 50%, forecast 100%", "BURN-DOWN", "▃"} {
		if !strings.Contains(out, want) {
			t.Errorf("budget status lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runBudgetCLI(t, db, "budget", "status", "--file", budgets, "--output", "json")
	if code != exitOK {
		t.Fatalf("budget status --output json: exit %d, stderr %s", code, errOut)
	}
	var st []struct {
		Budget   string
		Spent    string
		Forecast struct{ Method, Projected string }
		Crossed  []struct{ Key string }
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || len(st) != 3 {
		t.Fatalf("budget status json: %v\n%s", err, out)
	}
	tight := st[1]
	if tight.Forecast.Method != "weekday-seasonal" || len(tight.Crossed) != 2 ||
		tight.Crossed[0].Key != "budget:research-tight:2026-11:actual:50" || tight.Crossed[1].Key != "budget:research-tight:2026-11:forecast:100" {
		t.Errorf("research-tight status = %+v", tight)
	}
	// The tight budget counts GPU lines only, not the root volumes.
	roomySpent, _ := strconv.ParseFloat(st[0].Spent, 64)
	tightSpent, _ := strconv.ParseFloat(tight.Spent, 64)
	if len(st[0].Crossed) != 0 || roomySpent <= tightSpent || tightSpent < 30000 {
		t.Errorf("research-roomy status = %+v, want nothing crossed and more spend than research-tight's %s", st[0], tight.Spent)
	}
}

func TestEstimateAgainstBudgets(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	job := writeFile(t, dir, "job.yaml", demoJob)
	roomy := writeFile(t, dir, "roomy.yaml", strings.Split(demoBudgets, "  - name: research-tight")[0])
	all := writeFile(t, dir, "all.yaml", demoBudgets)

	code, out, errOut := runBudgetCLI(t, db, "estimate", job, "--budgets", roomy)
	if code != exitOK {
		t.Fatalf("estimate with a roomy budget: exit %d, stderr %s\n%s", code, errOut, out)
	}
	// 2 × p4d.24xlarge at $21.957642/h × 48 h.
	for _, want := range []string{"$2,107.93", "$43.92/h", "research-roomy", "fits", "skypilot-org/skypilot-catalog"} {
		if !strings.Contains(out, want) {
			t.Errorf("estimate output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runBudgetCLI(t, db, "estimate", job, "--budgets", all, "--output", "json")
	if code != exitBudget {
		t.Fatalf("estimate with a tight budget: exit %d, want %d; stderr %s\n%s", code, exitBudget, errOut, out)
	}
	var res struct {
		Cost    string
		Breaks  bool `json:"breaks_budget"`
		Budgets []struct {
			Budget    string
			LeftAfter string `json:"left_after"`
			Breaks    bool
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if !res.Breaks || res.Cost != "2107.933632" || len(res.Budgets) != 2 || res.Budgets[1].Budget != "research-tight" || !res.Budgets[1].Breaks || res.Budgets[0].Breaks {
		t.Errorf("estimate json = %+v", res)
	}
	// Against the spend so far the tight budget still has room.
	if code, out, _ := runBudgetCLI(t, db, "estimate", job, "--budgets", all, "--against", "actual"); code != exitOK {
		t.Errorf("estimate --against actual: exit %d\n%s", code, out)
	}
	// A job outside every scope fits.
	other := writeFile(t, dir, "other.yaml", strings.Replace(demoJob, "team: research", "team: platform", 1))
	if code, out, _ := runBudgetCLI(t, db, "estimate", other, "--budgets", all); code != exitOK || !strings.Contains(out, "No budget's scope covers this job") {
		t.Errorf("estimate outside every scope: exit %d\n%s", code, out)
	}
}

func TestEstimateInvalid(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "none.db")
	job := writeFile(t, dir, "job.yaml", demoJob)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad job", []string{writeFile(t, dir, "bad.yaml", "instance_type: p4d.24xlarge\nhours: 2\ncont: 3\n")}, `bad.yaml line 3: unknown field "cont"`},
		{"bad budgets", []string{job, "--budgets", writeFile(t, dir, "b.yaml", "budgets:\n  - name: x\n    period: weekly\n    amount: 1\n")}, `b.yaml line 3: budgets[0].period: "weekly" is not allowed`},
		{"unknown instance", []string{writeFile(t, dir, "p9.yaml", "instance_type: p9.mega\nhours: 2\n")}, "no on-demand price for p9.mega"},
		{"missing file", []string{filepath.Join(dir, "nope.yaml")}, "read the job spec"},
		{"bad against", []string{job, "--against", "hope"}, `--against "hope"`},
		{"no args", nil, "accepts 1 arg"},
	} {
		code, _, errOut := runBudgetCLI(t, db, append([]string{"estimate"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("estimate %s: exit %d, stderr %q; want %d and %q", tc.name, code, errOut, exitInvalid, tc.want)
		}
	}
	// Without a store: priced from the bundled catalog, nothing spent, and no store file made.
	code, out, _ := runBudgetCLI(t, db, "estimate", job, "--budgets", writeFile(t, dir, "ok.yaml", demoBudgets))
	if code != exitOK || !strings.Contains(out, "No store file") {
		t.Errorf("estimate without a store: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("estimate created a store file")
	}
	if code, _, errOut := runBudgetCLI(t, db, "budget", "status"); code != exitInvalid || !strings.Contains(errOut, "--file is required") {
		t.Errorf("budget status without --file: exit %d, %s", code, errOut)
	}
}
