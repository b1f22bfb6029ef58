package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefusesNewerSchema checks that a store a newer gpucost migrated is refused, not
// written to without the newer tables, and that nothing of it changes.
func TestOpenRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "gpucost.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `INSERT INTO schema_migrations(version, name) VALUES (9999, '9999_future.sql')`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	if err == nil || !strings.Contains(err.Error(), "schema version 9999 (9999_future.sql), written by a newer gpucost") {
		t.Fatalf("Open of a newer store: %v; want the newer schema refused", err)
	}
}
