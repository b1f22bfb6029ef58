package sqlite

import (
	"context"
	"path/filepath"
	"testing"
)

func TestOpenMigratesOnceAndKeepsSettings(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "sub", "gpucost.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetSetting(ctx, "idle_below", "5"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	db, err = Open(ctx, path) // a second open applies nothing again
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Setting(ctx, "idle_below", "x")
	if err != nil || got != "5" {
		t.Errorf("Setting(idle_below) = %q, %v; want 5", got, err)
	}
	var mode string
	db.SQL().QueryRow(`PRAGMA journal_mode`).Scan(&mode)
	if mode != "wal" {
		t.Errorf("journal_mode = %q, want wal", mode)
	}
}

// openTestDB opens a new store in a temporary directory, closed when the test ends.
func openTestDB(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
