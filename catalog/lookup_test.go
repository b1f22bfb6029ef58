package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestFindSpecs(t *testing.T) {
	names := func(ms []gpucost.GPUModel) string {
		var out []string
		for _, m := range ms {
			out = append(out, m.Name)
		}
		return strings.Join(out, " ")
	}
	for _, tc := range []struct{ gpu, want string }{
		{"h100", "H100-PCIe H100-SXM H100-NVL"},
		{"NVIDIA A100-SXM4-80GB", "A100-80GB"},
		{"a100", "A100-40GB A100-80GB"},
		{"Tesla T4", "T4"},
	} {
		got, err := FindSpecs(tc.gpu)
		if err != nil || names(got) != tc.want {
			t.Errorf("FindSpecs(%q) = %q, %v, want %q", tc.gpu, names(got), err, tc.want)
		}
	}
	if all, err := FindSpecs(""); err != nil || len(all) != len(Specs()) {
		t.Errorf("FindSpecs(\"\") = %d models, %v, want all %d", len(all), err, len(Specs()))
	}
	_, err := FindSpecs("voodoo2")
	if err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), `unknown GPU "voodoo2": known GPUs are T4, T4g,`) {
		t.Errorf("FindSpecs(voodoo2) = %v, want EInvalid listing the known GPUs", err)
	}
}

func TestIssuesOf(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.IssuesOf("")
	if err != nil || !slices.Equal(all, c.Issues()) {
		t.Errorf("IssuesOf(\"\") = %d issues, %v, want all %d", len(all), err, len(c.Issues()))
	}
	gcp, err := c.IssuesOf("GCP")
	if err != nil || len(gcp) == 0 || len(gcp) >= len(all) {
		t.Fatalf("IssuesOf(GCP) = %d of %d issues, %v", len(gcp), len(all), err)
	}
	for _, is := range gcp {
		if !strings.Contains(is.Source, "gcp") {
			t.Errorf("IssuesOf(GCP) holds %+v", is)
		}
	}
	if _, err := c.IssuesOf("ibm"); err == nil || err.Error() != `unknown provider "ibm": the catalog has offers from aws, azure, gcp, lambda, nebius` {
		t.Errorf("IssuesOf(ibm) = %v", err)
	}
}

func TestPlace(t *testing.T) {
	for _, tc := range []struct {
		o    gpucost.Offer
		want string
	}{
		{gpucost.Offer{Region: "us-east-1"}, "us-east-1"},
		{gpucost.Offer{Region: "us-east-1", Zone: "us-east-1b"}, "us-east-1b"},
		{gpucost.Offer{Region: "us-east-1", Zone: "use1-az6"}, "us-east-1 use1-az6"},
	} {
		if got := Place(tc.o); got != tc.want {
			t.Errorf("Place(%s, %s) = %q, want %q", tc.o.Region, tc.o.Zone, got, tc.want)
		}
	}
}

func TestSourceAge(t *testing.T) {
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	s, ok := c.Source("gcp")
	if !ok || s.Provider != "gcp" || !strings.Contains(s.Origin, "gcp/vms.csv") {
		t.Fatalf("Source(gcp) = %+v, %v", s, ok)
	}
	if s, ok := c.Source("azure"); !ok || s.File != azureFile || s.Offers == 0 {
		t.Errorf("Source(azure) = %+v, %v; want the bundled Retail Prices file", s, ok)
	}
	for _, tc := range []struct {
		now  time.Time
		want int
	}{
		{s.AsOf.Add(-time.Hour), 0},
		{s.AsOf.Add(23 * time.Hour), 0},
		{s.AsOf.AddDate(0, 0, 10).Add(time.Hour), 10},
	} {
		if got := s.AgeDays(tc.now); got != tc.want {
			t.Errorf("AgeDays(%s) = %d, want %d", tc.now, got, tc.want)
		}
	}
}

func TestReadImports(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/skypilot_small_gcp.csv")
	if err != nil {
		t.Fatal(err)
	}
	named := filepath.Join(dir, "gcp_vms.csv")
	anon := filepath.Join(dir, "prices.csv")
	for _, p := range []string{named, anon} {
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	unknown := filepath.Join(dir, "unknown.csv")
	if err := os.WriteFile(unknown, []byte("InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\nbox-1,H100,1,8,64,2.5,somewhere,,\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 11, 27, 8, 0, 0, 0, time.UTC)
	if ims, err := ReadImports([]string{anon}, "", asOf); err != nil || ims[0].Provider != "gcp" {
		t.Errorf("ReadImports(prices.csv) = %+v, %v; want GCP told by the rows", ims, err)
	}
	ims, err := ReadImports([]string{named}, "", asOf)
	if err != nil || len(ims) != 1 || ims[0].Provider != "gcp" || len(ims[0].Offers) == 0 {
		t.Fatalf("ReadImports(gcp_vms.csv) = %+v, %v", ims, err)
	}
	for _, o := range ims[0].Offers {
		if !o.AsOf.Equal(asOf) {
			t.Errorf("offer %s as of %s, want %s", o.InstanceType, o.AsOf, asOf)
		}
	}
	if ims, err := ReadImports([]string{anon}, "GCP", asOf); err != nil || ims[0].Provider != "gcp" {
		t.Errorf("ReadImports(prices.csv, GCP) = %+v, %v", ims, err)
	}
	for _, tc := range []struct {
		name  string
		paths []string
		want  string
	}{
		{"no provider", []string{named, unknown}, "unknown.csv: cannot tell the provider from the file name or its rows; say --provider"},
		{"missing", []string{filepath.Join(dir, "aws_vms.csv")}, "import " + filepath.Join(dir, "aws_vms.csv") + ": open"},
	} {
		if _, err := ReadImports(tc.paths, "", asOf); err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadImports(%s) = %v, want EInvalid %q", tc.name, err, tc.want)
		}
	}
}
