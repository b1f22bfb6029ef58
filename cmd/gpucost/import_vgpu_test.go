package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// vgpuScrape writes dcgm-exporter scrapes of one GPU, one a minute for hours from start: the
// label set of the real kops_aws_L4.prom sample with the model and host changed.
func vgpuScrape(t *testing.T, path, model, host string, start time.Time, hours int) {
	t.Helper()
	var b strings.Builder
	b.WriteString("# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n")
	for i := range hours * 60 {
		fmt.Fprintf(&b, `DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-%s",pci_bus_id="00000000:31:00.0",device="nvidia0",modelName=%q,Hostname=%q,DCGM_FI_DRIVER_VERSION="580.105.08"} 40 %d`+"\n",
			host, model, host, start.Add(time.Duration(i)*time.Minute).UnixMilli())
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestVGPUIsPricedAndUnpricedModelsNamed imports a vGPU and a GPU the catalog does not price:
// the vGPU costs its framebuffer fraction of its physical GPU, and the other is named with its
// GPU-hours.
func TestVGPUIsPricedAndUnpricedModelsNamed(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	vgpu, ada := filepath.Join(dir, "vgpu.prom"), filepath.Join(dir, "ada.prom")
	vgpuScrape(t, vgpu, "GRID A100-10C", "vm-a100", start, 2)
	vgpuScrape(t, ada, "NVIDIA RTX 4000 Ada Generation", "ws-ada", start, 1)
	a100 := filepath.Join(dir, "a100.prom") // the physical GPU, the same hours and utilisation
	vgpuScrape(t, a100, "NVIDIA A100-SXM4-40GB", "bm-a100", start, 2)
	if code, _, errOut := runCLI(t, dir, "import", "telemetry", "--format", "dcgm", vgpu, ada, a100); code != exitOK {
		t.Fatalf("import telemetry: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runCLI(t, dir, "report", "utilization", "--since", "2d", "--by", "gpu")
	var err error
	if code != exitOK {
		t.Fatalf("report utilization: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{
		"GRID A100-10C without a bill line priced at $",
		"median region), a vGPU of 10 of the A100-40GB's 40 GB",
		"1.0 GPU-hours of models neither the bill nor the catalog prices are not in the costs: NVIDIA RTX 4000 Ada Generation 1.0 GPU-h.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report utilization lacks %q:\n%s", want, out)
		}
	}

	// A quarter of the A100's framebuffer costs a quarter of its price, to the nano-unit.
	code, out, errOut = runCLI(t, dir, "report", "utilization", "--since", "2d", "--by", "gpu", "--output", "json")
	var rep struct{ Groups []struct{ Key, Cost string } }
	if err := json.Unmarshal([]byte(out), &rep); code != exitOK || err != nil {
		t.Fatalf("report utilization --output json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	cost := map[string]gpucost.Money{}
	for _, g := range rep.Groups {
		if cost[g.Key], err = gpucost.ParseMoney(g.Cost, "USD"); err != nil {
			t.Fatal(err)
		}
	}
	v, w := cost["GPU-vm-a100"], cost["GPU-bm-a100"]
	if w.IsZero() || w.Nanos != 4*v.Nanos {
		t.Errorf("cost of 2 h: GRID A100-10C %s, A100-SXM4-40GB %s; want a quarter", v.Decimal(), w.Decimal())
	}
}
