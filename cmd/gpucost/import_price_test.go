package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestImportTelemetryPrice imports two hours of an RTX 4000 Ada, which the catalog does not
// price, with --price 0.76: report cost and report utilization price its GPU-hours at $0.76,
// the catalog lists the price with its source, and a second --price replaces it.
func TestImportTelemetryPrice(t *testing.T) {
	dir := t.TempDir()
	ada := filepath.Join(dir, "ada.prom")
	vgpuScrape(t, ada, "NVIDIA RTX 4000 Ada Generation", "ws-ada", time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC), 2)
	code, out, errOut := runCLI(t, dir, "import", "telemetry", "--format", "dcgm", "--price", "0.76", ada)
	if code != exitOK || !strings.Contains(out, "A GPU-hour of NVIDIA RTX 4000 Ada Generation is priced at $0.76 in reports from now on") {
		t.Fatalf("import telemetry --price 0.76: exit %d\n%s%s", code, out, errOut)
	}
	// report cost reads a bill: one of other machines, which leaves the Ada's hours to the catalog.
	writeBill(t, filepath.Join(dir, "bill.csv"), 2, -1, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	if code, _, errOut := runCLI(t, dir, "import", "billing", filepath.Join(dir, "bill.csv")); code != exitOK {
		t.Fatalf("import billing: exit %d\n%s", code, errOut)
	}
	adaCost := func() (string, string, float64) {
		t.Helper()
		code, out, errOut := runCLI(t, dir, "report", "cost", "--since", "2d", "--output", "json")
		var rep struct {
			Groups []struct {
				Source     string  `json:"price_source"`
				GPUHours   float64 `json:"gpu_hours"`
				GPUCost    string  `json:"gpu_cost"`
				PerGPUHour string  `json:"cost_per_gpu_hour"`
			}
		}
		if code != exitOK || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("report cost: exit %d\n%s%s", code, out, errOut)
		}
		for _, g := range rep.Groups {
			if g.Source == "catalog" {
				return g.PerGPUHour, g.GPUCost, g.GPUHours
			}
		}
		t.Fatalf("report cost has no catalog-priced group:\n%s", out)
		return "", "", 0
	}
	if per, cost, hours := adaCost(); per != "0.76" || cost != "1.52" || hours != 2 {
		t.Errorf("report cost: the Ada's 2 GPU-h = %v GPU-h at %s/GPU-h, %s; want 2 at 0.76, 1.52", hours, per, cost)
	}
	code, out, _ = runCLI(t, dir, "report", "utilization", "--since", "2d", "--by", "gpu")
	if want := "NVIDIA RTX 4000 Ada Generation without a bill line priced at $0.76/GPU-h (a user price: gpucost import telemetry --price 0.76)"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("report utilization lacks %q:\n%s", want, out)
	}
	code, out, _ = runCLI(t, dir, "catalog", "gpus")
	if want := "user    NVIDIA RTX 4000 Ada Generation at $0.76/GPU-h, in place of the catalog's price (set 2026-12-02: gpucost import telemetry --price 0.76)"; code != exitOK || !strings.Contains(out, want) {
		t.Errorf("catalog gpus lacks %q:\n%s", want, out)
	}
	if code, _, errOut := runCLI(t, dir, "import", "telemetry", "--format", "dcgm", "--price", "0.8", ada); code != exitOK {
		t.Fatalf("import telemetry --price 0.8: exit %d\n%s", code, errOut)
	}
	if per, cost, _ := adaCost(); per != "0.8" || cost != "1.6" {
		t.Errorf("report cost after --price 0.8: %s/GPU-h, %s; want 0.8, 1.6", per, cost)
	}
}

// TestImportTelemetryPriceRefused refuses a --price that is not a decimal, or whose model is
// not one, before anything is stored.
func TestImportTelemetryPriceRefused(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	ada, l4 := filepath.Join(dir, "ada.prom"), filepath.Join(dir, "l4.prom")
	vgpuScrape(t, ada, "NVIDIA RTX 4000 Ada Generation", "ws-ada", start, 1)
	vgpuScrape(t, l4, "NVIDIA L4", "n-l4", start, 1)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--price", "0.76", ada, l4}, "--price prices one GPU model, and the samples name NVIDIA L4, NVIDIA RTX 4000 Ada Generation: give --model"},
		{[]string{"--price", "$0.76", ada}, `--price "$0.76": give USD per GPU-hour as a plain decimal, such as 0.76`},
		{[]string{"--price", "-1", ada}, `--price "-1": give USD per GPU-hour`},
	} {
		code, out, errOut := runCLI(t, dir, append([]string{"import", "telemetry", "--format", "dcgm"}, tc.args...)...)
		if code != exitInvalid || !strings.Contains(errOut, tc.want) {
			t.Errorf("import telemetry %v: exit %d\n%s%s\nwant exit %d and %q", tc.args, code, out, errOut, exitInvalid, tc.want)
		}
	}
	if code, _, _ := runCLI(t, dir, "report", "utilization", "--since", "2d"); code == exitOK {
		t.Errorf("report utilization after refused imports: exit 0; want no telemetry stored")
	}
}
