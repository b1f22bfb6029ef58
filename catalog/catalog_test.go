package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func bundledCatalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSpecsCoverTheRequiredGPUs(t *testing.T) {
	for _, name := range []string{"T4", "L4", "A10", "A10G", "L40S", "V100-16GB", "V100-32GB", "A100-40GB",
		"A100-80GB", "H100-SXM", "H100-PCIe", "H100-NVL", "H200", "B200"} {
		s, ok := Spec(name)
		if !ok {
			t.Errorf("Spec(%q): missing", name)
			continue
		}
		if s.MemoryGB <= 0 || s.FP32TFLOPS <= 0 || s.MemoryBWGBs <= 0 || s.TDPW <= 0 || !strings.Contains(s.Source, "http") {
			t.Errorf("Spec(%q) = %+v: a figure or its source is missing", name, s)
		}
	}
	for _, tc := range []struct {
		name     string
		memGB    float64
		mig      []string
		bf16     float64
		sparsity float64 // the datasheet's sparsity figure, twice the dense one
	}{
		{"A100-40GB", 40, []string{"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"}, 312, 624},
		{"A100-80GB", 80, []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}, 312, 624},
		{"H100-SXM", 80, []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}, 989.5, 1979},
		{"H100-NVL", 94, []string{"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"}, 835.5, 1671},
		{"H200", 141, []string{"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}, 989.5, 1979},
		{"B200", 180, []string{"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"}, 2250, 4500},
		{"L4", 24, nil, 121, 242},
		{"L40S", 48, nil, 362.05, 724.1},
	} {
		s, _ := Spec(tc.name)
		if s.MemoryGB != tc.memGB || !slices.Equal(s.MIG, tc.mig) || s.BF16TFLOPS != tc.bf16 || 2*s.BF16TFLOPS != tc.sparsity {
			t.Errorf("Spec(%q) = %g GB, MIG %q, bf16 %g; want %g GB, MIG %q, dense bf16 %g (half of %g)",
				tc.name, s.MemoryGB, s.MIG, s.BF16TFLOPS, tc.memGB, tc.mig, tc.bf16, tc.sparsity)
		}
	}
	for _, s := range Specs() {
		if n := len(s.MIG); n > 0 && s.MIG[n-1] != fmt.Sprintf("7g.%dgb", int(s.MemoryGB)) {
			t.Errorf("%s: largest MIG profile %s does not hold the GPU's %g GB", s.Name, s.MIG[n-1], s.MemoryGB)
		}
	}
}

func TestSpecReturnsACopy(t *testing.T) {
	s, _ := Spec("nvidia h100 80gb hbm3")
	s.MIG[0] = "changed"
	s.Aliases[0] = "changed"
	if again, _ := Spec("H100-SXM"); again.MIG[0] != "1g.10gb" || again.Aliases[0] == "changed" {
		t.Error("changing a returned spec changed the table")
	}
}

// TestCheapestIsTheMinimum checks every row of Cheapest against a brute-force scan of the
// offers it stands for.
func TestCheapestIsTheMinimum(t *testing.T) {
	c := bundledCatalog(t)
	rows, err := c.Cheapest(Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 30 {
		t.Fatalf("Cheapest(all) = %d rows, want one per GPU and provider (≥ 30)", len(rows))
	}
	for _, r := range rows {
		var n int
		for _, o := range c.Offers() {
			if o.GPUModel != r.GPU || o.Provider != r.Provider || o.GPUCount < 1 {
				continue
			}
			od, hasOD := o.PerGPUHour(gpucost.OnDemand)
			sp, hasSpot := o.PerGPUHour(gpucost.Spot)
			if hasOD || hasSpot {
				n++
			}
			if hasOD && od.Less(r.OnDemand.PerGPUHour) {
				t.Errorf("%s %s: on-demand %s via %s, but %s costs %s", r.GPU, r.Provider, r.OnDemand.PerGPUHour, r.OnDemand.Offer.InstanceType, o.InstanceType, od)
			}
			if hasSpot && (r.Spot == nil || sp.Less(r.Spot.PerGPUHour)) {
				t.Errorf("%s %s: spot row %v misses %s at %s", r.GPU, r.Provider, r.Spot, o.InstanceType, sp)
			}
		}
		if n != r.Offers {
			t.Errorf("%s %s: Offers = %d, want %d", r.GPU, r.Provider, r.Offers, n)
		}
	}
	// Display order: GPUs as in the spec table, the cheapest provider first within a GPU.
	if rows[0].GPU != "T4" || rows[len(rows)-1].GPU != "B200" {
		t.Errorf("rows run from %s to %s, want T4 to B200", rows[0].GPU, rows[len(rows)-1].GPU)
	}
}

func TestCheapestFilters(t *testing.T) {
	c := bundledCatalog(t)
	rows, err := c.Cheapest(Query{GPU: "h100", Provider: "AWS"})
	if err != nil || len(rows) != 1 {
		t.Fatalf("Cheapest(h100, AWS) = %d rows, %v; want the one aws H100-SXM row", len(rows), err)
	}
	r := rows[0]
	if r.GPU != "H100-SXM" || r.MemoryGB != 80 || r.OnDemand.PerGPUHour.Decimal() != "6.88" || r.OnDemand.Offer.InstanceType != "p5.48xlarge" {
		t.Errorf("aws H100 = %s %g GB at %s via %s; want H100-SXM 80 GB at 6.88 via p5.48xlarge",
			r.GPU, r.MemoryGB, r.OnDemand.PerGPUHour.Decimal(), r.OnDemand.Offer.InstanceType)
	}
	if d, ok := r.SpotDiscount(); !ok || d < 50 || d > 100 {
		t.Errorf("aws H100 spot discount = %v, %v", d, ok)
	}

	rows, _ = c.Cheapest(Query{GPU: "H100"})
	var models []string
	for _, r := range rows {
		if !slices.Contains(models, r.GPU) {
			models = append(models, r.GPU)
		}
	}
	if !slices.Equal(models, []string{"H100-PCIe", "H100-SXM", "H100-NVL"}) {
		t.Errorf("Cheapest(H100) models = %q, want every H100 with an offer", models)
	}

	rows, _ = c.Cheapest(Query{SpotOnly: true})
	for _, r := range rows {
		if r.Spot == nil || r.Provider == "lambda" {
			t.Errorf("Cheapest(spot only) has %s %s without spot", r.GPU, r.Provider)
		}
	}

	rows, _ = c.Cheapest(Query{Region: "US-CENTRAL1", GPU: "l4"})
	if len(rows) != 1 || rows[0].Provider != "gcp" || rows[0].OnDemand.Offer.Region != "us-central1" {
		t.Errorf("Cheapest(l4 in us-central1) = %+v", rows)
	}

	for _, q := range []Query{{GPU: "Z9000"}, {Provider: "oci"}} {
		_, err := c.Cheapest(q)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "known") && !strings.Contains(err.Error(), "aws, azure, gcp") {
			t.Errorf("Cheapest(%+v) error = %v, want EInvalid listing the known values", q, err)
		}
	}
}

// offer builds a one-GPU test offer at a price in cents.
func offer(provider, region, instance string, cents int64) gpucost.Offer {
	return gpucost.Offer{Provider: provider, Region: region, InstanceType: instance, GPUModel: "L4", GPUCount: 1,
		OnDemand: gpucost.USD(cents * 10_000_000), HasOnDemand: true}
}

func TestPricePerGPUHourIsTheRegionalMedian(t *testing.T) {
	c := (&Catalog{}).With([]gpucost.Offer{
		offer("aws", "r1", "a", 100), offer("aws", "r1", "b", 90), // r1's cheapest: 0.90
		offer("aws", "r2", "a", 120),
		offer("aws", "r3", "a", 80),
		offer("aws", "r4", "a", 200),
		offer("gcp", "g1", "a", 70),
		{Provider: "aws", Region: "r5", InstanceType: "slice", GPUModel: "L4", GPUCount: 0.5,
			OnDemand: gpucost.USD(1), HasOnDemand: true}, // a fraction of a GPU: not a GPU-hour price
	})
	// aws regions: 0.80, 0.90, 1.20, 2.00 → the lower middle is 0.90 (r1, instance b).
	price, o, ok := c.PricePerGPUHour("NVIDIA L4", "aws")
	if !ok || price.Decimal() != "0.9" || o.Region != "r1" || o.InstanceType != "b" {
		t.Errorf("PricePerGPUHour(L4, aws) = %s via %s %s, %v; want 0.9 via r1 b", price.Decimal(), o.Region, o.InstanceType, ok)
	}
	// No lambda offer: every provider's regions, 0.70 0.80 0.90 1.20 2.00 → 0.90.
	if price, o, ok = c.PricePerGPUHour("L4", "lambda"); !ok || price.Decimal() != "0.9" || o.Provider != "aws" {
		t.Errorf("PricePerGPUHour(L4, lambda) = %s via %s, %v; want the all-provider median 0.9", price.Decimal(), o.Provider, ok)
	}
	if _, _, ok = c.PricePerGPUHour("H100", "aws"); ok {
		t.Error("PricePerGPUHour(H100) found a price in a catalog without H100 offers")
	}
}

func TestPricePerGPUHourBundled(t *testing.T) {
	c := bundledCatalog(t)
	price, o, ok := c.PricePerGPUHour("NVIDIA A100-SXM4-40GB", "aws")
	if !ok || o.Provider != "aws" || o.GPUModel != "A100-40GB" || o.InstanceType != "p4d.24xlarge" {
		t.Fatalf("PricePerGPUHour(A100 40GB, aws) = %s via %+v, %v", price, o, ok)
	}
	if per, _ := o.PerGPUHour(gpucost.OnDemand); per != price {
		t.Errorf("the price %s is not the cited offer's %s", price, per)
	}
	// p4d.24xlarge's regional prices, per GPU: the median lies between the cheapest and dearest.
	rows, _ := c.Cheapest(Query{GPU: "A100-40GB", Provider: "aws"})
	if price.Less(rows[0].OnDemand.PerGPUHour) {
		t.Errorf("median %s is below the cheapest %s", price, rows[0].OnDemand.PerGPUHour)
	}
}

func TestFits(t *testing.T) {
	c := bundledCatalog(t)
	rows, err := c.Fits(60, Query{})
	if err != nil || len(rows) == 0 {
		t.Fatalf("Fits(60 GB) = %v, %v", rows, err)
	}
	best := rows[0]
	for _, r := range rows {
		if r.MemoryGB < 60 {
			t.Errorf("Fits(60 GB) lists %s with %g GB", r.GPU, r.MemoryGB)
		}
		if r.OnDemand.PerGPUHour.Less(best.OnDemand.PerGPUHour) {
			t.Errorf("Fits(60 GB) is not cheapest first: %s %s before %s %s", best.GPU, best.OnDemand.PerGPUHour, r.GPU, r.OnDemand.PerGPUHour)
		}
	}
	// Brute force: no whole-GPU offer with ≥ 60 GB is cheaper than the first row.
	for _, o := range c.Offers() {
		if p, ok := o.PerGPUHour(gpucost.OnDemand); ok && o.GPUCount >= 1 && memoryGB(o) >= 60 && p.Less(best.OnDemand.PerGPUHour) {
			t.Errorf("Fits(60 GB) picked %s at %s, but %s %s costs %s", best.GPU, best.OnDemand.PerGPUHour, o.Provider, o.InstanceType, p)
		}
	}
	if rows, _ := c.Fits(500, Query{}); len(rows) != 0 {
		t.Errorf("Fits(500 GB) = %d rows, want none", len(rows))
	}
	rows, _ = c.Fits(20, Query{Provider: "aws"})
	if len(rows) == 0 || rows[0].GPU != "L4" || rows[0].Provider != "aws" {
		t.Errorf("Fits(20 GB, aws) starts with %+v; want the aws L4", rows[0])
	}
}

// memoryStore is an OfferStore over a slice, to test Load without SQLite.
type memoryStore []gpucost.Offer

func (m memoryStore) PutOffers(context.Context, []gpucost.Offer) (int, int, error) { return 0, 0, nil }
func (m memoryStore) Offers(context.Context, gpucost.OfferFilter) ([]gpucost.Offer, error) {
	return m, nil
}

func TestLoadOverlaysStoredOffers(t *testing.T) {
	base := bundledCatalog(t)
	g4 := findOffer(t, base.Offers(), "us-east-1", "use1-az1", "g4dn.xlarge")
	g4.OnDemand, g4.Source = gpucost.USD(100_000_000), "import" // $0.10
	g4.Provider = "AWS"                                         // providers match without regard to case
	extra := offer("aws", "us-east-1", "custom.large", 5)
	c, err := Load(context.Background(), memoryStore{g4, extra})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(c.Offers()), len(base.Offers())+1; got != want {
		t.Errorf("catalog has %d offers, want %d (one replaced, one added)", got, want)
	}
	if c.Imported() != 2 {
		t.Errorf("Imported() = %d, want 2", c.Imported())
	}
	rows, _ := c.Cheapest(Query{GPU: "T4", Provider: "aws"})
	if rows[0].OnDemand.PerGPUHour.Decimal() != "0.1" || rows[0].OnDemand.Offer.Source != "import" {
		t.Errorf("after import the aws T4 row is %s from %q; want 0.1 from the import", rows[0].OnDemand.PerGPUHour.Decimal(), rows[0].OnDemand.Offer.Source)
	}
	if len(c.Issues()) != len(base.Issues()) || len(c.Sources()) != 6 {
		t.Error("Load lost the bundled issues or sources")
	}
}

// BenchmarkBundled measures loading the bundled catalog: parsing the four embedded SkyPilot
// files (≈ 3,600 rows) into offers and issues.
func BenchmarkBundled(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Bundled(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheapest measures the "catalog gpus" query over the bundled offers.
func BenchmarkCheapest(b *testing.B) {
	c := bundledCatalog(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Cheapest(Query{}); err != nil {
			b.Fatal(err)
		}
	}
}
