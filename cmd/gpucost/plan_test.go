package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reference case R2 through the command: 8 × p3.2xlarge, $3.06 / $1.82 / $1.31 → 40.5% and 57.2%.
func TestPlanCommitROIReproducesR2(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "plan", "commit", "roi", "--on-demand", "3.06", "--reserved-1y", "1.82", "--reserved-3y", "1.31", "--instances", "8")
	if code != exitOK {
		t.Fatalf("plan commit roi: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"$17,625.60", "$7,142.40", "40.5%", "$10,080.00", "57.2%"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan commit roi lacks %s:\n%s", want, out)
		}
	}
	code, _, errOut = runCLI(t, t.TempDir(), "plan", "commit", "roi", "--on-demand", "3.06", "--reserved-1y", "3.50", "--reserved-3y", "1.31")
	if code != exitInvalid || errOut == "" {
		t.Errorf("a reservation dearer than on-demand: exit %d, %q", code, errOut)
	}
}

// Daly's published example through the command: δ = 5 min, R = 10 min, M = 24 h → 117 min.
func TestPlanCheckpointReproducesDaly(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "plan", "checkpoint", "--checkpoint-time", "5m", "--restart", "10m", "--mtbi", "24h", "--output", "json")
	if code != exitOK {
		t.Fatalf("plan checkpoint: exit %d\n%s", code, errOut)
	}
	var r struct {
		Daly struct {
			Every float64 `json:"every_s"`
		} `json:"daly"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if m := r.Daly.Every / 60; m < 116.5 || m > 117.5 {
		t.Errorf("Daly interval %.2f min, want 117", m)
	}
	code, out, errOut = runCLI(t, t.TempDir(), "plan", "checkpoint", "--size", "98GB", "--bandwidth", "1GB/s", "--restart", "5m", "--interruption-rate", "10%/h", "--provider", "gcp")
	if code != exitOK || !strings.Contains(out, "M = 10h0m0s") || !strings.Contains(out, "does NOT fit") || !strings.Contains(out, "3.27 GB/s") {
		t.Errorf("98 GB at 1 GB/s on GCP's 30 s notice: exit %d; want M = 10 h and an emergency checkpoint that does not fit\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, t.TempDir(), "plan", "checkpoint", "--checkpoint-time", "5m", "--interruption-rate", "lots")
	if code != exitInvalid || !strings.Contains(errOut, "10%/h") {
		t.Errorf("bad rate: exit %d, %q", code, errOut)
	}
}

// The 4-bytes-per-parameter rule is called out for training (reference case R3).
func TestPlanInstanceWarnsAboutTheRuleOfThumb(t *testing.T) {
	code, out, errOut := runCLI(t, t.TempDir(), "plan", "instance", "--params", "7B", "--mode", "training", "--tokens", "2e9", "--limit", "3")
	if code != exitOK {
		t.Fatalf("plan instance: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"136.5 GB", "4 bytes × params", "R3", "optimizer"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan instance lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = runCLI(t, t.TempDir(), "plan", "instance", "--params", "5e13", "--mode", "training")
	if code != exitInvalid || !strings.Contains(errOut, "GB") {
		t.Errorf("a model that fits nowhere: exit %d, %q", code, errOut)
	}
}

// MIG packing from a workloads file, and a bad value named by file, line and column.
func TestPlanMIG(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "w.csv")
	os.WriteFile(ws, []byte("name,memory_gb,compute_share\nchat-a,18,0.3\nchat-b,18,0.3\nembed,8,0.1\nrerank,9,0.12\nsummar,35,0.4\nvision,30,0.45\n"), 0o644)
	code, out, errOut := runCLI(t, dir, "plan", "mig", "--gpu", "A100-80GB", "--workloads", ws)
	if code != exitOK || !strings.Contains(out, "3 GPUs with MIG against 6 whole GPUs") || !strings.Contains(out, "optimal") {
		t.Errorf("plan mig: exit %d\n%s%s", code, out, errOut)
	}
	os.WriteFile(ws, []byte("name,memory_gb,compute_share\nchat-a,lots,0.3\n"), 0o644)
	code, _, errOut = runCLI(t, dir, "plan", "mig", "--workloads", ws)
	if code != exitInvalid || !strings.Contains(errOut, "w.csv:2:2") {
		t.Errorf("bad memory: exit %d, %q", code, errOut)
	}
}

// The commitment for a daily usage wave is its floor (the d-quantile), and a back-test on the
// steady pattern captures all of the hindsight-optimal saving.
func TestPlanCommitUsageFile(t *testing.T) {
	dir := t.TempDir()
	usage := filepath.Join(dir, "u.csv")
	var b strings.Builder
	b.WriteString("hour,usage\n")
	for h := range 24 * 60 {
		u := 40.0
		if h%24 >= 9 && h%24 < 18 {
			u = 60
		}
		fmt.Fprintf(&b, "%d,%g\n", h, u)
	}
	os.WriteFile(usage, []byte(b.String()), 0o644)
	code, out, errOut := runCLI(t, dir, "plan", "commit", "--usage", usage, "--price", "2.745", "--discount", "0.4")
	if code != exitOK || !strings.Contains(out, "40.00") {
		t.Errorf("plan commit: exit %d; want 40 units committed (the d-quantile)\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, dir, "plan", "commit", "--usage", usage, "--discount", "0.4", "--backtest", "--lookback", "14d", "--period", "7d")
	if code != exitOK || !strings.Contains(out, "100.0%") {
		t.Errorf("backtest on a steady pattern: exit %d\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(t, dir, "plan", "commit", "--usage", usage, "--layer", "3y=0.57:30,1y=0.4")
	if code != exitOK || !strings.Contains(out, "30.00") || !strings.Contains(out, "the mix saves") {
		t.Errorf("plan commit --layer: exit %d; want 30 units of 3y under 10 of 1y\n%s%s", code, out, errOut)
	}
	code, _, errOut = runCLI(t, dir, "plan", "commit", "--usage", usage, "--layer", "3y:0.57")
	if code != exitInvalid || !strings.Contains(errOut, "name=discount") {
		t.Errorf("bad --layer: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(t, dir, "plan", "commit", "--usage", usage, "--discount", "1")
	if code != exitInvalid {
		t.Errorf("discount 1: exit %d, %q", code, errOut)
	}
}

// A spot fleet from the bundled catalog, and its exports.
func TestPlanFleet(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "plan", "fleet", "--gpu", "A100", "--count", "32", "--on-demand-base", "20%")
	if code != exitOK || !strings.Contains(out, "32 GPUs in aws") || !strings.Contains(out, "spot") || !strings.Contains(out, "on-demand") {
		t.Errorf("plan fleet: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = runCLI(t, dir, "plan", "fleet", "--gpu", "A100", "--count", "16", "--export", "ec2-fleet")
	var req map[string]any
	if code != exitOK || json.Unmarshal([]byte(out), &req) != nil || req["TargetCapacitySpecification"] == nil {
		t.Errorf("--export ec2-fleet: exit %d, not a CreateFleet request:\n%s", code, out)
	}
	code, out, _ = runCLI(t, dir, "plan", "fleet", "--gpu", "L4", "--count", "4", "--export", "karpenter")
	if code != exitOK || !strings.Contains(out, "kind: NodePool") || !strings.Contains(out, "karpenter.sh/capacity-type") {
		t.Errorf("--export karpenter: exit %d\n%s", code, out)
	}
	code, _, errOut = runCLI(t, dir, "plan", "fleet", "--gpu", "Z9000", "--count", "4")
	if code != exitInvalid || !strings.Contains(errOut, "catalog gpus") {
		t.Errorf("unknown GPU: exit %d, %q", code, errOut)
	}
}
