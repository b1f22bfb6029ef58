package storeopen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

func TestNames(t *testing.T) {
	tests := []struct {
		name, in   string
		postgres   bool
		file, path string
	}{
		{"plain file", "/var/lib/gpucost.db", false, "/var/lib/gpucost.db", "/var/lib/gpucost.db"},
		{"relative file", "g.db", false, "g.db", "g.db"},
		{"sqlite URL", "sqlite:///tmp/g.db", false, "/tmp/g.db", "/tmp/g.db"},
		{"sqlite prefix", "sqlite:g.db", false, "g.db", "g.db"},
		{"file URL", "file:///tmp/g.db", false, "/tmp/g.db", "/tmp/g.db"},
		{"file prefix", "file:g.db", false, "g.db", "g.db"},
		{"postgres", "postgres://u@h/db", true, "postgres://u@h/db", "postgres://u@h/db"},
		{"postgresql", "postgresql://u@h/db", true, "postgresql://u@h/db", "postgresql://u@h/db"},
		{"other scheme", "mysql://h/db", false, "mysql://h/db", "mysql://h/db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsPostgres(tt.in); got != tt.postgres {
				t.Errorf("IsPostgres(%q) = %v, want %v", tt.in, got, tt.postgres)
			}
			if got := File(tt.in); got != tt.file {
				t.Errorf("File(%q) = %q, want %q", tt.in, got, tt.file)
			}
			if got := Path(tt.in); got != tt.path {
				t.Errorf("Path(%q) = %q, want %q", tt.in, got, tt.path)
			}
		})
	}
}

func TestOpenSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	name := "sqlite:" + path
	if !Missing(name) {
		t.Fatalf("Missing(%q) = false before the file exists", name)
	}
	db, err := Open(context.Background(), name)
	if err != nil {
		t.Fatalf("Open(%q): %v", name, err)
	}
	defer db.Close()
	if got := db.File(); got != path {
		t.Errorf("Open(%q).File() = %q, want %q", name, got, path)
	}
	if Missing(name) {
		t.Errorf("Missing(%q) = true after Open created it", name)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("Open(%q) made no file: %v", name, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name, db, code, text string
	}{
		{"other scheme", "mysql://h/db", gpucost.EInvalid, "--db mysql://h/db: mysql stores are not supported; use a SQLite file path or a postgres:// URL"},
		{"postgres away", "postgres://u:p@127.0.0.1:1/db?connect_timeout=2", gpucost.EUnavailable, "check that PostgreSQL runs there"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db, err := Open(context.Background(), tt.db)
			if err == nil {
				db.Close()
				t.Fatalf("Open(%q) = nil error, want %s", tt.db, tt.code)
			}
			if got := gpucost.ErrorCode(err); got != tt.code || !strings.Contains(err.Error(), tt.text) {
				t.Errorf("Open(%q) = %v (%s), want %s with %q", tt.db, err, got, tt.code, tt.text)
			}
		})
	}
	if Missing("postgres://u@h/db") {
		t.Errorf("Missing(postgres URL) = true; only a SQLite file can be missing")
	}
}

// TestRemove checks that Remove deletes the SQLite file a sqlite: name gives, so the next
// Open starts empty, and leaves a PostgreSQL URL alone.
func TestRemove(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "g.db")
	db, err := Open(ctx, "sqlite:"+path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if err := Remove("sqlite:" + path); err != nil {
		t.Fatalf("Remove(sqlite:%s) = %v", path, err)
	}
	if !Missing(path) {
		t.Errorf("after Remove(sqlite:%s) the file is still there", path)
	}
	if err := Remove("postgres://u@127.0.0.1:1/db"); err != nil {
		t.Errorf("Remove(postgres URL) = %v; want nothing done", err)
	}
}
