package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// TestIdentityBackfill opens a file whose imports have no identity, as migration 0010 leaves
// those stored before it, and checks that Open computes them.
func TestIdentityBackfill(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	forget := func() {
		if _, err := db.SQL().Exec(`UPDATE cost_imports SET identity = NULL, providers = NULL, charge_from = '', charge_to = ''`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().Exec(`DELETE FROM cost_import_coverage`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	reopen := func() gpucost.CostStore {
		if db, err = Open(ctx, path); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	storetest.IdentityBackfill(t, db, forget, reopen)
}
