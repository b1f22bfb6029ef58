package sqlite

// The cases every cost store passes (round trips, filters, whole-or-nothing imports, conflicts,
// stopping a scan) are in internal/storetest and run against SQLite by TestStoreSuite; these are
// SQLite's own: how lines are cut into chunks, and a corrupt chunk.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

func countRows(t *testing.T, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow(`SELECT count(*) FROM ` + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPutCostsChunks checks that an import of one chunk and a bit is stored as two chunks, and
// that a failed replacement leaves only the old import's chunk.
func TestPutCostsChunks(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	lines := storetest.BillLines(400, 30)
	old, err := db.PutCosts(ctx, gpucost.CostImport{Name: "old", Checksum: "c0"}, storetest.SeqOf(lines[:100]), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, db, "cost_chunks"); got != 1 {
		t.Errorf("%d chunks stored for 100 lines, want 1", got)
	}
	// Each way an import fails (the suite's NothingStoredOnFailure) leaves no chunk behind.
	stop := errors.New("the reader failed")
	for name, put := range map[string]func() error{
		"totals differ": func() error {
			bad := gpucost.CostImport{Name: "new", Checksum: "c1", Totals: []gpucost.CostTotal{{Currency: "USD", BilledCost: gpucost.USD(1)}}}
			_, err := db.PutCosts(ctx, bad, storetest.SeqOf(lines), []int64{old.ID})
			return err
		},
		"cancelled": func() error {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			seq := func(yield func(*gpucost.CostLine) bool) {
				for l := range storetest.SeqOf(lines[:10_000]) {
					if !yield(l) {
						return
					}
				}
				cancel(stop)
			}
			_, err := db.PutCosts(ctx, gpucost.CostImport{Name: "new", Checksum: "c1"}, seq, []int64{old.ID})
			return err
		},
	} {
		if err := put(); err == nil {
			t.Fatalf("%s: PutCosts succeeded", name)
		}
		if got := countRows(t, db, "cost_chunks"); got != 1 {
			t.Errorf("%s: %d chunks stored after a failed import, want the old import's 1", name, got)
		}
	}
	imp, err := db.PutCosts(ctx, gpucost.CostImport{Name: "new", Checksum: "c1"}, storetest.SeqOf(lines[:costChunkLines+1234]), []int64{old.ID})
	if err != nil {
		t.Fatal(err)
	}
	if got := countRows(t, db, "cost_chunks"); got != 2 || imp.Lines != costChunkLines+1234 {
		t.Errorf("%d chunks stored for %d lines, want 2", got, imp.Lines)
	}
}

func TestScanCostsReportsCorruptChunk(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	imp, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a", Checksum: "a"}, storetest.SeqOf(storetest.BillLines(2, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`UPDATE cost_chunks SET data = x'0102' WHERE import_id = ?`, imp.ID); err != nil {
		t.Fatal(err)
	}
	err = db.ScanCosts(ctx, gpucost.CostFilter{}, func(*gpucost.CostLine) error { return nil })
	if !errors.Is(err, errCorruptChunk) || !strings.Contains(err.Error(), fmt.Sprintf("chunk 0 of import %d", imp.ID)) {
		t.Errorf("ScanCosts over a corrupt chunk = %v", err)
	}
}
