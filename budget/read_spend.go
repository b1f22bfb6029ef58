package budget

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// SpendStore is what ReadSpend reads: the offers that price and recognise GPU lines, and the
// cost lines.
type SpendStore interface {
	gpucost.OfferStore
	gpucost.CostStore
}

// ReadSpend sums the cost lines store holds from HistoryStart(budgets, now) to now per budget
// and day. It returns the catalog (the store's offers over the bundled ones) that recognised the
// lines' GPUs, which also prices the jobs checked against the spend.
func ReadSpend(ctx context.Context, store SpendStore, budgets []Budget, now time.Time) (*Spend, *catalog.Catalog, error) {
	cat, err := catalog.Load(ctx, store)
	if err != nil {
		return nil, nil, err
	}
	tally := NewTally(budgets, CatalogMatcher(cat))
	f := gpucost.CostFilter{From: HistoryStart(budgets, now), To: now.Add(time.Nanosecond)}
	if err := store.ScanCosts(ctx, f, func(l *gpucost.CostLine) error { tally.Add(l); return nil }); err != nil {
		return nil, nil, fmt.Errorf("read the bills for budgets: %w", err)
	}
	return tally.Spend(), cat, nil
}
