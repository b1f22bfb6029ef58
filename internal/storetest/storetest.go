// Package storetest is the test suite every gpucost store passes: the SQLite store and the
// PostgreSQL store run the same cases through the root package's interfaces, so that both keep
// the same semantics (merge-on-write of rollups, whole-or-nothing bill imports, replacement of
// offers and inventory entries, constant-time lookup and first-wins revocation of API tokens,
// an alert delivery log that sends each alert once, and an audit trail read newest first).
//
// A store's tests call Run with a function that opens a new, empty store:
//
//	func TestStoreSuite(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Stores { db := open(t); return storetest.All(db) })
//	}
package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/notify"
)

// Store is what a gpucost store implements.
type Store interface {
	gpucost.RollupStore
	gpucost.OfferStore
	gpucost.CostStore
	gpucost.InventoryStore
	gpucost.TokenStore
	gpucost.AuditLog
	SessionStore
}

// Pruner is a store that deletes old minute rollups (both stores do; it is not part of
// gpucost.RollupStore).
type Pruner interface {
	PruneMinutes(ctx context.Context, before time.Time) (int, error)
}

// Stores are the parts of one new, empty store under test.
type Stores struct {
	Rollups   gpucost.RollupStore
	Offers    gpucost.OfferStore
	Costs     gpucost.CostStore
	Inventory gpucost.InventoryStore
	Tokens    gpucost.TokenStore
	Audit     gpucost.AuditLog
	Sessions  SessionStore
	// Deliveries is the store's alert delivery log; All leaves it to the caller, since each
	// store returns its own type.
	Deliveries notify.StoredLog
}

// All returns s as each of its parts.
func All(s Store) Stores {
	return Stores{Rollups: s, Offers: s, Costs: s, Inventory: s, Tokens: s, Audit: s, Sessions: s}
}

// Open opens a new, empty store for one test, closing it when the test ends.
type Open func(tb testing.TB) Stores

// Run runs every case of the suite, each as a subtest on a store of its own.
func Run(t *testing.T, open Open) {
	t.Run("Rollups", func(t *testing.T) { RunRollups(t, open) })
	t.Run("Offers", func(t *testing.T) { RunOffers(t, open) })
	t.Run("Costs", func(t *testing.T) { RunCosts(t, open) })
	t.Run("Inventory", func(t *testing.T) { RunInventory(t, open) })
	t.Run("Tokens", func(t *testing.T) { RunTokens(t, open) })
	t.Run("Deliveries", func(t *testing.T) { RunDeliveries(t, open) })
	t.Run("Audit", func(t *testing.T) { RunAudit(t, open) })
	t.Run("Sessions", func(t *testing.T) { RunSessions(t, open) })
}

// RunRollups runs the cases of gpucost.RollupStore.
func RunRollups(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"WriteScanRoundTrip", testWriteScanRoundTrip},
		{"RewriteIsUnchanged", testRewriteIsUnchanged},
		{"SplitWritesMerge", testSplitWritesMerge},
		{"MergeOutcomesCounted", testMergeOutcomesCounted},
		{"ScanFilters", testScanFilters},
		{"ScanStopsAtCallbackError", testScanStopsAtCallbackError},
		{"WriteRejectsBadRollups", testWriteRejectsBadRollups},
		{"PruneMinutes", testPruneMinutes},
		{"WriterToStore", testWriterToStore},
		{"SeriesRecorded", testSeriesRecorded},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// RunOffers runs the cases of gpucost.OfferStore.
func RunOffers(t *testing.T, open Open) {
	t.Run("RoundTripAndReplace", func(t *testing.T) { testOffersRoundTripAndReplace(t, open) })
	t.Run("AllOrNothing", func(t *testing.T) { testPutOffersIsAllOrNothing(t, open) })
	t.Run("FilterByModel", func(t *testing.T) { testOffersFilterByModel(t, open) })
}

// RunCosts runs the cases of gpucost.CostStore.
func RunCosts(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"RoundTrip", testPutCostsRoundTrip},
		{"ScanFilters", testScanCostsFilters},
		{"NothingStoredOnFailure", testPutCostsNothingStoredOnFailure},
		{"PanickingReaderStoresNothing", testPutCostsPanickingReaderStoresNothing},
		{"ConflictAndReplace", testPutCostsConflictAndReplace},
		{"ScanStops", testScanCostsStops},
		{"Identity", testPutCostsIdentity},
		{"Remove", testRemoveCosts},
		{"Race", testPutCostsRace},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// RunInventory runs the cases of gpucost.InventoryStore.
func RunInventory(t *testing.T, open Open) {
	t.Run("Put", func(t *testing.T) { testPutInventory(t, open) })
	t.Run("RejectsBadEntries", func(t *testing.T) { testPutInventoryRejectsBadEntries(t, open) })
}
