package catalog

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestParseGCPPricingYAML(t *testing.T) {
	const name = "testdata/gcp_pricing_small.yml"
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ParseGCPPricingYAML(f, name)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, is := range g.Issues {
		got = append(got, FormatIssue(is))
	}
	want := []string{
		name + `:17: a2-highgpu-1g.cost.europe-west4.hour "x": not a positive decimal amount: price left out; fix the file or take a fresh pricing.yml`,
		name + `:21: a2-highgpu-1g.cost.asia-east1.hour_spot "3.9": spot price is not below the on-demand price 3.790142`,
		name + `:34: g2-standard-4.cost.us-central1.hour: missing: no price for this machine type and region`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("issues:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if g.Generated != time.Date(2026, 7, 2, 6, 56, 58, 0, time.UTC) {
		t.Errorf("Generated = %v", g.Generated)
	}
	if g.Rows != 3 || g.Skipped["machine type without a GPU"] != 1 || len(g.Offers) != 2 || len(g.Prices) != 2 {
		t.Fatalf("rows %d, skipped %v, %d offers; want 3 rows, n2 left out, 2 offers", g.Rows, g.Skipped, len(g.Offers))
	}
	p, ok := g.Price("a2-highgpu-1g", "us-central1")
	if !ok || p.OnDemand.Decimal() != "3.673385" || p.Spot.Decimal() != "1.1020155" || p.GPUModel != "A100-40GB" || p.GPUCount != 1 || p.Line != 9 {
		t.Errorf("a2-highgpu-1g us-central1 = %+v", p)
	}
	// month_1y ÷ 730 h: 1689.43 / 730 = 2.314287671…
	if p.Commit1y.Decimal() != "2.314287671" || p.Commit3y.Decimal() != "1.285726027" || !p.Has1y || !p.Has3y {
		t.Errorf("committed = %s (1y), %s (3y); want month_1y and month_3y ÷ 730", p.Commit1y.Decimal(), p.Commit3y.Decimal())
	}
	asia, _ := g.Price("a2-highgpu-1g", "asia-east1")
	if asia.Has3y || !asia.HasSpot {
		t.Errorf("asia-east1 = %+v; want a spot price kept and no 3-year price", asia)
	}
	o := g.Offers[0]
	if o.Provider != "gcp" || o.Zone != "" || o.GPUMemoryGB != 40 || o.VCPUs != 12 || o.MemoryGiB != 85 || o.Source != name {
		t.Errorf("offer = %+v", o)
	}
}

func TestParseGCPPricingYAMLRefusesOtherFiles(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"not yaml", "compute: [\n", "read GCP pricing YAML x.yml"},
		{"no instances", "compute:\n  disk: 1\n", "no compute.instance map"},
	} {
		_, err := ParseGCPPricingYAML(strings.NewReader(tc.body), "x.yml")
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseGCPPricingYAML error = %v, want EInvalid with %q", tc.name, err, tc.want)
		}
	}
}

// TestBundledGCPAgreesWithPricingYAML checks the bundled GCP A100, H100, H200 and L4 machine
// types against the pricing YAML they were corrected with: within 1% wherever the YAML prices
// the same machine type (or its twin, gcpTwins) and region. The YAML has no H200 (a3-ultragpu) machine type: those
// offers keep SkyPilot's prices.
func TestBundledGCPAgreesWithPricingYAML(t *testing.T) {
	c := bundledCatalog(t)
	checked := map[string]int{}
	for _, o := range c.Offers() {
		fam := gpuFamily(o.GPUModel)
		if o.Provider != "gcp" || fam == "" {
			continue
		}
		name := o.InstanceType
		if tw, ok := gcpTwins[name]; ok {
			name = tw.twin
		}
		p, ok := c.gcpPricing.Price(name, o.Region)
		if !ok {
			continue
		}
		checked[fam]++
		if d := relDiff(o.OnDemand, p.OnDemand); !o.HasOnDemand || d > 0.01 {
			t.Errorf("%s %s on-demand %s, pricing YAML %s: %.1f%% apart", o.InstanceType, Place(o), o.OnDemand.Decimal(), p.OnDemand.Decimal(), 100*d)
		}
		if d := relDiff(o.SpotPrice, p.Spot); p.HasSpot && (!o.HasSpot || d > 0.01) {
			t.Errorf("%s %s spot %s, pricing YAML %s: %.1f%% apart", o.InstanceType, Place(o), o.SpotPrice.Decimal(), p.Spot.Decimal(), 100*d)
		}
	}
	for _, fam := range []string{"A100", "H100", "L4"} {
		if checked[fam] == 0 {
			t.Errorf("no bundled GCP %s offer was checked against the pricing YAML", fam)
		}
	}
	for _, p := range c.gcpPricing.Prices {
		if gpuFamily(p.GPUModel) == "H200" {
			t.Errorf("the pricing YAML now prices H200 (%s): check it here", p.InstanceType)
		}
	}
}

func gpuFamily(model string) string {
	for _, f := range []string{"A100", "H100", "H200", "L4"} {
		if strings.HasPrefix(model, f) && (f != "L4" || model == "L4") {
			return f
		}
	}
	return ""
}

func TestCommitted(t *testing.T) {
	c := bundledCatalog(t)
	commit, od, err := c.Committed("a3-highgpu-8g", "us-central1", "3y")
	if err != nil || od.Decimal() != "88.489999903" || !commit.Less(od) || commit.Nanos <= 0 {
		t.Fatalf("Committed(a3-highgpu-8g, us-central1, 3y) = %s, %s, %v", commit.Decimal(), od.Decimal(), err)
	}
	for _, tc := range []struct{ instance, region, term, want string }{
		{"a3-highgpu-8g", "mars1", "1y", "no GCP committed-use price of a3-highgpu-8g in mars1"},
		{"a3-highgpu-8g", "us-central1", "5y", "use --term 1y or 3y"},
	} {
		_, _, err := c.Committed(tc.instance, tc.region, tc.term)
		if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Committed(%s, %s, %s) error = %v, want %q", tc.instance, tc.region, tc.term, err, tc.want)
		}
	}
}

func TestReadImportsAs(t *testing.T) {
	asOf := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	ims, err := ReadImportsAs(FormatGCPPricingYML, []string{gcpPricingFile}, "", asOf)
	if err != nil {
		t.Fatal(err)
	}
	if len(ims) != 1 || ims[0].Provider != "gcp" || len(ims[0].Offers) < 500 {
		t.Fatalf("ReadImportsAs(gcp-pricing-yml) = %d imports", len(ims))
	}
	if o := ims[0].Offers[0]; o.AsOf.Format("2006-01-02") != "2026-07-02" || o.Source != gcpPricingFile {
		t.Errorf("offer as of %v from %q; want the file's date and name", o.AsOf, o.Source)
	}
	for _, tc := range []struct{ format, provider, want string }{
		{"csv", "", "use skypilot, gcp-pricing-yml or aws-spot-advisor"},
		{FormatGCPPricingYML, "aws", "holds gcp prices"},
	} {
		_, err := ReadImportsAs(tc.format, []string{gcpPricingFile}, tc.provider, asOf)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ReadImportsAs(%s, --provider %q) error = %v, want %q", tc.format, tc.provider, err, tc.want)
		}
	}
}
