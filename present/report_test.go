package present

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/serving"
	"github.com/gpucost/gpucost/spot"
)

func usd(t *testing.T, s string) gpucost.Money {
	t.Helper()
	m, err := gpucost.ParseMoney(s, "USD")
	if err != nil {
		t.Fatalf("ParseMoney(%q): %v", s, err)
	}
	return m
}

func TestDuration(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{time.Hour + 2*time.Minute + 3400*time.Millisecond, "1h2m3s"},
		{4540 * time.Millisecond, "4.5s"},
		{12345 * time.Microsecond, "12ms"},
		{0, "0s"},
	} {
		if got := Duration(c.in); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestShareOf(t *testing.T) {
	for _, c := range []struct {
		n, total int64
		want     string
	}{
		{1, 3, "33.3%"},
		{5, 5, "100.0%"},
		{5, 0, ""},
	} {
		if got := ShareOf(c.n, c.total); got != c.want {
			t.Errorf("ShareOf(%d, %d) = %q, want %q", c.n, c.total, got, c.want)
		}
	}
}

// TestCosts: each group's cost is its spend less idle, its share is of its own currency's
// total, Idle % is blank without GPU cost, and the daily spend is drawn against the group's
// most expensive day.
func TestCosts(t *testing.T) {
	eur, _ := gpucost.ParseMoney("50", "EUR")
	groups := []fleet.Figures{
		{Group: "research", Currency: "USD", UsedCost: usd(t, "60"), IdleCost: usd(t, "15"), OtherCost: usd(t, "0"),
			Daily: []gpucost.Money{usd(t, "0"), usd(t, "25"), usd(t, "50")}},
		{Group: "web", Currency: "USD", OtherCost: usd(t, "25")},
		{Group: "eu", Currency: "EUR", OtherCost: eur, IdleCost: gpucost.Money{Currency: "EUR"}},
	}
	d, err := fleet.ParseDimension("team")
	if err != nil {
		t.Fatal(err)
	}
	p := fleet.Period{Start: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 3, 31, 0, 0, 0, 0, time.UTC)}
	got := Costs(d, p, groups, nil, nil)
	if got.Title != "Spend by team, 2026-03-01 to 2026-03-30" || got.Columns[0] != "Team" {
		t.Errorf("Costs title %q, first column %q; want the period and \"Team\"", got.Title, got.Columns[0])
	}
	want := [][]string{
		{"research", "USD", "60.00", "15.00", "75.00", "20.0%", "0.0", "0.0", "", "", "75.0%", "▁▅█"},
		{"web", "USD", "25.00", "0.00", "25.00", "", "0.0", "0.0", "", "", "25.0%", ""},
		{"eu", "EUR", "50.00", "0.00", "50.00", "", "0.0", "0.0", "", "", "100.0%", ""},
	}
	for i, row := range got.Rows {
		if !slices.Equal(row, want[i]) {
			t.Errorf("Costs row %d = %q, want %q", i, row, want[i])
		}
	}
}

// TestGPUOnlyNotes: --gpu-only's note gives what its Total column adds up to and the bill's
// effective cost in other lines, leaving out GPU time the catalog priced, which is not billed.
func TestGPUOnlyNotes(t *testing.T) {
	groups := []fleet.Figures{
		{Group: "research", Currency: "USD", UsedCost: usd(t, "60.004"), IdleCost: usd(t, "15"), OtherCost: usd(t, "0")},
		{Group: "web", Currency: "USD", UsedCost: usd(t, "20.004"), IdleCost: usd(t, "0"), OtherCost: usd(t, "5")},
	}
	bill := []gpucost.CostTotal{{Currency: "USD", BilledCost: usd(t, "120"), EffectiveCost: usd(t, "110")}}
	got := gpuOnlyNotes(groups, bill, []gpucost.Money{usd(t, "10")})
	want := "--gpu-only: the Total column adds up to USD 100.01, the GPU lines and the other lines of the resources that have them; USD 19.99 of the bill's effective cost is in other lines."
	if len(got) != 1 || got[0] != want {
		t.Errorf("gpuOnlyNotes = %q, want %q", got, want)
	}
}

// TestJobs: a job without prices shows dashes and null in JSON, and skipped objects get a note.
func TestJobs(t *testing.T) {
	reps := []spot.JobReport{
		{Job: "priced", Status: "done", Runs: 2, Wall: 90 * time.Minute, Cost: usd(t, "3.5"), Priced: true,
			OnDemand: usd(t, "10"), HasOnDemand: true, Savings: usd(t, "6.5"), SavingsPct: 61.25},
		{Job: "unpriced", Status: "vanished", Runs: 1, Wall: 1500 * time.Millisecond},
	}
	got := Jobs(reps, 2)
	if row := got.Rows[0]; row[10] != "$3.50" || row[11] != "$10.00" || row[12] != "$6.50" || row[13] != "61.2%" || row[3] != "1h30m0s" {
		t.Errorf("Jobs row 0 = %q; want $3.50, $10.00, $6.50 saved, 61.2%% and 1h30m0s", row)
	}
	if row := got.Rows[1]; row[10] != "—" || row[11] != "—" || row[12] != "—" || row[3] != "1.5s" {
		t.Errorf("Jobs row 1 = %q; want dashes for the unknown prices and 1.5s", row)
	}
	if n := got.Notes[len(got.Notes)-1]; !strings.HasPrefix(n, "2 unreadable event objects") {
		t.Errorf("Jobs last note = %q; want the 2 skipped objects", n)
	}
	var js []map[string]any
	b, _ := json.Marshal(got.JSON)
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	if js[0]["cost"] != "3.5" || js[0]["currency"] != "USD" || js[1]["cost"] != nil || js[1]["currency"] != "USD" || js[0]["wall_s"] != 5400.0 {
		t.Errorf("Jobs JSON = %s; want cost \"3.5\" then null, USD both, wall_s 5400", b)
	}
}

// TestUntagged: --limit cuts the list with a note, a resource shows three SKUs and how many more,
// and the untagged share is of the whole effective cost.
func TestUntagged(t *testing.T) {
	skus := []fleet.SKUCost{{SKU: "a", Cost: usd(t, "4")}, {SKU: "b", Cost: usd(t, "3")}, {SKU: "c", Cost: usd(t, "2")}, {SKU: "d", Cost: usd(t, "1")}}
	list := []*fleet.Untagged{
		{ResourceID: "i-1", Currency: "USD", EffectiveCost: usd(t, "10"), BilledCost: usd(t, "12"), SKUs: skus, TagKeys: []string{"Name", "env"}},
		{ResourceID: "i-2", Currency: "USD", EffectiveCost: usd(t, "5"), BilledCost: usd(t, "5")},
	}
	got := Untagged(list, 1, "team", usd(t, "60"), usd(t, "15"))
	if len(got.Rows) != 1 || got.Rows[0][7] != "a 4.00; b 3.00; c 2.00; +1" || got.Rows[0][8] != "Name env" {
		t.Errorf("Untagged rows = %q; want i-1 alone with three SKUs and +1", got.Rows)
	}
	want := []string{"… 1 more resources (--limit 0 shows all).", "Untagged: 15.00 of 60.00 USD effective cost (25.0%) in 2 resources."}
	if !slices.Equal(got.Notes, want) {
		t.Errorf("Untagged notes = %q, want %q", got.Notes, want)
	}
}

// TestAlerts: --state keeps the alerts in that state, and a table with none says so.
func TestAlerts(t *testing.T) {
	rep := analyze.AlertReport{Minutes: 60, Series: 2, Alerts: []analyze.Alert{
		{State: analyze.Firing, Rule: analyze.Rule{Name: "hot"}, Worst: 91.25},
		{State: analyze.Resolved, Rule: analyze.Rule{Name: "idle"}},
	}}
	for _, c := range []struct {
		state string
		rules []string
		notes []string
	}{
		{"all", []string{"hot", "idle"}, nil},
		{"firing", []string{"hot"}, nil},
		{"pending", nil, []string{"No alerts."}},
	} {
		got := Alerts(rep, c.state)
		var rules []string
		for _, r := range got.Rows {
			rules = append(rules, r[2])
		}
		if !slices.Equal(rules, c.rules) || !slices.Equal(got.Notes, c.notes) {
			t.Errorf("Alerts(state %s) = rules %q, notes %q; want %q, %q", c.state, rules, got.Notes, c.rules, c.notes)
		}
	}
}

// TestIdle: --limit lists the first periods, sums the rest in a last row and says how many are
// left out, and a GPU idle in the same hours every day has its window.
func TestIdle(t *testing.T) {
	start := time.Date(2026, 3, 1, 19, 0, 0, 0, time.UTC)
	var periods []analyze.IdlePeriod
	for i := range 3 {
		s := gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-" + string(rune('a'+i))}}
		periods = append(periods, analyze.IdlePeriod{Series: &s, Start: start, End: start.Add(time.Duration(3-i) * time.Hour),
			Duration: gpucost.Duration(time.Duration(3-i) * time.Hour), GPUHours: float64(3 - i)})
	}
	periods[0].Open = true
	got := Idle(IdleReport{ZeroUtil: analyze.IdleReport{Periods: periods, MinIdle: gpucost.Duration(time.Hour)}}, 2)
	if len(got.Rows) != 3 || got.Rows[0][0] != "GPU-a" || got.Rows[0][5] != "2026-03-01 22:00 (still idle)" || got.Rows[1][7] != "2.00" ||
		got.Rows[2][0] != "1 other period" || got.Rows[2][7] != "1.00" {
		t.Errorf("Idle rows = %q; want GPU-a still idle, then GPU-b with 2.00 GPU-hours, then the 1 other period's 1.00", got.Rows)
	}
	if got.Notes[0] != "Showing 2 of 3 periods, the longest; --limit 0 for all." {
		t.Errorf("Idle first note = %q; want the one period left out", got.Notes[0])
	}
}

// TestWriteRecommendServing: with csv both sections are one table with a Section column and
// the notes go to stderr; with json, one object.
func TestWriteRecommendServing(t *testing.T) {
	rec := gpucost.Recommendation{Kind: "idle", Action: "stop gpu-1", MonthlySaving: usd(t, "100"), Confidence: "high", Evidence: []string{"a", "b"}}
	p := recommend.Plan{Before: usd(t, "300"), After: usd(t, "200"), Saving: usd(t, "100"), Groups: []recommend.PlanGroup{{
		ID: "nb-g5", Name: "nb: 1 × aws us-east-1 g5", Before: usd(t, "300"), After: usd(t, "200"),
		Steps: []recommend.PlanStep{{ID: "nb-g5/idle/schedule", Lever: "idle", Recommendation: rec, Before: usd(t, "300"), After: usd(t, "200"),
			Needs: []string{"the users agree"}}}}}}
	sec := serving.Section{Recommendations: []gpucost.Recommendation{{Kind: "serving", Action: "3 replicas", MonthlySaving: usd(t, "50")}}}
	var out, notes bytes.Buffer
	if err := WriteRecommendServing(&out, &notes, "csv", p, sec); err != nil {
		t.Fatal(err)
	}
	want := "Section,#,ID,Lever,Action,Before,After,Saving,Confidence,Risk,Evidence\n" +
		"plan,1,nb-g5,,nb: 1 × aws us-east-1 g5,$300.00,$200.00,,,,\n" +
		"plan,1.1,nb-g5/idle/schedule,idle,stop gpu-1,$300.00,$200.00,$100.00,high,,\n" +
		"serving,S1,,serving,3 replicas,,,$50.00,,,\n"
	if out.String() != want || !strings.Contains(notes.String(), "1.1 nb-g5/idle/schedule: needs the users agree;") ||
		!strings.Contains(notes.String(), "evidence: a; b") || !strings.Contains(notes.String(), "S1. evidence: ") {
		t.Errorf("WriteRecommendServing(csv) = %q, notes %q; want %q and both sections' evidence in the notes", out.String(), notes.String(), want)
	}
	out.Reset()
	if err := WriteRecommendServing(&out, &notes, "json", p, sec); err != nil {
		t.Fatal(err)
	}
	var v map[string]json.RawMessage
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v["plan"] == nil || v["serving"] == nil {
		t.Errorf("WriteRecommendServing(json) = %s (%v); want plan and serving", out.String(), err)
	}
}
