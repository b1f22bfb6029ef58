package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestReportAnomaliesDemoWeekly: the demo's two months of bill hold the research team's weekly
// evaluation job every Monday. Against the trailing 14 days alone each Monday is an anomaly;
// with the weekly check (the default) none is, and the report says how many it set aside.
func TestReportAnomaliesDemoWeekly(t *testing.T) {
	db := demoBillStore(t, t.TempDir())
	type report struct { // analyze.AnomalyReport as JSON, the fields read here
		Anomalies []struct {
			Scope string
			Day   time.Time
		}
		Weekly int
	}
	count := func(args ...string) report {
		t.Helper()
		code, out, errOut := runBudgetCLI(t, db, append([]string{"report", "anomalies", "--by", "team", "--since", "30d", "--output", "json"}, args...)...)
		var rep report
		if code != exitOK {
			t.Fatalf("report anomalies %v: exit %d, stderr %s", args, code, errOut)
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("report anomalies %v: %v\n%s", args, err, out)
		}
		return rep
	}
	before := count("--weekly", "-1")
	var mondays []string
	for _, a := range before.Anomalies {
		mondays = append(mondays, a.Day.Format("Mon 2006-01-02")+" "+a.Scope)
		if a.Day.Weekday().String() != "Monday" || a.Scope != "research" {
			t.Errorf("without the weekly check: anomaly %s %s; want research on Mondays only", a.Day.Format("Mon 2006-01-02"), a.Scope)
		}
	}
	if len(before.Anomalies) < 3 {
		t.Errorf("without the weekly check: %d anomalies %v; want research's Mondays", len(before.Anomalies), mondays)
	}
	after := count()
	if len(after.Anomalies) != 0 || after.Weekly != len(before.Anomalies) {
		t.Errorf("weekly check: %d anomalies, %d usual for their weekday; want 0 and %d", len(after.Anomalies), after.Weekly, len(before.Anomalies))
	}
	_, out, _ := runBudgetCLI(t, db, "report", "anomalies", "--by", "team", "--since", "30d")
	if !strings.Contains(out, "0 anomalies in 5 scopes") || !strings.Contains(out, "were usual for their weekday") {
		t.Errorf("report anomalies table:\n%s", out)
	}
	t.Logf("demo, by team, 30 days: %d anomalies with --weekly -1, %d with the weekly check", len(before.Anomalies), len(after.Anomalies))
}
