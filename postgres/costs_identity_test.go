package postgres_test

import (
	"context"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/postgres/pgtest"
)

// TestIdentityBackfill opens a database whose imports have no identity, as migration 0007
// leaves those stored before it, and checks that Open computes them.
func TestIdentityBackfill(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t)
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	forget := func() {
		if _, err := db.Pool().Exec(ctx, `UPDATE cost_imports SET identity = NULL, providers = NULL, charge_from = '', charge_to = ''`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Pool().Exec(ctx, `DELETE FROM cost_import_coverage`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	reopen := func() gpucost.CostStore {
		if db, err = postgres.Open(ctx, url); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return db
	}
	storetest.IdentityBackfill(t, db, forget, reopen)
}
