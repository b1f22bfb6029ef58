package billimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"reflect"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

// storeState is what a store holds of bills, to compare before and after a refused import:
// every import as listed, the count and per-currency totals of the stored lines, and the
// SHA-256 of each kept source.
type storeState struct {
	Imports []gpucost.CostImport
	Lines   int
	Totals  []gpucost.CostTotal
	Sources map[string]string // an import's or part's checksum: the SHA-256 of its kept bytes
}

// stateOf reads db's storeState.
func stateOf(t *testing.T, db *sqlite.DB) storeState {
	t.Helper()
	ctx := context.Background()
	imps, err := db.CostImports(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st := storeState{Imports: imps, Sources: map[string]string{}}
	var sums gpucost.CostTotals
	err = db.ScanCosts(ctx, gpucost.CostFilter{}, func(l *gpucost.CostLine) error {
		st.Lines++
		sums.Add(l.BilledCost, l.EffectiveCost)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	st.Totals = sums.Sorted()
	for _, imp := range imps {
		for _, part := range parts(imp) {
			st.Sources[part.Checksum] = sourceSum(t, db, part.Checksum)
		}
	}
	return st
}

// sourceSum is the SHA-256 of the source kept under checksum, or "none".
func sourceSum(t *testing.T, db *sqlite.DB, checksum string) string {
	t.Helper()
	rc, err := db.BillSource(context.Background(), checksum)
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		return "none"
	}
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	h := sha256.New()
	if _, err := io.Copy(h, rc); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sameState fails the test if db no longer holds want: what a refused import must leave.
func sameState(t *testing.T, db *sqlite.DB, want storeState, after string) {
	t.Helper()
	got := stateOf(t, db)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("after %s the store changed:\n got %d imports, %d lines, totals %v, sources %v\nwant %d imports, %d lines, totals %v, sources %v",
			after, len(got.Imports), got.Lines, got.Totals, got.Sources, len(want.Imports), want.Lines, want.Totals, want.Sources)
	}
}
