package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReportAlertsAgentStops: the demo fleet's data ends at demoNow, with alerts firing. Two
// hours later, its agents silent, every one of them is "no data", none resolved; with
// --alert-on-no-data every GPU that reported in the last 24 hours and stopped is.
func TestReportAlertsAgentStops(t *testing.T) {
	db := filepath.Join(loadDemo(t), "gpucost.db")
	type report struct {
		Series int
		Alerts []struct {
			State    string
			Evidence string
			Rule     struct{ Name string }
			Series   struct{ GPU struct{ UUID string } }
		}
	}
	alerts := func(now time.Time, args ...string) (report, string) {
		t.Helper()
		code, out, errOut := runAt(t, db, now, append([]string{"report", "alerts", "--since", "24h", "--output", "json"}, args...)...)
		var rep report
		if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("report alerts %v at %v: exit %d, stderr %s\n%s", args, now, code, errOut, out)
		}
		return rep, errOut
	}
	count := func(rep report) map[string]int {
		n := map[string]int{}
		for _, a := range rep.Alerts {
			n[a.State]++
		}
		return n
	}

	live, _ := alerts(demoNow)
	firing := count(live)["firing"]
	if firing == 0 {
		t.Fatalf("at the end of the data: %v; want alerts firing", count(live))
	}
	later, notes := alerts(demoNow.Add(2 * time.Hour))
	n := count(later)
	if n["firing"] != 0 || n["no data"] != firing || n["resolved"] != count(live)["resolved"] {
		t.Errorf("2h after the data stopped: %v; want the %d firing as no data and the %d resolved as they were", n, firing, count(live)["resolved"])
	}
	for _, a := range later.Alerts {
		if a.State == "no data" && !strings.HasSuffix(a.Evidence, "; then no data since 2026-12-02 00:00 UTC") {
			t.Errorf("no data alert %s: evidence %q", a.Rule.Name, a.Evidence)
			break
		}
	}
	if !strings.Contains(notes, "alerts are no data: their GPUs stopped reporting") {
		t.Errorf("report alerts notes = %q; want the count of no data alerts", notes)
	}

	_, out, _ := runAt(t, db, demoNow.Add(2*time.Hour), "report", "alerts", "--since", "24h", "--state", "no-data")
	if strings.Contains(out, "│ resolved") || strings.Contains(out, "│ firing") || !strings.Contains(out, "│ no data") {
		t.Errorf("report alerts --state no-data:\n%s", out)
	}

	dead, _ := alerts(demoNow.Add(2*time.Hour), "--alert-on-no-data")
	gpus := map[string]bool{}
	for _, a := range dead.Alerts {
		if a.State == "no data" && a.Rule.Name == "gpu_underutilized" {
			gpus[a.Series.GPU.UUID] = true
		}
	}
	if len(gpus) != dead.Series || dead.Series < 80 {
		t.Errorf("--alert-on-no-data: %d GPUs with a no data gpu_underutilized alert of %d series; want every series of the last 24h", len(gpus), dead.Series)
	}
}
