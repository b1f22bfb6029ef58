package catalog

import (
	"strings"

	"github.com/gpucost/gpucost"
)

// ImportedOffers returns the offers of every import, in order: what catalog import stores. It
// returns an EInvalid error naming paths, the files read, when none holds an NVIDIA GPU offer.
func ImportedOffers(imports []*Import, paths []string) ([]gpucost.Offer, error) {
	var offers []gpucost.Offer
	for _, im := range imports {
		offers = append(offers, im.Offers...)
	}
	if len(offers) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "no NVIDIA GPU offers in %s: nothing imported", strings.Join(paths, ", "))
	}
	return offers, nil
}
