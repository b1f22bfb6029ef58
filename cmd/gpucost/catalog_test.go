package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs gpucost with args against a store in dir and returns the exit code and outputs.
func runCLI(t *testing.T, dir string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{
		stdin:  strings.NewReader(""),
		stdout: &out,
		stderr: &errb,
		getenv: func(string) string { return "" },
		now:    func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) },
	}
	args = append([]string{"--db", filepath.Join(dir, "gpucost.db")}, args...)
	code := run(context.Background(), args, e)
	return code, out.String(), errb.String()
}

func TestCatalogGPUsTable(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "catalog", "gpus", "--gpu", "h100")
	if code != exitOK {
		t.Fatalf("catalog gpus --gpu h100: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		"H100-SXM", "H100-PCIe", "80 GB", "p5.48xlarge", "$6.880", // AWS p5.48xlarge $55.04/h ÷ 8
		"gpu_1x_h100_pcie", "$2.490", // Lambda's PCIe H100
		"skypilot-org/skypilot-catalog@e385a0d3:catalogs/v8/aws/vms.csv", "2026-11-22 (10 days old)", "day they were copied",
		"gpucost catalog issues",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("catalog gpus --gpu h100 output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "A100") || strings.Contains(out, "H200") {
		t.Errorf("catalog gpus --gpu h100 shows other GPUs:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "gpucost.db")); err == nil {
		t.Error("catalog gpus created a store file; the bundled catalog needs none")
	}
}

func TestCatalogGPUsJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := runCLI(t, dir, "catalog", "gpus", "--gpu", "A100-80GB", "--provider", "aws", "--spot", "--output", "json")
	if code != exitOK {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var doc struct {
		GPUs []struct {
			GPU      string `json:"gpu"`
			Provider string `json:"provider"`
			VRAM     float64
			OnDemand struct {
				PerGPUHour   string `json:"per_gpu_hour"`
				InstanceType string `json:"instance_type"`
				Region       string `json:"region"`
			} `json:"on_demand"`
			Spot struct {
				PerGPUHour string `json:"per_gpu_hour"`
				Zone       string `json:"zone"`
			} `json:"spot"`
			Discount float64 `json:"spot_discount_pct"`
			Offers   int     `json:"offers"`
		} `json:"gpus"`
		Sources []struct{ Provider, Origin string } `json:"sources"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("catalog gpus --output json is not JSON: %v\n%s", err, out)
	}
	if len(doc.GPUs) != 1 {
		t.Fatalf("got %d rows, want 1 (aws A100-80GB):\n%s", len(doc.GPUs), out)
	}
	g := doc.GPUs[0]
	// p4de.24xlarge: $27.44705/h on-demand → 3.43088125 per GPU-hour, exactly.
	if g.GPU != "A100-80GB" || g.OnDemand.InstanceType != "p4de.24xlarge" || g.OnDemand.PerGPUHour != "3.43088125" {
		t.Errorf("row = %+v; want A100-80GB p4de.24xlarge at 3.43088125", g)
	}
	if g.Spot.PerGPUHour == "" || g.Discount <= 0 || g.Offers != 11 {
		t.Errorf("spot = %+v, discount %v, offers %d; want a spot price, a discount and 11 offers", g.Spot, g.Discount, g.Offers)
	}
	if len(doc.Sources) != 6 {
		t.Errorf("json lists %d sources, want 6", len(doc.Sources))
	}

	code, out, _ = runCLI(t, dir, "catalog", "gpus", "--gpu", "T4", "--provider", "aws", "--output", "csv")
	if code != exitOK {
		t.Fatalf("csv: exit %d", code)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatalf("catalog gpus --output csv is not CSV: %v\n%s", err, out)
	}
	if len(recs) != 2 || recs[0][0] != "gpu" || recs[0][1] != "vram_gb" || recs[0][3] != "on_demand_usd_per_gpu_hour" || recs[0][9] != "spot_discount_pct" || recs[1][0] != "T4" || recs[1][1] != "16" || recs[1][3] != "0.526" || recs[1][4] != "g4dn.xlarge" || recs[1][9] != "88.3" {
		t.Errorf("csv = %q; want a header and T4 (16 GB) g4dn.xlarge at 0.526, spot discount 88.3", recs)
	}
}

func TestCatalogGPUsBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown GPU", []string{"catalog", "gpus", "--gpu", "Z9000"}, exitInvalid, "known GPUs are T4"},
		{"unknown provider", []string{"catalog", "gpus", "--provider", "nowhere"}, exitInvalid, "aws, azure, gcp, lambda, nebius"},
		{"no match", []string{"catalog", "gpus", "--gpu", "B200", "--region", "us-east-1", "--spot", "--provider", "lambda"}, exitNotFound, "no priced offer"},
		{"bad output", []string{"catalog", "gpus", "--output", "yaml"}, exitInvalid, "--output"},
		{"stray argument", []string{"catalog", "gpus", "H100"}, exitInvalid, ""},
		{"unknown spec", []string{"catalog", "specs", "--gpu", "Z9000"}, exitInvalid, "known GPUs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, dir, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("gpucost %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, tc.code, tc.want)
			}
		})
	}
}

// writeLambdaCopy writes the bundled Lambda file with one price changed, as a new import would.
func writeLambdaCopy(t *testing.T, dir, name, a10Price string) string {
	t.Helper()
	body, err := os.ReadFile("../../catalog/data/lambda_vms.csv")
	if err != nil {
		t.Fatal(err)
	}
	s := strings.Replace(string(body), "gpu_1x_a10,A10,1.0,30.0,200.0,0.75,", "gpu_1x_a10,A10,1.0,30.0,200.0,"+a10Price+",", 1)
	if s == string(body) {
		t.Fatal("the Lambda file has no gpu_1x_a10 row at $0.75")
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCatalogImportReplacesBundledOffers(t *testing.T) {
	dir := t.TempDir()
	file := writeLambdaCopy(t, dir, "lambda_vms.csv", "0.61")
	code, out, errOut := runCLI(t, dir, "catalog", "import", "--format", "skypilot", file)
	if code != exitOK {
		t.Fatalf("import: exit %d, stderr %s", code, errOut)
	}
	if !strings.Contains(out, "Imported 20 offers: 20 added, 0 replaced.") || !strings.Contains(out, "lambda") {
		t.Errorf("import output:\n%s", out)
	}
	code, out, _ = runCLI(t, dir, "catalog", "gpus", "--gpu", "A10", "--provider", "lambda")
	if code != exitOK || !strings.Contains(out, "$0.610") || !strings.Contains(out, "20 offers imported") {
		t.Errorf("after import, catalog gpus --gpu A10: exit %d\n%s", code, out)
	}

	// The same file again replaces every offer; JSON says so.
	code, out, _ = runCLI(t, dir, "catalog", "import", "--format", "skypilot", "--output", "json", file)
	if code != exitOK || !strings.Contains(out, `"replaced": 20`) || !strings.Contains(out, `"added": 0`) {
		t.Errorf("second import: exit %d\n%s", code, out)
	}
}

func TestCatalogImportBadInput(t *testing.T) {
	dir := t.TempDir()
	good := writeLambdaCopy(t, dir, "lambda_vms.csv", "0.61")
	noName := filepath.Join(dir, "prices.csv") // neither its name nor its rows tell the provider
	os.WriteFile(noName, []byte("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\nbox-1,H100,1,8,64,2.5,somewhere,,\n"), 0o644)
	badHeader := filepath.Join(dir, "aws_bad.csv")
	os.WriteFile(badHeader, []byte("Name,Price\nx,1\n"), 0o644)
	cpuOnly := filepath.Join(dir, "nebius_cpu.csv")
	os.WriteFile(cpuOnly, []byte("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n"+
		"cpu-d3_4vcpu-16gb,,0,4,16,0.0992,eu-north1,,\r\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no format", []string{"catalog", "import", good}, "--format"},
		{"other format", []string{"catalog", "import", "--format", "csv", good}, "use skypilot"},
		{"provider unknown", []string{"catalog", "import", "--format", "skypilot", noName}, "--provider"},
		{"bad header", []string{"catalog", "import", "--format", "skypilot", badHeader}, "lacks column InstanceType"},
		{"no GPU offers", []string{"catalog", "import", "--format", "skypilot", cpuOnly}, "no NVIDIA GPU offers"},
		{"missing file", []string{"catalog", "import", "--format", "skypilot", filepath.Join(dir, "aws_none.csv")}, "no such file"},
		// A bad file among good ones stops the whole import.
		{"one bad of two", []string{"catalog", "import", "--format", "skypilot", good, badHeader}, "aws_bad.csv"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCLI(t, dir, tc.args...)
			if code != exitInvalid || !strings.Contains(errOut, tc.want) {
				t.Errorf("gpucost %s: exit %d, stderr %q; want exit %d and %q", strings.Join(tc.args, " "), code, errOut, exitInvalid, tc.want)
			}
		})
	}
	code, out, _ := runCLI(t, dir, "catalog", "gpus", "--provider", "lambda", "--gpu", "A10")
	if code != exitOK || !strings.Contains(out, "$0.750") {
		t.Errorf("after failed imports the bundled Lambda A10 price should stand: exit %d\n%s", code, out)
	}
}

func TestCatalogSpecsAndIssues(t *testing.T) {
	dir := t.TempDir()
	code, out, _ := runCLI(t, dir, "catalog", "specs", "--gpu", "a100")
	if code != exitOK || !strings.Contains(out, "A100-40GB") || !strings.Contains(out, "A100-80GB") ||
		!strings.Contains(out, "1g.10gb … 7g.80gb") || !strings.Contains(out, "NVIDIA A100 Tensor Core GPU datasheet") {
		t.Errorf("catalog specs --gpu a100: exit %d\n%s", code, out)
	}
	if strings.Contains(out, "H100") {
		t.Errorf("catalog specs --gpu a100 shows H100:\n%s", out)
	}
	code, out, _ = runCLI(t, dir, "catalog", "specs", "--gpu", "NVIDIA H100 80GB HBM3", "--output", "json")
	var specs []struct {
		Name string   `json:"name"`
		MIG  []string `json:"mig_profiles"`
		BF16 float64  `json:"bf16_tflops_dense"`
	}
	if err := json.Unmarshal([]byte(out), &specs); code != exitOK || err != nil || len(specs) != 1 || specs[0].Name != "H100-SXM" || specs[0].BF16 != 989.5 {
		t.Errorf("catalog specs --gpu 'NVIDIA H100 80GB HBM3' --output json = %s (exit %d, %v)", out, code, err)
	}

	code, out, _ = runCLI(t, dir, "catalog", "issues", "--provider", "gcp", "--output", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != exitOK || err != nil || len(recs) < 2 {
		t.Fatalf("catalog issues --provider gcp: exit %d, %v\n%s", code, err, out)
	}
	found := false
	for _, r := range recs[1:] {
		if r[0] != "data/gcp_vms_gpu.csv" {
			t.Errorf("issue from %s listed under --provider gcp", r[0])
		}
		found = found || r[2] == "Price" && r[3] == "0.0"
	}
	if !found {
		t.Errorf("catalog issues lacks the a4-highgpu-8g price of 0.0:\n%s", out)
	}
}

func TestCatalogHelpHasExamples(t *testing.T) {
	for _, sub := range []string{"gpus", "import", "specs", "issues"} {
		code, out, _ := runCLI(t, t.TempDir(), "catalog", sub, "--help")
		if code != exitOK || !strings.Contains(out, "Examples:") || !strings.Contains(out, "gpucost catalog "+sub) {
			t.Errorf("gpucost catalog %s --help: exit %d, no examples:\n%s", sub, code, out)
		}
	}
}
