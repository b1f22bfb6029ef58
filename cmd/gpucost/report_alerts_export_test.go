package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// promtoolPath returns promtool, or skips (fails under CI=true) naming how to install it.
func promtoolPath(t *testing.T) string {
	t.Helper()
	bin, err := exec.LookPath("promtool")
	if err != nil {
		msg := "promtool is not installed; to run this test: apt-get install -y prometheus"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return bin
}

// TestReportAlertsExportPrometheusRules has promtool check the exported rules and run
// testdata/prometheus-rules-test.yaml over them: each rule fires on dcgm-exporter series after
// its for, with its severity, and not before; the power rule compares with the model's TDP.
func TestReportAlertsExportPrometheusRules(t *testing.T) {
	promtool := promtoolPath(t)
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yaml")
	code, _, errOut := runCLI(t, dir, "report", "alerts", "--export", "prometheus-rules", "--alert-on-no-data", "--out", rules)
	if code != exitOK {
		t.Fatalf("report alerts --export prometheus-rules --out %s: exit %d, stderr %s", rules, code, errOut)
	}
	if out, err := exec.Command(promtool, "check", "rules", rules).CombinedOutput(); err != nil {
		t.Fatalf("promtool check rules: %v\n%s", err, out)
	}
	spec, err := os.ReadFile("testdata/prometheus-rules-test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	test := filepath.Join(dir, "test.yaml")
	if err := os.WriteFile(test, spec, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(promtool, "test", "rules", "test.yaml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules testdata/prometheus-rules-test.yaml: %v\n%s", err, out)
	}
}

// TestReportAlertsExportStdout writes the rules to standard output, every default rule once,
// and refuses an unknown format and --out without --export.
func TestReportAlertsExportStdout(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "report", "alerts", "--export", "prometheus-rules")
	if code != exitOK {
		t.Fatalf("report alerts --export prometheus-rules: exit %d, stderr %s", code, errOut)
	}
	for _, name := range []string{"gpu_underutilized", "gpu_at_capacity", "vram_oom_risk", "gpu_hot", "power_high", "low_sm_occupancy"} {
		if n := strings.Count(out, "- alert: "+name+"\n"); n != 1 {
			t.Errorf("report alerts --export prometheus-rules: rule %s written %d times, want once", name, n)
		}
	}
	if strings.Contains(out, "_no_data") {
		t.Errorf("report alerts --export prometheus-rules wrote a no data rule without --alert-on-no-data")
	}
	if _, err := os.Stat(filepath.Join(dir, "gpucost.db")); err == nil {
		t.Errorf("report alerts --export created the store; it reads none")
	}
	for _, args := range [][]string{{"--export", "grafana"}, {"--out", filepath.Join(dir, "r.yaml")}} {
		if code, _, _ := runCLI(t, dir, append([]string{"report", "alerts"}, args...)...); code != exitInvalid {
			t.Errorf("report alerts %v: exit %d, want %d", args, code, exitInvalid)
		}
	}
}
