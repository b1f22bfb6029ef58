package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCatalogImportGCPPricingYAML(t *testing.T) {
	dir := t.TempDir()
	file := "../../catalog/testdata/gcp_pricing_small.yml"
	code, out, errOut := runCLI(t, dir, "catalog", "import", "--format", "gcp-pricing-yml", file)
	if code != exitOK {
		t.Fatalf("catalog import --format gcp-pricing-yml: exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"Imported 2 offers: 2 added, 0 replaced.", `hour "x": not a positive decimal amount`} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = runCLI(t, dir, "catalog", "gpus", "--provider", "gcp", "--gpu", "A100-40GB", "--region", "asia-east1", "--output", "csv")
	if code != exitOK || !strings.Contains(out, "3.790142,a2-highgpu-1g,asia-east1") {
		t.Errorf("catalog gpus after import: exit %d, stderr %s, out:\n%s\nwant the imported a2-highgpu-1g at 3.790142", code, errOut, out)
	}
	code, _, errOut = runCLI(t, dir, "catalog", "import", "--format", "gcp-pricing-yml", "--provider", "aws", file)
	if code != exitInvalid || !strings.Contains(errOut, "holds gcp prices") {
		t.Errorf("import --provider aws: exit %d, stderr %q; want exit %d and a message", code, errOut, exitInvalid)
	}
}

func TestPlanCommitGCPCUD(t *testing.T) {
	dir := t.TempDir()
	usage := filepath.Join(dir, "usage.csv")
	if err := os.WriteFile(usage, []byte("usage\n10\n10\n10\n10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, dir, "plan", "commit", "--usage", usage, "--gcp-cud", "a3-highgpu-8g/us-central1", "--term", "1y")
	if code != exitOK {
		t.Fatalf("plan commit --gcp-cud: exit %d, stderr %s", code, errOut)
	}
	// pricing.yml: a3-highgpu-8g in us-central1 costs 88.49/h on demand and, committed for a
	// year, month_1y 44,810.08066464 / 730 h = 61.3837/h: 30.6% off.
	if !strings.Contains(errOut, "61.3837/h against 88.4900/h on-demand") || !strings.Contains(errOut, "discount 30.6%") || !strings.Contains(out, "at 31% off, 1y term") {
		t.Errorf("plan commit --gcp-cud: stderr %q, out:\n%s\nwant the 1-year CUD discount from pricing.yml", errOut, out)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--gcp-cud", "a3-highgpu-8g"}, "want MACHINE_TYPE/REGION"},
		{[]string{"--gcp-cud", "a3-highgpu-8g/us-central1", "--discount", "0.3"}, "keep one"},
		{[]string{"--gcp-cud", "a3-highgpu-8g/mars1"}, "no GCP committed-use price"},
	} {
		args := append([]string{"plan", "commit", "--usage", usage}, tc.args...)
		if code, _, errOut := runCLI(t, dir, args...); code == exitOK || !strings.Contains(errOut, tc.want) {
			t.Errorf("gpucost %s: exit %d, stderr %q; want an error with %q", strings.Join(args, " "), code, errOut, tc.want)
		}
	}
}

// TestPlanCommitImportedGCPCUD checks that plan commit --gcp-cud takes the committed-use price
// of the GCP pricing YAML imported last, not the bundled one's, and says which it took.
func TestPlanCommitImportedGCPCUD(t *testing.T) {
	const older = "../../../shared/datasets/gcp_price_history/pricing_gpu_2025-07-03.yml"
	if _, err := os.Stat(older); err != nil {
		t.Skipf("%s is absent: the checkout has no shared datasets beside it", older)
	}
	dir := t.TempDir()
	usage := filepath.Join(dir, "usage.csv")
	if err := os.WriteFile(usage, []byte("usage\n10\n10\n10\n10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cud := []string{"plan", "commit", "--usage", usage, "--gcp-cud", "a3-highgpu-1g/africa-south1", "--term", "1y"}
	// The bundled 2026-07-02 file: month_1y 7,314.80635634 / 730 h = 10.0203/h, hour 14.4428.
	code, _, errOut := runCLI(t, dir, cud...)
	if code != exitOK || !strings.Contains(errOut, "10.0203/h against 14.4428/h on-demand (bundled pricing.yml generated 2026-07-02)") {
		t.Errorf("plan commit --gcp-cud on the bundled prices: exit %d, stderr %q", code, errOut)
	}
	code, out, errOut := runCLI(t, dir, "catalog", "import", "--format", "gcp-pricing-yml", older)
	if code != exitOK || !strings.Contains(out, "Committed-use prices of 684 GCP machine types and regions") {
		t.Fatalf("catalog import of %s: exit %d, stderr %s, out:\n%s", older, code, errOut, out)
	}
	// The imported 2025-07-03 file: month_1y 7,326.44875634 / 730 h = 10.0362/h, hour 14.4681.
	code, _, errOut = runCLI(t, dir, cud...)
	if code != exitOK || !strings.Contains(errOut, "10.0362/h against 14.4681/h on-demand (") || !strings.Contains(errOut, "pricing_gpu_2025-07-03.yml, imported, generated 2025-07-03)") {
		t.Errorf("plan commit --gcp-cud after the import: exit %d, stderr %q; want the imported file's prices", code, errOut)
	}
}
