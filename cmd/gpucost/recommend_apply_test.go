package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
)

// realizedNow is a Tuesday 01:00: 23 days back is Sunday 2026-11-01 01:00, so the demo's first
// whole Monday is 2026-11-02, its step is applied at 2026-11-03 00:00 and the Mondays 9, 16 and
// 23 follow it.
var realizedNow = time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC)

// realizedJSON is one step of report savings --realized --output json.
type realizedJSON struct {
	ID                  string
	Status, Basis, Note string
	Days                int
	AfterDays           int    `json:"after_days"`
	Predicted           string `json:"predicted"`
	Realized, Low, High string
	BeforeCost          string    `json:"before_cost"`
	AfterCost           string    `json:"after_cost"`
	BeforeUsed          float64   `json:"before_used_gpu_hours"`
	AfterUsed           float64   `json:"after_used_gpu_hours"`
	At                  time.Time `json:"applied_at"`
}

// On the demo fleet (reference case R1) the evaluation machine is released when its job ends
// from 2026-11-03: its bill falls, the step is recorded applied with the plan's prediction, and
// report savings --realized measures it on the bill, to the cent of the figures it reports.
func TestDemoRealizedSaving(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fleet")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	code, out, errOut := runAt(t, db, realizedNow, "demo", "--days", "23", "--no-serve")
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	if !strings.Contains(out, "Applied on 2026-11-03: "+demo.AppliedStep) || !strings.Contains(out, "the bill shows") {
		t.Errorf("demo's headline does not tell the applied step's realized saving:\n%s", out)
	}
	code, out, errOut = runAt(t, db, realizedNow, "report", "savings", "--realized", "--output", "json")
	if code != exitOK {
		t.Fatalf("report savings --realized: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Steps               []realizedJSON
		Measured            int
		Predicted, Realized string
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report savings --realized --output json: %v\n%s", err, out)
	}
	if len(rep.Steps) != 1 || rep.Measured != 1 {
		t.Fatalf("report savings --realized = %d steps, %d measured; want the demo's one, measured", len(rep.Steps), rep.Measured)
	}
	s := rep.Steps[0]
	if s.ID != demo.AppliedStep || s.Status != "measured" || s.Basis != "per used GPU-hour" || s.Days != 21 || s.AfterDays != 3 ||
		!s.At.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("step = %+v; want %s, measured per used GPU-hour over 21 days, 3 of them billed, applied 2026-11-03", s, demo.AppliedStep)
	}
	// The after window's cost is the bill's: the evaluation machine's lines from 2026-11-03.
	if want := evalCost(t, filepath.Join(dir, "demo-bill.focus.csv"), s.At, s.At.AddDate(0, 0, s.Days)); mustMoney(t, s.AfterCost) != want {
		t.Errorf("after cost = %s, the bill's lines say %s", s.AfterCost, want)
	}
	// By hand, from the figures reported: the before rate times the after days' used GPU-hours,
	// less their cost, over the days, times 730/24.
	before, after := mustMoney(t, s.BeforeCost), mustMoney(t, s.AfterCost)
	want := before.MulFloat(s.AfterUsed / s.BeforeUsed).Sub(after).MulFloat(730.0 / 24 / float64(s.Days))
	if got := mustMoney(t, s.Realized); got.Round(2) != want.Round(2) {
		t.Errorf("realized = %s, by hand %s", got.Fixed(2), want.Fixed(2))
	}
	if lo, hi, r := mustMoney(t, s.Low), mustMoney(t, s.High), mustMoney(t, s.Realized); !lo.Less(r) || !r.Less(hi) || r.Nanos <= 0 {
		t.Errorf("realized %s not inside its interval [%s, %s], or not a saving", s.Realized, s.Low, s.High)
	}
	if rep.Predicted != s.Predicted || mustMoney(t, s.Predicted).Nanos <= 0 {
		t.Errorf("predicted total %s, step %s; want the step's, a saving", rep.Predicted, s.Predicted)
	}

	// A step applied a day ago is measuring; removing the record forgets it.
	const commit = "training-p5.48xlarge/commitments/commit-p5.48xlarge"
	if code, _, errOut := runAt(t, db, realizedNow, "recommend", "apply", commit, "--at", "1d", "--note", "approved"); code != exitOK {
		t.Fatalf("recommend apply %s: exit %d\n%s", commit, code, errOut)
	}
	if code, _, errOut := runAt(t, db, realizedNow, "recommend", "apply", commit); code != exitConflict {
		t.Errorf("recommend apply %s twice: exit %d, want %d (conflict)\n%s", commit, code, exitConflict, errOut)
	}
	if code, _, errOut := runAt(t, db, realizedNow, "recommend", "apply", "no-such/step/x"); code != exitNotFound || !strings.Contains(errOut, "gpucost recommend lists") {
		t.Errorf("recommend apply no-such/step/x: exit %d, want %d (not found) saying where ids are\n%s", code, exitNotFound, errOut)
	}
	_, out, _ = runAt(t, db, realizedNow, "report", "savings", "--realized")
	if !strings.Contains(out, "measuring: 0 days so far") || !strings.Contains(out, "1 of 2 applied steps measured") {
		t.Errorf("report savings --realized with a step applied a day ago:\n%s", out)
	}
	if code, _, errOut := runAt(t, db, realizedNow, "recommend", "applied", "--remove", commit); code != exitOK {
		t.Fatalf("recommend applied --remove: exit %d\n%s", code, errOut)
	}
	_, out, _ = runAt(t, db, realizedNow, "recommend", "applied", "--output", "json")
	var listed []struct{ ID string }
	if err := json.Unmarshal([]byte(out), &listed); err != nil || len(listed) != 1 || listed[0].ID != demo.AppliedStep {
		t.Errorf("recommend applied after --remove = %s, %v; want the demo's step alone", out, err)
	}
	_, out, _ = runAt(t, db, realizedNow, "audit", "--action", "step.", "--output", "csv")
	if strings.Count(out, "step.apply") != 2 || strings.Count(out, "step.remove") != 1 {
		t.Errorf("audit --action step. = %s; want two applies (the demo's, the commitment) and one removal", out)
	}
}

// evalCost sums the demo bill's lines of the evaluation machine charged in [from, to).
func evalCost(t *testing.T, path string, from, to time.Time) gpucost.Money {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	id := demo.Instance{Host: "eval-a100-01"}.InstanceID()
	sum := gpucost.USD(0)
	for _, r := range rows[1:] {
		start, err := time.Parse(time.RFC3339, r[col["ChargePeriodStart"]])
		if err != nil {
			t.Fatal(err)
		}
		if r[col["ResourceId"]] == id && !start.Before(from) && start.Before(to) {
			sum = sum.Add(mustMoney(t, r[col["EffectiveCost"]]))
		}
	}
	return sum
}
