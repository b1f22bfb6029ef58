package refresh

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/pricing"
)

// Offers returns the offers of every result, in order: what catalog refresh stores, in one
// transaction.
func Offers(results []*pricing.Result) []gpucost.Offer {
	var offers []gpucost.Offer
	for _, res := range results {
		offers = append(offers, res.Offers...)
	}
	return offers
}
