package wal

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestPostgresDir: one folder per database, whatever the password and settings; another host
// or database gets another.
func TestPostgresDir(t *testing.T) {
	base := PostgresDir("postgres://gpucost:secret@db:5432/gpucost?sslmode=disable", "/data")
	if !strings.HasPrefix(base, filepath.Join("/data", "gpucost", "ingest-wal-")) || len(filepath.Base(base)) != len("ingest-wal-")+12 {
		t.Fatalf("PostgresDir(…) = %q, want /data/gpucost/ingest-wal-<12 hex digits>", base)
	}
	for _, c := range []struct {
		url  string
		same bool
	}{
		{"postgres://other:password@db:5432/gpucost", true},
		{"postgres://gpucost@db:5432/gpucost?sslmode=require&connect_timeout=5", true},
		{"postgres://gpucost:secret@db2:5432/gpucost", false},
		{"postgres://gpucost:secret@db:5432/staging", false},
	} {
		if got := PostgresDir(c.url, "/data"); (got == base) != c.same {
			t.Errorf("PostgresDir(%q) = %q beside %q: same folder %v, want %v", c.url, got, base, got == base, c.same)
		}
	}
}

func TestDir(t *testing.T) {
	pg := "postgres://gpucost@db:5432/gpucost"
	for _, c := range []struct {
		name, flag, file, postgres, want string
	}{
		{"beside the SQLite file", "", "/var/lib/g.db", "", "/var/lib/g.db.ingest-wal"},
		{"given for SQLite", "/wal", "/var/lib/g.db", "", "/wal"},
		{"off for SQLite", Off, "/var/lib/g.db", "", ""},
		{"PostgreSQL by default", "", "", pg, PostgresDir(pg, "/data")},
		{"given for PostgreSQL", "/wal", "", pg, "/wal"},
		{"off for PostgreSQL", Off, "", pg, ""},
		{"a store that is neither", "", "", "", ""},
	} {
		if got := Dir(c.flag, c.file, c.postgres, "/data"); got != c.want {
			t.Errorf("%s: Dir(%q, %q, %q, /data) = %q, want %q", c.name, c.flag, c.file, c.postgres, got, c.want)
		}
	}
}
