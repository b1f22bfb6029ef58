package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Query selects offers. Empty fields match everything.
type Query struct {
	GPU      string // any name Normalize knows, or a family: "h100" selects every H100
	Provider string // "aws", "gcp", …; case does not matter
	Region   string
	SpotOnly bool // only offers with a spot price
}

// Row is the best a provider offers for one GPU model: the cheapest $/GPU-hour on-demand and
// spot, each with the offer that gives it.
type Row struct {
	GPU      string
	MemoryGB float64 // per GPU: the datasheet's, or the source's for a model without one
	Provider string
	OnDemand *Price // nil when no matching offer has an on-demand price
	Spot     *Price // nil when no matching offer has a spot price
	Offers   int    // matching offers with a price
}

// SpotDiscount returns how much cheaper the cheapest spot GPU-hour is than the cheapest
// on-demand one, in percent, and false if the row lacks either.
func (r Row) SpotDiscount() (float64, bool) {
	if r.OnDemand == nil || r.Spot == nil || r.OnDemand.PerGPUHour.Nanos <= 0 {
		return 0, false
	}
	od, sp := float64(r.OnDemand.PerGPUHour.Nanos), float64(r.Spot.PerGPUHour.Nanos)
	return 100 * (1 - sp/od), true
}

// Cheapest returns, per GPU model and provider, the cheapest on-demand and spot $/GPU-hour among
// the offers q selects, GPUs in display order and, within a GPU, the cheapest provider first.
// An unknown GPU or provider is an EInvalid error that lists the known ones.
func (c *Catalog) Cheapest(q Query) ([]Row, error) {
	sel, err := c.selector(q)
	if err != nil {
		return nil, err
	}
	type key struct{ gpu, provider string }
	rows := map[key]*Row{}
	var order []key
	for _, o := range c.offers {
		if !sel(o) {
			continue
		}
		od, hasOD := o.PerGPUHour(gpucost.OnDemand)
		sp, hasSpot := o.PerGPUHour(gpucost.Spot)
		if q.SpotOnly && !hasSpot || !hasOD && !hasSpot {
			continue
		}
		k := key{o.GPUModel, strings.ToLower(o.Provider)}
		r := rows[k]
		if r == nil {
			r = &Row{GPU: o.GPUModel, Provider: k.provider}
			rows[k] = r
			order = append(order, k)
		}
		r.Offers++
		r.MemoryGB = max(r.MemoryGB, memoryGB(o))
		if hasOD && (r.OnDemand == nil || cheaper(Price{od, o}, *r.OnDemand) < 0) {
			r.OnDemand = &Price{od, o}
		}
		if hasSpot && (r.Spot == nil || cheaper(Price{sp, o}, *r.Spot) < 0) {
			r.Spot = &Price{sp, o}
		}
	}
	out := make([]Row, 0, len(order))
	for _, k := range order {
		out = append(out, *rows[k])
	}
	slices.SortFunc(out, func(a, b Row) int {
		return cmp.Or(cmp.Compare(specOrder(a.GPU), specOrder(b.GPU)), cmp.Compare(a.GPU, b.GPU),
			comparePrice(a.OnDemand, b.OnDemand), comparePrice(a.Spot, b.Spot), cmp.Compare(a.Provider, b.Provider))
	})
	return out, nil
}

// comparePrice orders prices cheapest first, a missing price last.
func comparePrice(a, b *Price) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return cmp.Compare(a.PerGPUHour.Nanos, b.PerGPUHour.Nanos)
}

func memoryGB(o gpucost.Offer) float64 {
	if s, ok := lookupSpec(o.GPUModel); ok {
		return s.MemoryGB
	}
	return o.GPUMemoryGB
}

// selector checks q and returns the test an offer must pass: whole GPUs, and q's GPU, provider
// and region.
func (c *Catalog) selector(q Query) (func(gpucost.Offer) bool, error) {
	var models []string
	if q.GPU != "" {
		known := c.Models()
		if models = matchGPU(q.GPU, known); len(models) == 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "unknown GPU %q: known GPUs are %s", q.GPU, strings.Join(known, ", "))
		}
	}
	provider := strings.ToLower(strings.TrimSpace(q.Provider))
	if provider != "" && !slices.Contains(c.Providers(), provider) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "unknown provider %q: the catalog has offers from %s",
			q.Provider, strings.Join(c.Providers(), ", "))
	}
	region := strings.TrimSpace(q.Region)
	return func(o gpucost.Offer) bool {
		return wholeGPU(o) &&
			(models == nil || slices.Contains(models, o.GPUModel)) &&
			(provider == "" || strings.EqualFold(o.Provider, provider)) &&
			(region == "" || strings.EqualFold(o.Region, region))
	}, nil
}

// PricePerGPUHour returns a representative on-demand price of one GPU-hour of model, for
// costing idle time, and the offer it comes from so that reports can cite it.
//
// For each region of provider it takes the cheapest on-demand $/GPU-hour of the model, and
// returns the median of those regional prices (the lower middle one for an even count, so that
// the price is one an offer really has). The median rather than the minimum, because a fleet
// runs where it runs, not in the cheapest region; per region the cheapest, because an idle GPU
// is waste at the price its cheapest instance type would charge. If provider has no priced
// offer of the model, the same median is taken over every provider's regions. It returns false
// if no offer prices the model at all. A vGPU profile (ParseVGPU) costs its fraction of its
// physical GPU's price, with that GPU's offer. A price a user set for the model (UserPrice)
// comes before all of these.
func (c *Catalog) PricePerGPUHour(model, provider string) (gpucost.Money, gpucost.Offer, bool) {
	if o, ok := c.userPrice(model); ok {
		return o.OnDemand, o, true
	}
	if v, ok := ParseVGPU(model); ok { // a vGPU profile: its share of the physical GPU's price
		m, o, ok := c.PricePerGPUHour(v.Model, provider)
		return v.Price(m), o, ok
	}
	if canon, ok := Normalize(model); ok {
		model = canon
	}
	provider = strings.ToLower(strings.TrimSpace(provider))
	if p, ok := c.medianRegional(model, provider); ok {
		return p.PerGPUHour, p.Offer, true
	}
	if p, ok := c.medianRegional(model, ""); ok {
		return p.PerGPUHour, p.Offer, true
	}
	return gpucost.Money{}, gpucost.Offer{}, false
}

// medianRegional returns the median over regions of the cheapest on-demand GPU-hour of model;
// an empty provider takes every provider's regions.
func (c *Catalog) medianRegional(model, provider string) (Price, bool) {
	type region struct{ provider, region string }
	best := map[region]*Price{}
	for _, o := range c.offers {
		if o.GPUModel != model || !wholeGPU(o) || provider != "" && !strings.EqualFold(o.Provider, provider) {
			continue
		}
		p, ok := priceOf(o, gpucost.OnDemand)
		if !ok {
			continue
		}
		k := region{strings.ToLower(o.Provider), o.Region}
		if b := best[k]; b == nil || cheaper(*p, *b) < 0 {
			best[k] = p
		}
	}
	if len(best) == 0 {
		return Price{}, false
	}
	prices := make([]Price, 0, len(best))
	for _, p := range best {
		prices = append(prices, *p)
	}
	slices.SortFunc(prices, func(a, b Price) int {
		return cmp.Or(cheaper(a, b), cmp.Compare(a.Offer.Provider, b.Offer.Provider))
	})
	return prices[(len(prices)-1)/2], true
}

// Fits returns, cheapest first, the rows of Cheapest(q) whose GPU has at least memGB GB of
// memory and an on-demand price: the first is the cheapest catalog GPU that holds memGB (the
// profiler asks for its observed VRAM peak × 1.2). Memory is in GB as datasheets state it.
func (c *Catalog) Fits(memGB float64, q Query) ([]Row, error) {
	rows, err := c.Cheapest(q)
	if err != nil {
		return nil, err
	}
	var out []Row
	for _, r := range rows {
		if r.OnDemand != nil && r.MemoryGB >= memGB {
			out = append(out, r)
		}
	}
	slices.SortStableFunc(out, func(a, b Row) int { return comparePrice(a.OnDemand, b.OnDemand) })
	return out, nil
}
