package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/jackc/pgx/v5"
)

// TestDaysFilledByMigration opens a store as it was before migration 31, holding hours but no
// day rows, and checks that opening it again fills them.
func TestDaysFilledByMigration(t *testing.T) {
	db := reopenedAfter(t, `DROP TABLE day_rollups; DELETE FROM schema_migrations WHERE version = 31`)
	if n := storetest.CheckDays(t, db, gpucost.RollupFilter{}); n != 15 {
		t.Errorf("compared %d filled days, want 15 (5 GPUs × 3 days)", n)
	}
}

// TestDaysRewrittenByMigration32 opens a store whose day rows are in an older encoding (here
// bytes of no encoding at all), as before migration 32, and checks that opening it again makes
// every row again from the hours.
func TestDaysRewrittenByMigration32(t *testing.T) {
	db := reopenedAfter(t, `UPDATE day_rollups SET data = '\x0201'::bytea; DELETE FROM schema_migrations WHERE version = 32`)
	if n := storetest.CheckDays(t, db, gpucost.RollupFilter{}); n != 15 {
		t.Errorf("compared %d rewritten days, want 15 (5 GPUs × 3 days)", n)
	}
}

// reopenedAfter writes 50 hours of 5 GPUs to a new store, runs stmt on it (taking it back to
// before a migration), and returns it opened again, its migrations run.
func reopenedAfter(t *testing.T, stmt string) *postgres.DB {
	t.Helper()
	ctx := context.Background()
	url := pgtest.Start(t)
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.WriteRollups(ctx, storetest.RollupsOf(storetest.FleetSamples(5, 50*time.Hour, 30*time.Second))); err != nil {
		t.Fatal(err)
	}
	db.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	if db, err = postgres.Open(ctx, url); err != nil {
		t.Fatalf("Open after %q = %v", stmt, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
