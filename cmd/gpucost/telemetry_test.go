package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The demo fleet, loaded once for the report tests: 3 days keep the test quick.
func loadDemo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "demo", "--days", "3", "--no-serve")
	if code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"gpucost demo — 88 GPUs, 5952.0 GPU-hours over 3 days", "research", "serving",
		"overprovisioned", "well utilized", "(fleet)", "Prices: the bill's effective cost"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo headline lacks %q:\n%s", want, out)
		}
	}
	return dir
}

func TestDemoReportsMatchTheFleet(t *testing.T) {
	dir := loadDemo(t)

	// Loading again reuses the store and prints the same headline.
	code, again, errOut := runCLI(t, dir, "demo", "--days", "3", "--no-serve")
	if code != exitOK || !strings.Contains(errOut, "already in") {
		t.Errorf("second demo: exit %d, stderr %q; want reuse of the loaded fleet", code, errOut)
	}

	code, out, errOut := runCLI(t, dir, "report", "utilization", "--since", "3d", "--by", "namespace", "--output", "json")
	if code != exitOK {
		t.Fatalf("report utilization: exit %d\n%s", code, errOut)
	}
	var rep struct {
		Groups []struct {
			Key      string
			GPUs     int     `json:"gpus"`
			UtilMean float64 `json:"util_mean"`
			IdlePct  float64 `json:"idle_pct"`
			IdleCost string  `json:"idle_cost"`
			Verdict  string
		}
		Fleet struct {
			GPUs     int     `json:"gpus"`
			GPUHours float64 `json:"gpu_hours"`
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("report utilization --output json: %v\n%s", err, out)
	}
	if rep.Fleet.GPUs != 88 || rep.Fleet.GPUHours != 5952 {
		t.Errorf("fleet = %d GPUs, %v GPU-hours; want 88, 5952", rep.Fleet.GPUs, rep.Fleet.GPUHours)
	}
	byNS := map[string]int{}
	for i, g := range rep.Groups {
		byNS[g.Key] = i
	}
	serving, research := rep.Groups[byNS["serving"]], rep.Groups[byNS["research"]]
	if serving.GPUs != 40 || serving.UtilMean < 15 || serving.UtilMean > 25 {
		t.Errorf("serving = %d GPUs at %.1f%%; want 40 at about 20%%", serving.GPUs, serving.UtilMean)
	}
	if research.IdlePct < 70 || research.Verdict != "overprovisioned" {
		t.Errorf("research idle %.1f%%, %s; want three of four GPUs idle, overprovisioned", research.IdlePct, research.Verdict)
	}
	if !strings.Contains(again, "5952.0 GPU-hours") {
		t.Errorf("second demo headline differs:\n%s", again)
	}

	code, out, _ = runCLI(t, dir, "report", "utilization", "--since", "3d", "--by", "gpu", "--output", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != exitOK || err != nil || len(rows) != 1+88+1 {
		t.Errorf("report utilization --by gpu --output csv: exit %d, %v, %d rows; want header + 88 GPUs + fleet", code, err, len(rows))
	}

	code, out, _ = runCLI(t, dir, "report", "idle", "--since", "3d", "--min", "2h")
	if code != exitOK || !strings.Contains(out, "idle daily 18:00–09:00") || !strings.Contains(out, "notebook-a10g") {
		t.Errorf("report idle: exit %d; want the notebooks' nightly pattern:\n%s", code, out)
	}

	code, out, _ = runCLI(t, dir, "report", "alerts", "--since", "24h", "--state", "firing")
	if code != exitOK || !strings.Contains(out, "gpu_underutilized") || !strings.Contains(out, "research-v100") {
		t.Errorf("report alerts: exit %d; want idle research GPUs firing gpu_underutilized:\n%s", code, out)
	}
}

func TestReportWithoutDataSaysWhatToDo(t *testing.T) {
	code, _, errOut := runCLI(t, t.TempDir(), "report", "utilization")
	if code != exitNotFound || !strings.Contains(errOut, "gpucost demo") {
		t.Errorf("report on an empty store: exit %d, %q; want %d and a hint", code, errOut, exitNotFound)
	}
	code, _, errOut = runCLI(t, t.TempDir(), "report", "utilization", "--since", "yesterday")
	if code != exitInvalid || !strings.Contains(errOut, "--since") {
		t.Errorf("--since yesterday: exit %d, %q; want %d naming the flag", code, errOut, exitInvalid)
	}
	code, _, _ = runCLI(t, t.TempDir(), "report", "utilization", "--by", "team")
	if code != exitInvalid {
		t.Errorf("--by team: exit %d, want %d", code, exitInvalid)
	}
}

func TestImportTelemetryIsIdempotentAndReportsBadLines(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join("..", "..", "telemetry", "dcgm", "testdata", "samples", "kops_aws_L4.prom")
	bad := filepath.Join(dir, "bad.prom")
	body, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(bad, append(append([]byte{}, body...), []byte("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\" 12\n")...), 0o644)
	at := "2026-12-01T10:00:00Z"

	code, out, errOut := runCLI(t, dir, "import", "telemetry", "--format", "dcgm", "--at", at, "--output", "json", bad)
	if code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, errOut)
	}
	var first []fileStats
	json.Unmarshal([]byte(out), &first)
	if len(first) != 1 || first[0].Samples != 1 || first[0].Skipped != 1 || first[0].Rollups == 0 {
		t.Fatalf("import stats = %+v; want 1 sample, 1 skipped line, rollups stored", first)
	}
	if !strings.Contains(strings.Join(first[0].Skips, "\n"), "bad.prom:") {
		t.Errorf("skips %q do not name file and line", first[0].Skips)
	}

	code, out, _ = runCLI(t, dir, "import", "telemetry", "--format", "dcgm", "--at", at, "--output", "json", bad)
	var second []fileStats
	json.Unmarshal([]byte(out), &second)
	if code != exitOK || len(second) != 1 || second[0].Rollups != 0 || second[0].Repeated != first[0].Rollups {
		t.Errorf("re-import = %+v; want every rollup already stored", second)
	}

	notDCGM := filepath.Join(dir, "notes.txt")
	os.WriteFile(notDCGM, []byte("hello\nworld\n"), 0o644)
	if code, _, errOut := runCLI(t, dir, "import", "telemetry", notDCGM); code != exitInvalid {
		t.Errorf("import of a non-dcgm file: exit %d (%s), want %d", code, errOut, exitInvalid)
	}
}

func TestAgentStoresDemoSourceAndStopsCleanly(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	var out, errb strings.Builder
	db := filepath.Join(dir, "gpucost.db")
	code := run(ctx, []string{"agent", "--source", "demo:8", "--interval", "100ms", "--db", db},
		&env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: time.Now})
	if code != exitOK {
		t.Fatalf("agent: exit %d\n%s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "agent stopped") {
		t.Errorf("agent log lacks its stop:\n%s", errb.String())
	}
	var rout, rerr strings.Builder
	code = run(context.Background(), []string{"report", "utilization", "--since", "2h", "--db", db, "--output", "csv"},
		&env{stdout: &rout, stderr: &rerr, getenv: func(string) string { return "" }, now: func() time.Time { return time.Now().Add(time.Minute) }})
	rows, _ := csv.NewReader(strings.NewReader(rout.String())).ReadAll()
	if code != exitOK || len(rows) != 1+8+1 {
		t.Errorf("report after agent: exit %d, %d rows (%s); want 8 GPUs", code, len(rows), rerr.String())
	}
}

func TestProfileExitsWithTheCommandsCode(t *testing.T) {
	recordings, _ := filepath.Abs(filepath.Join("..", "..", "telemetry", "nvidiasmi", "testdata"))
	t.Setenv("FAKE_NVIDIA_SMI", filepath.Join(recordings, "a100-8gpu"))
	code, out, errOut := runCLI(t, t.TempDir(), "profile", "--source", "nvidia-smi="+filepath.Join(recordings, "fake-nvidia-smi"),
		"--interval", "50ms", "--", "sh", "-c", "sleep 0.3; exit 7")
	if code != 7 {
		t.Fatalf("profile: exit %d, want the command's 7\n%s", code, errOut)
	}
	for _, want := range []string{"util mean / p50 / p95", "VRAM peak", "verdict", "cheapest fit (peak + 20%)"} {
		if !strings.Contains(out, want) {
			t.Errorf("profile output lacks %q:\n%s", want, out)
		}
	}
}

func TestUnknownSubcommandIsAUsageError(t *testing.T) {
	for _, args := range [][]string{{"bogus"}, {"report", "bogus"}, {"catalog", "gpus", "extra"}} {
		if code, _, _ := runCLI(t, t.TempDir(), args...); code != exitInvalid {
			t.Errorf("gpucost %v: exit %d, want %d", args, code, exitInvalid)
		}
	}
	if code, out, _ := runCLI(t, t.TempDir(), "report"); code != exitOK || !strings.Contains(out, "utilization") {
		t.Errorf("gpucost report: exit %d, want 0 and its help:\n%s", code, out)
	}
}
