package postgres

import (
	"context"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/postgres/pgtest"
)

// TestOpenRefusesNewerSchema checks that a database a newer gpucost migrated is refused.
func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	url := pgtest.Start(t)
	db, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO schema_migrations(version, name) VALUES (9999, '9999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, url)
	if err == nil || !strings.Contains(err.Error(), "schema version 9999 (9999_future.sql), written by a newer gpucost") {
		t.Fatalf("Open of a newer database: %v; want the newer schema refused", err)
	}
}
