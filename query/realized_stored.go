package query

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
)

// RealizedStore is what StoredRealized reads: the bill, the offers that price it and the
// steps recorded applied.
type RealizedStore interface {
	fleet.Store
	gpucost.OfferStore
	gpucost.AppliedStepStore
}

// StoredRealized measures every step st records applied on its bill up to end (Realized),
// with the catalog of st's offers: gpucost report savings --realized and the API's realized
// view both read it.
func StoredRealized(ctx context.Context, st RealizedStore, end time.Time, provider string) (fleet.RealizedReport, error) {
	steps, err := st.AppliedSteps(ctx)
	if err != nil {
		return fleet.RealizedReport{}, err
	}
	cat, err := catalog.Load(ctx, st)
	if err != nil {
		return fleet.RealizedReport{}, err
	}
	return Realized(ctx, st, cat, steps, end, provider)
}
