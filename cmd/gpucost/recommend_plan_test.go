package main

import (
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// On the demo fleet (reference case R1's shape) recommend's plan and report savings are one
// computation: the same total to the nano-dollar, the CSV's Saving column adds up to it rounded, no
// "double counts" footnote, and the plan cuts at least R1's 58% with each lever's share.
func TestRecommendPlanDemo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the demo fleet")
	}
	db := filepath.Join(t.TempDir(), "demo.db")
	if code, _, errOut := runAt(t, db, servingNow, "demo", "--days", "3", "--no-serve"); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runAt(t, db, servingNow, "recommend", "--since", "3d", "--output", "json")
	if code != exitOK {
		t.Fatalf("recommend --output json: exit %d\n%s", code, errOut)
	}
	var plan struct {
		Before, After, Saving string
		SavingPercent         float64 `json:"saving_pct"`
		Levers                []struct {
			Lever   string
			Percent float64
		}
		Groups []struct {
			ID    string
			Steps []struct {
				ID             string
				Needs          []string
				Alternatives   []struct{ Why string }
				Recommendation struct {
					MonthlySaving string `json:"monthly_saving"`
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	code, out, errOut = runAt(t, db, servingNow, "report", "savings", "--since", "3d", "--output", "json")
	if code != exitOK {
		t.Fatalf("report savings: exit %d\n%s", code, errOut)
	}
	var savings struct{ Before, After, Saving string }
	if err := json.Unmarshal([]byte(out), &savings); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if plan.Saving == "" || plan.Saving != savings.Saving || plan.Before != savings.Before || plan.After != savings.After {
		t.Errorf("recommend plan %s → %s saves %s; report savings %s → %s saves %s: want the same", plan.Before, plan.After, plan.Saving,
			savings.Before, savings.After, savings.Saving)
	}
	sum, ids, alts := gpucost.USD(0), map[string]bool{}, 0
	for _, g := range plan.Groups {
		for _, s := range g.Steps {
			m, err := gpucost.ParseMoney(s.Recommendation.MonthlySaving, "USD")
			if err != nil || ids[s.ID] || !strings.HasPrefix(s.ID, g.ID+"/") || len(s.Needs) == 0 {
				t.Errorf("step %s: saving %q (%v), seen before %v, needs %q: want a unique ID under its group and what it needs", s.ID, s.Recommendation.MonthlySaving, err, ids[s.ID], s.Needs)
			}
			ids[s.ID], sum, alts = true, sum.Add(m), alts+len(s.Alternatives)
		}
	}
	total, _ := gpucost.ParseMoney(plan.Saving, "USD")
	if sum != total {
		t.Errorf("steps add up to %s, plan saves %s", sum, total)
	}
	if alts == 0 {
		t.Errorf("demo plan has no alternatives: the p3.8xlarge experiments' direct move to another GPU type competes with fewer GPUs")
	}
	var shares float64
	var named []string
	for _, l := range plan.Levers {
		shares += l.Percent
		if l.Percent > 0 {
			named = append(named, l.Lever)
		}
	}
	t.Logf("demo plan (3 days): %s → %s, −%.1f%%, levers %v", plan.Before, plan.After, plan.SavingPercent, plan.Levers)
	if plan.SavingPercent < 58 || shares < plan.SavingPercent-0.01 || shares > plan.SavingPercent+0.01 {
		t.Errorf("demo plan cuts %.2f%%, lever shares add up to %.2f%%: want ≥ 58%% (reference case R1) and equal", plan.SavingPercent, shares)
	}
	for _, want := range []string{"right-sizing", "autoscaling", "spot", "commitments"} {
		if !strings.Contains(strings.Join(named, " "), want) {
			t.Errorf("demo plan levers %v lack %s", named, want)
		}
	}

	code, out, errOut = runAt(t, db, servingNow, "recommend", "--since", "3d")
	if code != exitOK || strings.Contains(out+errOut, "double count") || !strings.Contains(out, "instead of: ") ||
		!strings.HasPrefix(out, "Monthly GPU cost $") || !strings.Contains(strings.SplitN(out, "\n", 2)[0], " saved): right-sizing ") {
		t.Errorf("recommend (exit %d) prints no plan headline or folded alternatives, or a double-count footnote:\n%s\n%s", code, out, errOut)
	}
	code, out, _ = runAt(t, db, servingNow, "recommend", "--since", "3d", "--output", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != exitOK || err != nil || len(rows) < 2 {
		t.Fatalf("recommend --output csv: exit %d, %v\n%s", code, err, out)
	}
	col := sliceIndex(rows[0], "saving_usd")
	csvSum := gpucost.USD(0)
	for _, r := range rows[1:] {
		if r[col] != "" {
			m, err := gpucost.ParseMoney(strings.NewReplacer("$", "", ",", "").Replace(r[col]), "USD")
			if err != nil {
				t.Fatalf("Saving %q: %v", r[col], err)
			}
			csvSum = csvSum.Add(m)
		}
	}
	if csvSum != total.Round(2) {
		t.Errorf("recommend --output csv: the Saving column adds up to %s, the plan saves %s", csvSum.Fixed(2), total.Fixed(2))
	}
}

func sliceIndex(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}
