package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// smiShapes is where the captured H200 driver output lies.
var smiShapes = filepath.Join("..", "..", "telemetry", "nvidiasmi", "testdata")

// utilGroup is one GPU's row of report utilization --by gpu --output json.
type utilGroup struct {
	Key              string `json:"key"`
	Model            string `json:"model"`
	Host             string `json:"host"`
	Samples          int
	UtilMean         float64  `json:"util_mean"`
	UtilMax          float64  `json:"util_max"`
	MemPeakMiB       float64  `json:"mem_peak_mib"`
	MemTotalMiB      float64  `json:"mem_total_mib"`
	PowerMaxW        *float64 `json:"power_max_w"`
	UnpricedGPUHours float64  `json:"unpriced_gpu_hours"`
}

// importAndReport imports files with args and returns report utilization --by gpu of the day
// 2026-11-27.
func importAndReport(t *testing.T, args ...string) ([]fileStats, []utilGroup) {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, append(append([]string{"import", "telemetry"}, args...), "--output", "json")...)
	var st []fileStats
	if code != exitOK || json.Unmarshal([]byte(out), &st) != nil {
		t.Fatalf("import telemetry %v: exit %d\n%s%s", args, code, out, errOut)
	}
	code, out, errOut = runCLI(t, dir, "report", "utilization", "--since", "2026-11-27", "--until", "2026-11-27", "--by", "gpu", "--output", "json")
	var rep struct{ Groups []utilGroup }
	if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("report utilization after import %v: exit %d\n%s%s", args, code, out, errOut)
	}
	return st, rep.Groups
}

// TestImportTelemetrySMIXML imports the nvidia-smi -q -x report captured on an H200.
func TestImportTelemetrySMIXML(t *testing.T) {
	st, groups := importAndReport(t, "--format", "nvidia-smi-xml", "--host", "h200", filepath.Join(smiShapes, "h200-shared", "nvidia-smi-q.xml"))
	if len(st) != 1 || st[0].Samples != 1 || st[0].Skipped != 0 || len(groups) != 1 {
		t.Fatalf("import = %+v, report %+v; want 1 sample of 1 GPU", st, groups)
	}
	g := groups[0]
	if g.Key != "GPU-394b5914-a0f6-bd86-685c-15226d72588b" || g.Host != "h200" || g.Model != "H200" || g.UtilMax != 99 ||
		g.MemPeakMiB != 1793 || g.MemTotalMiB != 143771 || g.PowerMaxW == nil || *g.PowerMaxW != 693.84 {
		t.Errorf("report utilization = %+v; want the H200 at 99%%, 1793 of 143771 MiB, 693.84 W", g)
	}
}

// TestImportTelemetrySMIPmon imports the pmon output captured on the H200: it needs --start,
// and then each interval is the two processes' SM summed.
func TestImportTelemetrySMIPmon(t *testing.T) {
	file := filepath.Join(smiShapes, "h200-shared", "pmon.txt")
	code, _, errOut := runCLI(t, t.TempDir(), "import", "telemetry", "--format", "nvidia-smi-pmon", file)
	if code != exitInvalid || !strings.Contains(errOut, "pmon.txt has no time column") || !strings.Contains(errOut, "--start") {
		t.Errorf("import telemetry --format nvidia-smi-pmon without --start: exit %d\n%s; want exit %d asking for --start", code, errOut, exitInvalid)
	}
	st, groups := importAndReport(t, "--format", "nvidia-smi-pmon", "--host", "h200", "--model", "NVIDIA H200", "--start", "2026-11-27T04:11:00Z", file)
	if len(st) != 1 || st[0].Lines != 10 || st[0].Samples != 5 || len(groups) != 1 {
		t.Fatalf("import = %+v, report %+v; want 10 lines, 5 samples of 1 GPU", st, groups)
	}
	if g := groups[0]; g.Key != "gpu0" || g.Host != "h200" || g.Model != "H200" || g.Samples != 5 || g.UtilMax != 98 || math.Abs(g.UtilMean-98) > 0.01 {
		t.Errorf("report utilization = %+v; want gpu0 on h200, 5 samples at 98%% (the store keeps means to about 0.01 points)", g)
	}
}

// TestImportTelemetrySMINoGPUColumn imports the real 5-field H200 recording that names no GPU:
// refused without --gpu, stored with it.
func TestImportTelemetrySMINoGPUColumn(t *testing.T) {
	file := filepath.Join(smiShapes, "h200-phases", "nvidia-smi-1s.csv")
	code, _, errOut := runCLI(t, t.TempDir(), "import", "telemetry", "--format", "nvidia-smi", file)
	if code == exitOK || !strings.Contains(errOut, "no uuid or index column") || !strings.Contains(errOut, "--gpu") {
		t.Errorf("import telemetry without --gpu: exit %d\n%s; want an error naming the missing column and --gpu", code, errOut)
	}
	st, groups := importAndReport(t, "--format", "nvidia-smi", "--gpu", "GPU-394b5914-a0f6-bd86-685c-15226d72588b", "--model", "NVIDIA H200", file)
	if len(st) != 1 || st[0].Samples != 48 || st[0].Skipped != 0 || len(groups) != 1 {
		t.Fatalf("import = %+v, report %+v; want 48 samples of 1 GPU", st, groups)
	}
	if g := groups[0]; g.Key != "GPU-394b5914-a0f6-bd86-685c-15226d72588b" || g.Host != "nvidia-smi-1s" || g.Samples != 48 || g.UtilMax != 100 ||
		math.Abs(g.UtilMean-1490.0/48) > 0.01 || g.PowerMaxW == nil || *g.PowerMaxW != 692.97 {
		t.Errorf("report utilization = %+v; want the H200 of host nvidia-smi-1s (the file's name), 48 samples, mean 1490/48 = 31.04%%, 692.97 W at most", g)
	}
}
