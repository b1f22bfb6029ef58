package catalog

import (
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// UserProvider is the provider of the prices a user sets for a GPU model
// (gpucost import telemetry --price). Such a price is kept in the store as an offer of this
// provider, so that every report loads it with the catalog (Load), but it is no offer anyone
// can rent: the catalog keeps it apart from the offers it compares, and PricePerGPUHour takes
// it before any provider's price.
const UserProvider = "user"

// userRegion and userInstance fill the offer's place in the store: one offer per model.
const (
	userRegion   = "all-regions"
	userInstance = "price-per-gpu-hour"
)

// UserPrice returns the offer that records a user's on-demand price of one GPU-hour of model,
// set at asOf by what source names (such as "gpucost import telemetry --price").
func UserPrice(model string, perGPUHour gpucost.Money, asOf time.Time, source string) gpucost.Offer {
	return gpucost.Offer{Provider: UserProvider, Region: userRegion, InstanceType: userInstance + ":" + userModel(model),
		GPUModel: userModel(model), GPUCount: 1, OnDemand: perGPUHour, HasOnDemand: true, Source: source, AsOf: asOf}
}

// userModel is the name a user price is kept under: the canonical model where the catalog knows
// it (so "NVIDIA L4" and "L4" share one price), else the name as the driver reports it (a vGPU
// profile keeps its own name: its price is not its physical GPU's).
func userModel(model string) string {
	model = strings.TrimSpace(model)
	if _, ok := ParseVGPU(model); ok {
		return model
	}
	if canon, ok := Normalize(model); ok {
		return canon
	}
	return model
}

// isUserPrice reports whether an offer is a user's price rather than an offer.
func isUserPrice(o gpucost.Offer) bool { return strings.EqualFold(o.Provider, UserProvider) }

// UserPrices returns the prices users set, by model name.
func (c *Catalog) UserPrices() []gpucost.Offer {
	out := slices.Clone(c.user)
	slices.SortFunc(out, func(a, b gpucost.Offer) int { return strings.Compare(a.GPUModel, b.GPUModel) })
	return out
}

// userPrice returns the price a user set for model, if any.
func (c *Catalog) userPrice(model string) (gpucost.Offer, bool) {
	name := userModel(model)
	for _, o := range c.user {
		if o.GPUModel == name {
			return o, true
		}
	}
	return gpucost.Offer{}, false
}

// splitUserPrices moves the user prices out of c.offers into c.user, the later replacing the
// earlier of a model.
func (c *Catalog) splitUserPrices() {
	offers := c.offers[:0:0]
	for _, o := range c.offers {
		if !isUserPrice(o) {
			offers = append(offers, o)
			continue
		}
		c.user = slices.DeleteFunc(c.user, func(u gpucost.Offer) bool { return u.GPUModel == o.GPUModel })
		c.user = append(c.user, o)
		c.imported-- // a price, not an offer
	}
	c.offers = offers
}
