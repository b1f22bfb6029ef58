// Package catalog is gpucost's catalog of GPU models and priced offers: datasheet specs of the
// common NVIDIA data-center GPUs, a name normaliser that maps what every source calls a GPU to
// one canonical name, a reader for SkyPilot's vms.csv price files, and the bundled offers of AWS,
// GCP, Lambda and Nebius (SkyPilot) and Azure (Retail Prices API format) embedded in the binary.
// GCP prices are checked against a second source, the GCP pricing YAML (gcp_pricing.go), which
// also gives GCP committed-use prices; where the two disagree the catalog takes the YAML's, says
// so in the offer's Source, and reports the difference as an issue. A Catalog answers the
// questions the rest of gpucost asks: the cheapest $/GPU-hour per GPU and provider, a
// representative price to cost idle time with, and the cheapest GPU with enough memory.
//
// Prices are per hour for a whole instance; $/GPU-hour divides by the instance's GPUs. Instances
// with a fraction of a GPU (AWS g6f: an eighth to a half of an L4) are kept as offers but left
// out of every per-GPU comparison: a slice of a GPU is not a GPU.
package catalog

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Catalog is the bundled offers, overlaid by offers a user imported into a store, with the
// issues found in the bundled files. It is immutable; With returns a new one.
type Catalog struct {
	offers   []gpucost.Offer
	user     []gpucost.Offer // prices users set for a model (user_price.go)
	issues   []gpucost.CatalogIssue
	sources  []Source
	imported int
	gpus     gpuIndex // built on first use by LineGPU
	// gcpPricing is the bundled GCP pricing YAML: the second source of GCP prices and the
	// source of GCP committed-use prices, unless the store keeps those of a file imported since
	// (SettingGCPCommitted).
	gcpPricing *GCPPricing
}

// Load returns the bundled catalog overlaid with the offers in store and, where store keeps
// them (SettingGCPCommitted), the GCP committed-use prices imported last; a nil store gives the
// bundled catalog alone.
func Load(ctx context.Context, store gpucost.OfferStore) (*Catalog, error) {
	c, err := Bundled()
	if err != nil || store == nil {
		return c, err
	}
	stored, err := store.Offers(ctx, gpucost.OfferFilter{})
	if err != nil {
		return nil, err
	}
	return c.With(stored).withStoredCommitted(ctx, store)
}

// With returns a catalog in which offers replace the ones with the same provider, region, zone
// and instance type, and are added where there is none.
func (c *Catalog) With(offers []gpucost.Offer) *Catalog {
	type key struct{ provider, region, zone, instance string }
	k := func(o gpucost.Offer) key {
		return key{strings.ToLower(o.Provider), o.Region, o.Zone, o.InstanceType}
	}
	replaced := make(map[key]bool, len(offers))
	for _, o := range offers {
		replaced[k(o)] = true
	}
	out := &Catalog{issues: c.issues, sources: c.sources, imported: c.imported + len(offers), gcpPricing: c.gcpPricing,
		user: slices.Clone(c.user)}
	for _, o := range c.offers {
		if !replaced[k(o)] {
			out.offers = append(out.offers, o)
		}
	}
	out.offers = append(out.offers, offers...)
	out.splitUserPrices()
	return out
}

// Offers returns every offer in the catalog.
func (c *Catalog) Offers() []gpucost.Offer { return slices.Clone(c.offers) }

// Issues returns the wrong or missing facts found in the bundled price files.
func (c *Catalog) Issues() []gpucost.CatalogIssue { return slices.Clone(c.issues) }

// Sources returns the bundled price files with their origin, age and counts.
func (c *Catalog) Sources() []Source { return slices.Clone(c.sources) }

// Imported returns the number of offers that came from the store rather than the bundle.
func (c *Catalog) Imported() int { return c.imported }

// Spec returns the datasheet of the GPU model that name denotes, under any alias.
func (c *Catalog) Spec(name string) (gpucost.GPUModel, bool) { return Spec(name) }

// Providers returns the providers the catalog has offers from, sorted.
func (c *Catalog) Providers() []string {
	var out []string
	for _, o := range c.offers {
		if p := strings.ToLower(o.Provider); !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Models returns every GPU model with a spec or an offer, in display order.
func (c *Catalog) Models() []string {
	var out []string
	for _, s := range specs {
		out = append(out, s.Name)
	}
	var extra []string
	for _, o := range c.offers {
		if !slices.Contains(out, o.GPUModel) && !slices.Contains(extra, o.GPUModel) {
			extra = append(extra, o.GPUModel)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// wholeGPU reports whether an offer has at least one whole GPU, the unit of every per-GPU
// comparison.
func wholeGPU(o gpucost.Offer) bool { return o.GPUCount >= 1 }

// cheaper orders two priced offers: lower $/GPU-hour first, then by instance type, region and
// zone so that ties always resolve the same way.
func cheaper(a, b Price) int {
	return cmp.Or(
		cmp.Compare(a.PerGPUHour.Nanos, b.PerGPUHour.Nanos),
		cmp.Compare(a.Offer.InstanceType, b.Offer.InstanceType),
		cmp.Compare(a.Offer.Region, b.Offer.Region),
		cmp.Compare(a.Offer.Zone, b.Offer.Zone),
	)
}

// Price is one offer's price for one GPU-hour.
type Price struct {
	PerGPUHour gpucost.Money
	Offer      gpucost.Offer
}

func priceOf(o gpucost.Offer, p gpucost.PricingModel) (*Price, bool) {
	m, ok := o.PerGPUHour(p)
	if !ok {
		return nil, false
	}
	return &Price{PerGPUHour: m, Offer: o}, true
}
