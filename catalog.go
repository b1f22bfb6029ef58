package gpucost

import "time"

// GPUModel is the datasheet of one GPU model. Every figure comes from the vendor's datasheet
// named in Source.
type GPUModel struct {
	Name        string   // canonical short name: "H100-SXM", "A100-80GB", "L4"
	Aliases     []string // names sources use for it: "NVIDIA H100 80GB HBM3", "H100", …
	Vendor      string
	MemoryGB    float64 // VRAM, GB as the vendor states it
	BF16TFLOPS  float64 // dense bf16/fp16 tensor TFLOPS (0 where the GPU has no bf16 tensor cores)
	FP16TFLOPS  float64 // dense fp16 tensor TFLOPS
	FP32TFLOPS  float64
	MemoryBWGBs float64  // memory bandwidth, GB/s
	TDPW        float64  // board power, W
	MIG         []string // MIG profile names, smallest first; empty if MIG is not supported
	Source      string   // datasheet title and URL
}

// PricingModel is how an offer is billed.
type PricingModel string

// Pricing models.
const (
	OnDemand PricingModel = "on-demand"
	Spot     PricingModel = "spot"
)

// Offer is one instance type a provider sells in one region or zone, with its prices.
type Offer struct {
	Provider     string // "aws", "gcp", "lambda", "nebius", …
	Region       string
	Zone         string // empty where prices do not vary by zone
	InstanceType string
	GPUModel     string // canonical GPUModel.Name
	GPUCount     float64
	GPUMemoryGB  float64 // per GPU
	VCPUs        float64
	MemoryGiB    float64

	OnDemand    Money // $/h for the whole instance; zero when the source has no price
	SpotPrice   Money // $/h; zero when the source has none
	HasOnDemand bool
	HasSpot     bool

	Source string    // where the prices came from: file or API, and its revision
	AsOf   time.Time // when the prices were read
}

// PerGPUHour returns the price of one of the offer's GPUs for one hour under pricing model p,
// and false if the offer has no such price.
func (o Offer) PerGPUHour(p PricingModel) (Money, bool) {
	price, ok := o.OnDemand, o.HasOnDemand
	if p == Spot {
		price, ok = o.SpotPrice, o.HasSpot
	}
	if !ok || o.GPUCount <= 0 {
		return Money{}, false
	}
	if n := int64(o.GPUCount); float64(n) == o.GPUCount {
		return price.DivInt(n), true
	}
	return price.MulFloat(1 / o.GPUCount), true
}

// CatalogIssue is a wrong or missing fact found in a price source: reported, never copied.
type CatalogIssue struct {
	Source string
	Line   int
	Field  string
	Value  string
	Reason string
}
