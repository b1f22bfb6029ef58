package profile

import (
	"math"

	"github.com/gpucost/gpucost/catalog"
)

// FitHeadroom is the memory kept above a run's VRAM peak when finding the GPU that holds it.
const FitHeadroom = 0.2

// Fit is the cheapest catalog GPU that holds a memory need.
type Fit struct {
	GPU          string  `json:"gpu"`
	MemoryGB     float64 `json:"memory_gb"`
	NeedGB       float64 `json:"need_gb"`
	PerGPUHour   string  `json:"usd_per_gpu_hour"`
	Provider     string  `json:"provider"`
	InstanceType string  `json:"instance_type"`
	Region       string  `json:"region"`
}

// CheapestFit returns the cheapest on-demand GPU of the bundled catalog that holds the run's
// VRAM peak with FitHeadroom, or nil when the run used no memory or none holds it.
func CheapestFit(res Result) *Fit {
	needGB := res.MemPeakMiB * (1 + FitHeadroom) / 1024
	if needGB <= 0 {
		return nil
	}
	cat, err := catalog.Bundled()
	if err != nil {
		return nil
	}
	rows, err := cat.Fits(needGB, catalog.Query{})
	if err != nil || len(rows) == 0 {
		return nil
	}
	r := rows[0]
	return &Fit{GPU: r.GPU, MemoryGB: r.MemoryGB, NeedGB: math.Round(needGB*10) / 10,
		PerGPUHour: r.OnDemand.PerGPUHour.Dollars(), Provider: r.Provider,
		InstanceType: r.OnDemand.Offer.InstanceType, Region: r.OnDemand.Offer.Region}
}
