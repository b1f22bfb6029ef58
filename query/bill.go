package query

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/recommend"
)

// BillPeriod is [from, to) from the midnight (UTC) of from's day: bills are stored by day, so
// the reports over them start at a day's first line.
func BillPeriod(from, to time.Time) (fleet.Period, error) {
	return fleet.NewPeriod(from.Truncate(24*time.Hour), to)
}

// BillSnapshot builds the fleet snapshot of p's bill and telemetry, the GPU-hours no bill line
// covers priced at provider's on-demand prices, the owners named by tagKeys (nil:
// analyze.DefaultTagKeys). It returns an ENotFound error when the store holds no bill line in p
// (fleet.NoLines: it names the periods the store holds),
// and an EInternal one when the charges do not add up to the bill.
func BillSnapshot(ctx context.Context, st fleet.Store, cat *catalog.Catalog, p fleet.Period, provider string, tagKeys map[string][]string) (*fleet.Snapshot, error) {
	s, err := fleet.Build(ctx, st, cat, fleet.Options{Period: p, Provider: provider, TagKeys: tagKeys})
	if err != nil {
		return nil, err
	}
	if s.Stats.Lines == 0 {
		return nil, fleet.NoLines(ctx, st, p, s.Stats.Imports)
	}
	if charged, bill, ok := s.Reconcile(); !ok {
		return nil, gpucost.Errorf(gpucost.EInternal, "pricing GPU-hours: the charges sum to %v, the bill lines to %v", charged, bill)
	}
	return s, nil
}

// Bill is the split of one period's bill over a store (fleet.Split), with the catalog that
// recognised its GPU lines.
type Bill struct {
	*fleet.Split
	Catalog *catalog.Catalog
}

// OpenBill reads what splitting p's bill under o needs. It returns an EInvalid error for a bad
// policy or weight.
func OpenBill(ctx context.Context, st fleet.Store, cat *catalog.Catalog, o fleet.SplitOptions) (*Bill, error) {
	sp, err := fleet.NewSplit(ctx, st, cat, o)
	if err != nil {
		return nil, err
	}
	return &Bill{Split: sp, Catalog: cat}, nil
}

// Recommendable is the recommender's view of the bill's GPU machines and the catalog's prices.
// It returns an ENotFound error when the bill holds no GPU machine.
func (b *Bill) Recommendable(ctx context.Context) (recommend.FleetView, recommend.Prices, error) {
	v, err := b.FleetView(ctx)
	if err == nil && len(v.Resources) == 0 {
		err = b.NoGPUMachines(ctx)
	}
	if err != nil {
		return recommend.FleetView{}, nil, err
	}
	return v, recommend.FromCatalog(b.Catalog), nil
}
