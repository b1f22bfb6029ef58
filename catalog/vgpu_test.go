package catalog

import (
	"testing"

	"github.com/gpucost/gpucost"
)

func TestParseVGPU(t *testing.T) {
	for _, tc := range []struct {
		name, model string
		gb, of      int
		fraction    float64
	}{
		{"GRID A100-10C", "A100-40GB", 10, 40, 0.25},
		{"NVIDIA A100-4C", "A100-40GB", 4, 40, 0.1},
		{"GRID T4-4Q", "T4", 4, 16, 0.25},
		{"NVIDIA H100-80C", "H100-SXM", 80, 80, 1},
		{"GRID A100D-20C", "A100-80GB", 20, 80, 0.25},
		{"nvidia l4-6q", "L4", 6, 24, 0.25},
		{"A10-12A", "A10", 12, 24, 0.5},
	} {
		v, ok := ParseVGPU(tc.name)
		if !ok || v.Model != tc.model || v.MemoryGB != tc.gb || v.OfGB != tc.of || v.Fraction() != tc.fraction {
			t.Errorf("ParseVGPU(%q) = %+v, %v; want %s, %d of %d GB (%v)", tc.name, v, ok, tc.model, tc.gb, tc.of, tc.fraction)
		}
	}
	// Names of whole GPUs and MIG devices, and impossible profiles, are not vGPU profiles.
	for _, name := range []string{"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB MIG 1g.10gb", "Tesla V100-SXM2-16GB",
		"A100-80GB", "H100-MEGA", "nvidia-tesla-t4", "NVIDIA RTX 4000 Ada Generation", "NVIDIA L4", "GRID T4-32Q",
		"GRID A100-10X", "GRID FOO-10C", "GRID A100-0C", ""} {
		if v, ok := ParseVGPU(name); ok {
			t.Errorf("ParseVGPU(%q) = %+v, want no profile", name, v)
		}
	}
}

func TestVGPUPrice(t *testing.T) {
	for _, tc := range []struct {
		profile string
		whole   int64 // nanos
		want    string
	}{
		{"GRID A100-10C", 4_100_000_000, "1.025"},
		{"NVIDIA A100-4C", 4_100_000_000, "0.41"},
		{"GRID A100-3C", 1, "0"},            // 0.075 nano rounds down
		{"GRID A100-20C", 1, "0.000000001"}, // 0.5 nano rounds away from zero
		{"GRID L4-8Q", 1_000_000_000, "0.333333333"},
	} {
		v, ok := ParseVGPU(tc.profile)
		if got := v.Price(gpucost.USD(tc.whole)); !ok || got.Decimal() != tc.want || got.Currency != "USD" {
			t.Errorf("ParseVGPU(%q).Price(%d nanos) = %s, want %s", tc.profile, tc.whole, got, tc.want)
		}
	}
}

// TestPricePerGPUHourOfVGPU prices a vGPU profile at its fraction of its physical GPU's price,
// with that GPU's offer.
func TestPricePerGPUHourOfVGPU(t *testing.T) {
	a100 := gpucost.Offer{Provider: "aws", Region: "us-east-1", InstanceType: "p4d.24xlarge", GPUModel: "A100-40GB", GPUCount: 8,
		OnDemand: gpucost.USD(32_772_000_000), HasOnDemand: true} // $4.0965 a GPU-hour
	c := (&Catalog{}).With([]gpucost.Offer{a100})
	whole, _, _ := c.PricePerGPUHour("A100-40GB", "aws")
	got, o, ok := c.PricePerGPUHour("GRID A100-10C", "aws")
	if whole.Decimal() != "4.0965" || !ok || got.Decimal() != "1.024125" || o.InstanceType != "p4d.24xlarge" {
		t.Errorf("PricePerGPUHour(GRID A100-10C) = %s via %s, %v; want a quarter of %s", got.Decimal(), o.InstanceType, ok, whole.Decimal())
	}
	if _, _, ok := c.PricePerGPUHour("GRID T4-4Q", "aws"); ok {
		t.Errorf("PricePerGPUHour(GRID T4-4Q) priced a profile of a GPU without an offer")
	}
	if _, _, ok := c.PricePerGPUHour("NVIDIA RTX 4000 Ada Generation", "aws"); ok {
		t.Errorf("PricePerGPUHour(RTX 4000 Ada) priced a model the catalog does not know")
	}
}
