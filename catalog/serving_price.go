package catalog

import (
	"fmt"

	"github.com/gpucost/gpucost"
)

// ServingPrice is the price the serving planners (plan capacity, autoscale, batching) use for
// gpu: the median on-demand $/GPU-hour over regions of its offers (of provider, when given,
// PricePerGPUHour), and where it came from, for the note under their tables. It returns an
// EInvalid error when the catalog prices no such GPU.
func (c *Catalog) ServingPrice(gpu, provider string) (gpucost.Money, string, error) {
	p, offer, ok := c.PricePerGPUHour(gpu, provider)
	if !ok {
		return gpucost.Money{}, "", gpucost.Errorf(gpucost.EInvalid, "--gpu %q: the catalog prices no such GPU; see gpucost catalog gpus, or give --price", gpu)
	}
	return p, fmt.Sprintf("median on-demand $/GPU-h over regions: %s %s in %s", offer.Provider, offer.InstanceType, offer.Region), nil
}

// SpotServingPrice is onDemand, gpu's serving price, less the spot discount of gpu's cheapest
// offers (SpotDiscount). It returns an EInvalid error when no offer of gpu has a spot price.
func (c *Catalog) SpotServingPrice(gpu, provider string, onDemand gpucost.Money) (gpucost.Money, error) {
	var spot gpucost.Money
	d, ok, err := c.SpotDiscount(gpu, provider)
	if err != nil {
		return spot, err
	}
	if ok {
		spot = onDemand.MulFloat(1 - d/100)
	}
	if spot.IsZero() {
		return spot, gpucost.Errorf(gpucost.EInvalid, "--gpu %s has no spot price in the catalog: give --spot-price", gpu)
	}
	return spot, nil
}
