package catalog

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

var update = flag.Bool("update", false, "rewrite golden files")

func readFixture(t *testing.T, path, provider string) *Import {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	im, err := ParseSkyPilot(f, path, provider)
	if err != nil {
		t.Fatalf("ParseSkyPilot(%s) error: %v", path, err)
	}
	return im
}

// findOffer returns the offer with the given region, zone and instance type.
func findOffer(t *testing.T, offers []gpucost.Offer, region, zone, instance string) gpucost.Offer {
	t.Helper()
	for _, o := range offers {
		if o.Region == region && o.Zone == zone && o.InstanceType == instance {
			return o
		}
	}
	t.Fatalf("no offer %s %s %s", region, zone, instance)
	return gpucost.Offer{}
}

func wantPrices(t *testing.T, o gpucost.Offer, od, spot string) {
	t.Helper()
	got := func(m gpucost.Money, ok bool) string {
		if !ok {
			return "none"
		}
		return m.Decimal()
	}
	if g := got(o.OnDemand, o.HasOnDemand); g != od {
		t.Errorf("%s %s %s on-demand = %s, want %s", o.Region, o.Zone, o.InstanceType, g, od)
	}
	if g := got(o.SpotPrice, o.HasSpot); g != spot {
		t.Errorf("%s %s %s spot = %s, want %s", o.Region, o.Zone, o.InstanceType, g, spot)
	}
}

// TestBundledGolden reads the real bundled files and compares the counts and every issue with
// testdata/bundled.golden (go test ./catalog -run TestBundledGolden -update rewrites it).
func TestBundledGolden(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, s := range c.Sources() {
		fmt.Fprintf(&b, "%s %s: %d offers, %d issues, %d rows left out by design\n", s.Provider, s.File, s.Offers, s.Issues, s.Skipped)
	}
	for _, is := range c.Issues() {
		fmt.Fprintln(&b, FormatIssue(is))
	}
	golden := filepath.Join("testdata", "bundled.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("bundled catalog differs from %s (run with -update if the change is right):\n%s", golden, got)
	}
}

func TestBundledOffers(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, o := range c.Offers() {
		counts[o.Provider]++
		sky := o.AsOf == bundledAsOf && strings.HasPrefix(o.Source, "skypilot-org/skypilot-catalog@")
		yml := o.Provider == "gcp" && o.AsOf.Format("2006-01-02") == "2026-07-02" && strings.HasPrefix(o.Source, gcpPricingOrigin)
		azure := o.Provider == "azure" && o.AsOf == azureAsOf && o.Source == azureOrigin
		if !sky && !yml && !azure {
			t.Fatalf("offer %s %s has source %q as of %v", o.Provider, o.InstanceType, o.Source, o.AsOf)
		}
	}
	if want := map[string]int{"aws": 1608, "azure": 16, "gcp": 919, "lambda": 20, "nebius": 21}; !mapsEqual(counts, want) {
		t.Errorf("offers per provider = %v, want %v", counts, want)
	}
	offers := c.Offers()
	// AWS: whole instance prices, as published.
	p5 := findOffer(t, offers, "us-east-1", "use1-az1", "p5.48xlarge")
	wantPrices(t, p5, "55.04", "55.04")
	if p5.GPUModel != "H100-SXM" || p5.GPUCount != 8 || p5.GPUMemoryGB != 80 || p5.VCPUs != 192 {
		t.Errorf("p5.48xlarge = %+v; want 8 × H100-SXM 80 GB, 192 vCPUs", p5)
	}
	g4 := findOffer(t, offers, "us-east-1", "use1-az1", "g4dn.xlarge")
	wantPrices(t, g4, "0.526", "0.219")
	g6f := findOffer(t, offers, "us-east-1", "use1-az1", "g6f.large") // an eighth of an L4
	if g6f.GPUModel != "L4" || g6f.GPUCount != 0.125 || g6f.GPUMemoryGB != 24 {
		t.Errorf("g6f.large = %+v; want 0.125 × L4 (24 GB)", g6f)
	}
	// GCP: SkyPilot's host + GPUs (9.46006 + 33.60609, 2.75246 + 22.8008) is 51% below the
	// pricing YAML's price of the machine type as a whole: the YAML's is taken.
	a3 := findOffer(t, offers, "us-central1", "us-central1-a", "a3-highgpu-8g")
	wantPrices(t, a3, "88.489999903", "43.804398904")
	if a3.Source != gcpPricingOrigin {
		t.Errorf("a3-highgpu-8g source = %q, want the pricing YAML", a3.Source)
	}
	if a3.GPUModel != "H100-SXM" || a3.GPUCount != 8 {
		t.Errorf("a3-highgpu-8g = %s × %g, want 8 × H100-SXM", a3.GPUModel, a3.GPUCount)
	}
	a4 := findOffer(t, offers, "us-central1", "us-central1-b", "a4-highgpu-8g")
	wantPrices(t, a4, "none", "none") // host price 0.0: no price, reported
	if a4.GPUModel != "B200" || a4.GPUMemoryGB != 180 {
		t.Errorf("a4-highgpu-8g = %s %g GB, want B200 180 GB", a4.GPUModel, a4.GPUMemoryGB)
	}
	wantPrices(t, findOffer(t, offers, "us-central1", "us-central1-a", "n1+T4:1"), "0.35", "0.175")
	mega := findOffer(t, offers, "us-central1", "us-central1-a", "a3-megagpu-8g")
	if mega.GPUModel != "H100-SXM" {
		t.Errorf("a3-megagpu-8g GPU = %s, want H100-SXM", mega.GPUModel)
	}
	// Lambda: the PCIe H100 told apart by its instance type; Nebius: CRLF file with spot.
	if pcie := findOffer(t, offers, "us-east-1", "", "gpu_1x_h100_pcie"); pcie.GPUModel != "H100-PCIe" {
		t.Errorf("gpu_1x_h100_pcie GPU = %s, want H100-PCIe", pcie.GPUModel)
	}
	wantPrices(t, findOffer(t, offers, "eu-north1", "", "gpu-h200-sxm_8gpu-128vcpu-1600gb"), "28", "11.6")
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestReadSkyPilotBadRows reads real AWS rows edited to carry every kind of wrong fact.
func TestReadSkyPilotBadRows(t *testing.T) {
	im := readFixture(t, "testdata/skypilot_bad_aws.csv", "aws")
	const f = "testdata/skypilot_bad_aws.csv"
	want := []string{
		f + `:2: GpuInfo "81920 MiB per GPU": contradicts the datasheet: H200 has 141 GB (NVIDIA H200 Tensor Core GPU datasheet); the datasheet figure is used`,
		f + `:3: GpuInfo "81920 MiB per GPU": contradicts the datasheet: B200 has 180 GB (NVIDIA HGX platform technical specifications (HGX B200, per GPU)); the datasheet figure is used`,
		f + `:4: Price "0.0": a price of 0 is a missing price (column 7): no on-demand price`,
		f + `:5: Price "-1.5": negative (column 7): no on-demand price`,
		f + `:6: Price "abc": not a decimal amount (column 7): no on-demand price`,
		f + `:6: SpotPrice "1/3": not a decimal amount (column 8): no spot price`,
		f + `:7: vCPUs "-4": negative (column 4): taken as unknown`,
		f + `:8: AcceleratorCount "x": not a number (column 3): row left out`,
		f + `:9: row has 9 fields, the header 11: row left out`,
		f + `:10: Region: empty: row left out`,
		f + `:11: InstanceType "g4dn.xlarge": same region, zone and instance type as line 4: the later row is used`,
		f + `:14: SpotPrice: empty (column 8): no spot price`,
		f + `:15: SpotPrice "1e999999": not a decimal amount (column 8): no spot price`,
	}
	var got []string
	for _, is := range im.Issues {
		got = append(got, FormatIssue(is))
	}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if im.Rows != 14 || im.Skipped["CPU-only (no accelerator)"] != 1 || im.Skipped["not an NVIDIA GPU: Inferentia"] != 1 {
		t.Errorf("rows %d, skipped %v; want 14 rows, one CPU-only and one Inferentia row left out", im.Rows, im.Skipped)
	}
	if len(im.Offers) != 8 {
		t.Fatalf("got %d offers, want 8", len(im.Offers))
	}
	h200 := findOffer(t, im.Offers, "us-east-1", "use1-az2", "p5en.48xlarge")
	if h200.GPUMemoryGB != 141 {
		t.Errorf("H200 listed at 80 GB: offer memory = %g GB, want the datasheet's 141", h200.GPUMemoryGB)
	}
	wantPrices(t, findOffer(t, im.Offers, "us-east-1", "use1-az1", "g4dn.xlarge"), "0.526", "0.219") // the later row
	wantPrices(t, findOffer(t, im.Offers, "us-east-1", "use1-az1", "g4dn.2xlarge"), "none", "0.2936")
	wantPrices(t, findOffer(t, im.Offers, "us-east-1", "use1-az1", "g4dn.4xlarge"), "none", "none")
	if g5 := findOffer(t, im.Offers, "us-east-1", "use1-az1", "g5.xlarge"); g5.VCPUs != 0 || !g5.HasOnDemand {
		t.Errorf("g5.xlarge with vCPUs -4 = %+v; want the offer kept with 0 vCPUs", g5)
	}
}

// TestReadSkyPilotGCPJoin reads real GCP rows: a machine type priced host + GPU, one whose GPU
// row is missing, one whose GPU count cannot be told, a host price of 0.0, N1 GPUs, and an H200
// row listed at 80 GB.
func TestReadSkyPilotGCPJoin(t *testing.T) {
	im := readFixture(t, "testdata/skypilot_small_gcp.csv", "gcp")
	const f = "testdata/skypilot_small_gcp.csv"
	want := []string{
		f + `:4: InstanceType "a3-highgpu-8g": no GPU price row (AcceleratorName H100, AcceleratorCount 8) for zone us-central1-b: machine type left out`,
		f + `:5: InstanceType "g2-standard-64": cannot tell how many GPUs this machine type has: row left out`,
		f + `:6: Price "0.0": a price of 0 is a missing price (column 9): no on-demand price`,
		f + `:6: SpotPrice "0.0": a price of 0 is a missing price (column 10): no spot price`,
		f + `:11: GpuInfo "81920 MiB per GPU": contradicts the datasheet: H200 has 141 GB (NVIDIA H200 Tensor Core GPU datasheet); the datasheet figure is used`,
		f + `:11: SpotPrice "37.4976": 8 × H200 GPU row in asia-south1-b: spot is not below the on-demand price 36.60258`,
	}
	var got []string
	for _, is := range im.Issues {
		got = append(got, FormatIssue(is))
	}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var names []string
	for _, o := range im.Offers {
		names = append(names, o.InstanceType)
	}
	if w := []string{"a2-highgpu-1g", "a4-highgpu-8g", "a3-ultragpu-8g", "n1+T4:1", "n1+T4:2"}; !slices.Equal(names, w) {
		t.Errorf("offers = %q, want %q", names, w)
	}
	a2 := findOffer(t, im.Offers, "us-central1", "us-central1-a", "a2-highgpu-1g")
	wantPrices(t, a2, "3.67339", "1.80385") // 0.73948 + 2.93391, 0.36975 + 1.4341
	if a2.GPUModel != "A100-40GB" || a2.GPUCount != 1 || a2.VCPUs != 12 || a2.MemoryGiB != 85 {
		t.Errorf("a2-highgpu-1g = %+v", a2)
	}
	if h200 := findOffer(t, im.Offers, "asia-south1", "asia-south1-b", "a3-ultragpu-8g"); h200.GPUMemoryGB != 141 || h200.GPUModel != "H200" {
		t.Errorf("a3-ultragpu-8g = %s %g GB, want H200 141 GB", h200.GPUModel, h200.GPUMemoryGB)
	}
	t2 := findOffer(t, im.Offers, "us-central1", "us-central1-a", "n1+T4:2")
	if t2.GPUCount != 2 || t2.VCPUs != 0 {
		t.Errorf("n1+T4:2 = %+v; want 2 GPUs and no host", t2)
	}
	if n := im.Skipped["GCP GPU price row of a machine family (joined into its machine types)"]; n != 4 {
		t.Errorf("joined GPU rows = %d, want 4 (A100, B200, H100-MEGA, H200)", n)
	}
}

func TestParseSkyPilotRejectsNonCatalogs(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"empty", "", "the file is empty"},
		{"other csv", "Name,Price\nx,1\n", "lacks column InstanceType, AcceleratorName"},
		{"no region", "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,SpotPrice\n", "lacks column Region"},
		{"bad header quote", "\"InstanceType,AcceleratorName\n", "header"},
	} {
		_, err := ParseSkyPilot(strings.NewReader(tc.body), "f.csv", "aws")
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "f.csv") {
			t.Errorf("%s: ParseSkyPilot error = %v; want EInvalid naming f.csv and %q", tc.name, err, tc.want)
		}
	}
	// A byte-order mark and CRLF are fine; a header alone gives no offers and no error.
	im, err := ParseSkyPilot(strings.NewReader("\ufeffInstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n"), "f.csv", "lambda")
	if err != nil || len(im.Offers) != 0 {
		t.Errorf("header with BOM: %v, %d offers; want no error and no offers", err, len(im.Offers))
	}
}

func TestProviderFromName(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"catalogs/v8/aws/vms.csv", "aws"},
		{"/tmp/gcp_vms_gpu.csv", "gcp"},
		{"lambda_vms.csv", "lambda"},
		{"C:\\data\\Nebius-vms.csv", "nebius"},
		{"prices.csv", ""},
		{"/home/todo/vms.csv", ""},
	} {
		got, ok := ProviderFromName(tc.path)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("ProviderFromName(%q) = %q, %v; want %q", tc.path, got, ok, tc.want)
		}
	}
}

func TestIsDecimal(t *testing.T) {
	for s, want := range map[string]bool{"12.5": true, "-0.25": true, "1e-3": true, ".5": true, "5.": true,
		"1/3": false, "abc": false, "": false, "1e999999": false, "--1": false, "1e": false, "NaN": false, "Inf": false, ".": false} {
		if got := isDecimal(s); got != want {
			t.Errorf("isDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzReadSkyPilot feeds the reader real catalog rows and mutations of them. It must not panic
// or hang, and whatever it returns must keep the Offer contract.
func FuzzReadSkyPilot(f *testing.F) {
	for _, s := range bundled {
		body, err := readBundled(s.File)
		if err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitAfter(string(body), "\n")
		f.Add([]byte(strings.Join(lines[:min(len(lines), 25)], "")), s.Provider == "gcp")
	}
	for _, p := range []string{"testdata/skypilot_bad_aws.csv", "testdata/skypilot_small_gcp.csv"} {
		body, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, strings.Contains(p, "gcp"))
	}
	f.Fuzz(func(t *testing.T, data []byte, gcp bool) {
		provider := "aws"
		if gcp {
			provider = "gcp"
		}
		im, err := ParseSkyPilot(bytes.NewReader(data), "fuzz.csv", provider)
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("error %v has code %s, want %s", err, gpucost.ErrorCode(err), gpucost.EInvalid)
			}
			return
		}
		for _, o := range im.Offers {
			checkOffer(t, o)
		}
		for _, is := range im.Issues {
			if is.Source != "fuzz.csv" || is.Line < 0 || is.Reason == "" {
				t.Fatalf("issue %+v lacks its source, line or reason", is)
			}
		}
	})
}

func checkOffer(t *testing.T, o gpucost.Offer) {
	t.Helper()
	switch {
	case o.Provider == "" || o.Region == "" || o.InstanceType == "" || o.GPUModel == "":
		t.Fatalf("offer %+v lacks provider, region, instance type or GPU", o)
	case !(o.GPUCount > 0) || o.GPUMemoryGB < 0 || o.VCPUs < 0 || o.MemoryGiB < 0:
		t.Fatalf("offer %+v has a non-positive GPU count or a negative size", o)
	case o.HasOnDemand != (o.OnDemand.Nanos > 0) || o.HasSpot != (o.SpotPrice.Nanos > 0):
		t.Fatalf("offer %+v: a price is present but not positive, or absent but set", o)
	}
}

// TestProviderFromRows tells each provider's vms.csv from its rows, and refuses rows that name
// none or mix two.
func TestProviderFromRows(t *testing.T) {
	const header = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\n"
	for _, tc := range []struct {
		name, rows, want string
	}{
		{"aws", "p5.48xlarge,H100,8,192,2048,55.04,us-east-1,,\ng5.xlarge,A10G,1,4,16,1.0,eu-west-1,,\n", "aws"},
		{"gcp", "a2-highgpu-1g,A100,1,12,85,3.67,us-central1,,\n", "gcp"},
		{"lambda", "cpu_4x_general,,,4,16,0.2,us-east-1,,\ngpu_1x_h100_pcie,H100,1,26,200,2.49,us-east-1,,\n", "lambda"},
		{"nebius", "cpu-d3_4vcpu-16gb,,0,4,16,0.0992,eu-north1,,\ngpu-h100-sxm_8gpu-128vcpu-1600gb,H100,8,128,1600,23.6,eu-north1,,\n", "nebius"},
		{"azure", "Standard_NC24ads_A100_v4,A100,1,24,220,3.67,eastus,,\n", "azure"},
		{"mixed", "p5.48xlarge,H100,8,192,2048,55.04,us-east-1,,\na2-highgpu-1g,A100,1,12,85,3.67,us-central1,,\n", ""},
		{"unknown", "box-1,H100,1,8,64,2.5,somewhere,,\n", ""},
	} {
		got, ok := ProviderFromRows(strings.NewReader(header + tc.rows))
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("ProviderFromRows(%s) = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
	for file, want := range map[string]string{"aws_vms_gpu.csv": "aws", "gcp_vms_gpu.csv": "gcp", "lambda_vms.csv": "lambda", "nebius_vms.csv": "nebius"} {
		f, err := os.Open(filepath.Join("..", "..", "shared", "datasets", "catalog", file))
		if err != nil {
			t.Skipf("the shared datasets are not beside the repository: %v", err)
		}
		got, _ := ProviderFromRows(f)
		f.Close()
		if got != want {
			t.Errorf("ProviderFromRows(%s) = %q, want %q", file, got, want)
		}
	}
}
