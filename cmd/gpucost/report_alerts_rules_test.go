package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestReportAlertsRulesFile evaluates the demo's last day under a rules file: the rules it
// disables raise no alert, and --alert-on-no-data cannot set a rule the file disables; a
// mistake in the file is exit 2 naming its line, column and key.
func TestReportAlertsRulesFile(t *testing.T) {
	dir := loadDemo(t)
	db := filepath.Join(dir, "gpucost.db")
	rules := writeFile(t, dir, "rules.yaml", "rules:\n  - name: gpu_underutilized\n    disabled: true\n  - name: gpu_idle_all_day\n"+
		"    metric: util\n    above: false\n    threshold: 1\n    for: 12h\n")
	names := func(args ...string) map[string]int {
		t.Helper()
		code, out, errOut := runAt(t, db, demoNow, append([]string{"report", "alerts", "--since", "24h", "--output", "json"}, args...)...)
		var rep struct {
			Rules  []struct{ Name string }
			Alerts []struct{ Rule struct{ Name string } }
		}
		if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("report alerts %v: exit %d, stderr %s", args, code, errOut)
		}
		n := map[string]int{}
		for _, r := range rep.Rules {
			n["rule "+r.Name] = 0
		}
		for _, a := range rep.Alerts {
			n[a.Rule.Name]++
		}
		return n
	}
	def, withFile := names(), names("--rules", rules)
	if def["gpu_underutilized"] == 0 {
		t.Fatalf("default rules on the demo: %v; want gpu_underutilized alerts", def)
	}
	if _, ok := withFile["rule gpu_underutilized"]; ok || withFile["gpu_underutilized"] != 0 {
		t.Errorf("--rules disabling gpu_underutilized: %v; want it neither evaluated nor alerting", withFile)
	}
	if _, ok := withFile["rule gpu_idle_all_day"]; !ok {
		t.Errorf("--rules adding gpu_idle_all_day: %v; want it evaluated", withFile)
	}
	if code, _, errOut := runAt(t, db, demoNow, "report", "alerts", "--rules", rules, "--alert-on-no-data"); code != exitInvalid ||
		!strings.Contains(errOut, "--alert-on-no-data sets gpu_underutilized's alert_on_no_data, which "+rules+" disables") {
		t.Errorf("--alert-on-no-data with gpu_underutilized disabled: exit %d, stderr %q; want %d naming the conflict", code, errOut, exitInvalid)
	}
	bad := writeFile(t, dir, "bad.yaml", "rules:\n  - name: gpu_hot\n    threshhold: 80\n")
	code, _, errOut := runAt(t, db, demoNow, "report", "alerts", "--rules", bad)
	if code != exitInvalid || !strings.Contains(errOut, bad+" line 3, column 5: rule gpu_hot: threshhold: unknown key") {
		t.Errorf("report alerts --rules with a misspelt key: exit %d, stderr %q; want %d naming line 3, column 5", code, errOut, exitInvalid)
	}
}

// TestReportAlertsExportRulesFile exports examples/alerts/rules.yaml's rules: promtool accepts
// them, the added rule is there, the disabled one is not, and the changed threshold is used.
func TestReportAlertsExportRulesFile(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "report", "alerts", "--export", "prometheus-rules", "--rules", "../../examples/alerts/rules.yaml")
	if code != exitOK {
		t.Fatalf("report alerts --export prometheus-rules --rules: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"- alert: gpu_very_hot\n", "max_over_time(DCGM_FI_DEV_GPU_TEMP[1m]) > 88", "avg_over_time(DCGM_FI_DEV_GPU_UTIL[1m]) < 30",
		"(added by a --rules file;", "(analyze.DefaultRules, changed by a --rules file;"} {
		if !strings.Contains(out, want) {
			t.Errorf("export with examples/alerts/rules.yaml lacks %q", want)
		}
	}
	if strings.Contains(out, "low_sm_occupancy") {
		t.Error("export with examples/alerts/rules.yaml holds low_sm_occupancy, which the file disables")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool is not installed (apt-get install -y prometheus): the export is not checked by it")
		return
	}
	file := filepath.Join(dir, "rules.yaml")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	if msg, err := exec.Command(promtool, "check", "rules", file).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, msg)
	}
}

// TestReportSpotRulesFile: report spot takes spot_interruptions from --rules, says when the
// file turns the alert off, and refuses a rule the file gets wrong.
func TestReportSpotRulesFile(t *testing.T) {
	events := writeSpotEvents(t)
	dir := t.TempDir()
	off := writeFile(t, dir, "off.yaml", "rules:\n  - name: spot_interruptions\n    disabled: true\n")
	code, out, errOut := runCLI(t, dir, "report", "spot", "--store", events, "--rules", off)
	if code != exitOK || !strings.Contains(out+errOut, "The interruption alert is off: "+off+" disables spot_interruptions.") {
		t.Errorf("report spot --rules disabling the alert: exit %d\n%s%s", code, out, errOut)
	}
	window := writeFile(t, dir, "window.yaml", "rules:\n  - name: spot_interruptions\n    window: 300h\n")
	code, out, errOut = runCLI(t, dir, "report", "spot", "--store", events, "--rules", window)
	if code != exitOK || !strings.Contains(out+errOut, "in the 300h0m0s before") {
		t.Errorf("report spot --rules with a 300 h window: exit %d; want it in the note\n%s%s", code, out, errOut)
	}
	bad := writeFile(t, dir, "bad.yaml", "rules:\n  - name: spot_interruptions\n    for: 6h\n")
	if code, _, errOut := runCLI(t, dir, "report", "spot", "--store", events, "--rules", bad); code != exitInvalid ||
		!strings.Contains(errOut, "line 3, column 5: rule spot_interruptions: for: the interruption rule counts over a window:") {
		t.Errorf("report spot --rules with for: exit %d, stderr %q", code, errOut)
	}
}

// TestServeRulesFile serves the demo with --rules disabling gpu_underutilized: GET
// /api/v1/alerts evaluates the file's rules, as report alerts --rules does.
func TestServeRulesFile(t *testing.T) {
	dir := loadDemo(t)
	rules := writeFile(t, dir, "rules.yaml", "rules:\n  - name: gpu_underutilized\n    disabled: true\n")
	o := serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20}
	o.alerts.flags.file = rules
	if err := o.alerts.load(); err != nil {
		t.Fatal(err)
	}
	s := startViewServer(t, filepath.Join(dir, "gpucost.db"), o)
	code, body := s.do(t, "GET", "/api/v1/alerts", gpucost.RoleViewer, nil)
	var rep struct {
		Rules  []struct{ Name string }
		Alerts []struct{ Rule struct{ Name string } }
	}
	if code != 200 || json.Unmarshal(body, &rep) != nil {
		t.Fatalf("GET /api/v1/alerts: %d\n%s", code, body)
	}
	if len(rep.Rules) != 5 || len(rep.Alerts) == 0 {
		t.Errorf("GET /api/v1/alerts under --rules: %d rules, %d alerts; want the 5 left and their alerts", len(rep.Rules), len(rep.Alerts))
	}
	for _, a := range rep.Alerts {
		if a.Rule.Name == "gpu_underutilized" {
			t.Fatalf("GET /api/v1/alerts under --rules disabling gpu_underutilized holds its alert")
		}
	}
}
