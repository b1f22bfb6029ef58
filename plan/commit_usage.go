package plan

import (
	"time"

	"github.com/gpucost/gpucost"
)

// UsageByHour is a commitment's usage series built from telemetry: the on-demand dollars of GPU
// time in each hour from From, the hour the period starts in.
type UsageByHour struct {
	From    time.Time
	Dollars []float64
}

// NewUsageByHour returns an empty series for the hours of [from, to).
func NewUsageByHour(from, to time.Time) *UsageByHour {
	from = from.Truncate(time.Hour)
	return &UsageByHour{From: from, Dollars: make([]float64, int(to.Sub(from).Hours()+0.5))}
}

// Add counts the GPU-hours of an hourly rollup at price per GPU-hour; a rollup outside the
// period counts nothing.
func (u *UsageByHour) Add(r *gpucost.Rollup, price gpucost.Money) {
	if h := int(r.Start.Sub(u.From).Hours()); h >= 0 && h < len(u.Dollars) {
		u.Dollars[h] += r.GPUHours() * float64(price.Nanos) / 1e9
	}
}
