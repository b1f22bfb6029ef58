// Package storetest is the test suite every gpucost store passes: the SQLite store and the
// PostgreSQL store run the same cases through the root package's interfaces, so that both keep
// the same semantics (merge-on-write of rollups, whole-or-nothing bill imports, replacement of
// offers and inventory entries, constant-time lookup and first-wins revocation of API tokens,
// an alert delivery log that sends each alert once, an enforcement action log read oldest
// first, revoked dashboard sessions, and an audit trail read newest first): the whole of
// gpucost.Store.
//
// A store's tests call Run with a function that opens a new, empty store:
//
//	func TestStoreSuite(t *testing.T) {
//		storetest.Run(t, func(tb testing.TB) gpucost.Store { return open(tb) })
//	}
package storetest

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// Open opens a new, empty store for one test, closing it when the test ends.
type Open func(tb testing.TB) gpucost.Store

// Run runs every case of the suite, each as a subtest on a store of its own.
func Run(t *testing.T, open Open) {
	t.Run("Rollups", func(t *testing.T) { RunRollups(t, open) })
	t.Run("Days", func(t *testing.T) { RunDays(t, open) })
	t.Run("Offers", func(t *testing.T) { RunOffers(t, open) })
	t.Run("Costs", func(t *testing.T) { RunCosts(t, open) })
	t.Run("Periods", func(t *testing.T) { RunPeriods(t, open) })
	t.Run("Inventory", func(t *testing.T) { RunInventory(t, open) })
	t.Run("Tokens", func(t *testing.T) { RunTokens(t, open) })
	t.Run("Deliveries", func(t *testing.T) { RunDeliveries(t, open) })
	t.Run("Actions", func(t *testing.T) { RunActions(t, open) })
	t.Run("Audit", func(t *testing.T) { RunAudit(t, open) })
	t.Run("Sessions", func(t *testing.T) { RunSessions(t, open) })
	t.Run("Settings", func(t *testing.T) { RunSettings(t, open) })
	t.Run("AppliedSteps", func(t *testing.T) { RunAppliedSteps(t, open) })
	t.Run("Handle", func(t *testing.T) { testHandle(t, open) })
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
		{"Lenient", testPutCostsLenient},
		{"Coverage", func(t *testing.T, open Open) { RunCostBatches(t, open) }},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// RunInventory runs the cases of gpucost.InventoryStore.
func RunInventory(t *testing.T, open Open) {
	t.Run("Put", func(t *testing.T) { testPutInventory(t, open) })
	t.Run("RejectsBadEntries", func(t *testing.T) { testPutInventoryRejectsBadEntries(t, open) })
}
