package recommend

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// PriceQuery selects offers: a GPU model on one provider, optionally one region and instance
// type, with at least MinGPUs GPUs of at least MinMemoryGB each.
type PriceQuery struct {
	Model        string // any name the lookup knows
	Provider     string
	Region       string // "" for any
	InstanceType string // "" for any
	MinGPUs      int
	MinMemoryGB  float64
	Spot         bool // priced at the spot price instead of on-demand
}

// Prices is what the engine asks of a price catalog.
type Prices interface {
	// Cheapest returns the offer q selects with the lowest instance price under q's pricing
	// model, and false when none has such a price.
	Cheapest(q PriceQuery) (gpucost.Offer, bool)
	// CheapestAnywhere is Cheapest over every provider and region: q.Provider and q.Region are
	// ignored, q.InstanceType too (instance names differ between providers).
	CheapestAnywhere(q PriceQuery) (gpucost.Offer, bool)
	// Offers returns every offer of a provider, in one region or in all ("" for any), of every GPU
	// model: the candidates when a machine moves to another GPU type.
	Offers(provider, region string) []gpucost.Offer
	// Spec returns the datasheet of a GPU model.
	Spec(model string) (gpucost.GPUModel, bool)
}

// Table is a Prices over a list of offers; model names are matched after catalog.Normalize.
type Table struct {
	byModel map[string][]gpucost.Offer
	all     []gpucost.Offer
	spec    func(string) (gpucost.GPUModel, bool)
}

var _ Prices = (*Table)(nil)

// NewTable indexes offers by GPU model; spec looks up datasheets (catalog.Spec when nil).
func NewTable(offers []gpucost.Offer, spec func(string) (gpucost.GPUModel, bool)) *Table {
	if spec == nil {
		spec = catalog.Spec
	}
	t := &Table{byModel: map[string][]gpucost.Offer{}, all: slices.Clone(offers), spec: spec}
	for _, o := range offers {
		k := modelKey(o.GPUModel)
		t.byModel[k] = append(t.byModel[k], o)
	}
	return t
}

// FromCatalog returns a Prices over a catalog's offers and datasheets.
func FromCatalog(c *catalog.Catalog) *Table { return NewTable(c.Offers(), c.Spec) }

func modelKey(name string) string {
	if c, ok := catalog.Normalize(name); ok {
		return c
	}
	return strings.ToLower(strings.TrimSpace(name))
}

// Cheapest returns the cheapest instance q selects; ties go to the fewest GPUs, then by
// instance type, region and zone, so the answer does not depend on the offers' order.
func (t *Table) Cheapest(q PriceQuery) (gpucost.Offer, bool) {
	return t.cheapest(q, matches)
}

// CheapestAnywhere returns the cheapest instance of q's GPU model with enough GPUs and memory in
// any provider and region, with Cheapest's tie-breaks (then by provider).
func (t *Table) CheapestAnywhere(q PriceQuery) (gpucost.Offer, bool) {
	return t.cheapest(q, func(o gpucost.Offer, q PriceQuery) bool {
		return o.GPUCount >= float64(q.MinGPUs) && (o.GPUMemoryGB == 0 || o.GPUMemoryGB >= q.MinMemoryGB)
	})
}

func (t *Table) cheapest(q PriceQuery, match func(gpucost.Offer, PriceQuery) bool) (gpucost.Offer, bool) {
	var best gpucost.Offer
	found := false
	for _, o := range t.byModel[modelKey(q.Model)] {
		price, ok := o.OnDemand, o.HasOnDemand
		if q.Spot {
			price, ok = o.SpotPrice, o.HasSpot
		}
		if !ok || price.Nanos <= 0 || !match(o, q) {
			continue
		}
		if !found || betterOffer(o, best, price, q.Spot) {
			best, found = o, true
		}
	}
	return best, found
}

func matches(o gpucost.Offer, q PriceQuery) bool {
	return strings.EqualFold(o.Provider, q.Provider) &&
		(q.Region == "" || strings.EqualFold(o.Region, q.Region)) &&
		(q.InstanceType == "" || o.InstanceType == q.InstanceType) &&
		o.GPUCount >= float64(q.MinGPUs) &&
		(o.GPUMemoryGB == 0 || o.GPUMemoryGB >= q.MinMemoryGB)
}

func betterOffer(o, best gpucost.Offer, price gpucost.Money, spot bool) bool {
	bp := best.OnDemand
	if spot {
		bp = best.SpotPrice
	}
	if c := cmp.Compare(price.Nanos, bp.Nanos); c != 0 {
		return c < 0
	}
	if c := cmp.Compare(o.GPUCount, best.GPUCount); c != 0 {
		return c < 0
	}
	return slices.Compare([]string{o.InstanceType, o.Region, o.Zone, o.Provider},
		[]string{best.InstanceType, best.Region, best.Zone, best.Provider}) < 0
}

// Offers returns the provider's offers in the region ("" for every region), in the order given.
func (t *Table) Offers(provider, region string) []gpucost.Offer {
	var out []gpucost.Offer
	for _, o := range t.all {
		if strings.EqualFold(o.Provider, provider) && (region == "" || strings.EqualFold(o.Region, region)) {
			out = append(out, o)
		}
	}
	return out
}

// Spec returns the datasheet of a GPU model.
func (t *Table) Spec(model string) (gpucost.GPUModel, bool) { return t.spec(model) }

// price returns an offer's instance price per hour under the pricing model.
func price(o gpucost.Offer, spot bool) gpucost.Money {
	if spot {
		return o.SpotPrice
	}
	return o.OnDemand
}
