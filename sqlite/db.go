// Package sqlite stores gpucost's series, rollups and offers in one SQLite file (modernc.org/sqlite,
// pure Go, WAL mode). The schema is versioned: migrations/NNNN_name.sql files are applied in
// order, once each, and the applied versions are recorded in the schema_migrations table.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

//go:embed migrations/*.sql
var migrations embed.FS

// DB is an open gpucost database file.
type DB struct {
	Path string
	sql  *sql.DB
}

// Open opens the database file at path, creating it and its folder if needed, and applies any
// migrations it lacks.
func Open(ctx context.Context, path string) (*DB, error) {
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "create the folder for database %s: %w", path, err)
		}
	}
	dsn := "file:" + path + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate"
	sdb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db := &DB{Path: path, sql: sdb}
	if err := db.migrate(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	if err := db.backfillIdentity(ctx); err != nil {
		sdb.Close()
		return nil, err
	}
	return db, nil
}

var _ gpucost.Store = (*DB)(nil)

// Close closes the database.
func (db *DB) Close() error { return db.sql.Close() }

// Remove deletes the database file at path with its write-ahead log and shared-memory index
// (path-wal, path-shm), so the next Open starts empty. Files that are not there are no error;
// the database must not be open.
func Remove(path string) error {
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := os.Remove(path + suffix); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// Name returns the database file's path, for messages.
func (db *DB) Name() string { return db.Path }

// File returns the database file's path: what belongs beside the store goes beside it.
func (db *DB) File() string { return db.Path }

// SQL returns the underlying handle, for tests and adapters in this package's family.
func (db *DB) SQL() *sql.DB { return db.sql }

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.sql.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL DEFAULT (datetime('now')))`); err != nil {
		return fmt.Errorf("migrate %s: %w", db.Path, err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	known, err := storeutil.LastMigration(names)
	if err != nil {
		return err
	}
	var newer int
	var newerName string
	switch err := db.sql.QueryRowContext(ctx, `SELECT version, name FROM schema_migrations WHERE version > ? ORDER BY version DESC LIMIT 1`, known).Scan(&newer, &newerName); {
	case err == nil:
		return storeutil.NewerSchema(db.Path, newer, newerName, known)
	case !errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("migrate %s: %w", db.Path, err)
	}
	for _, name := range names {
		base := filepath.Base(name)
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", base)
		}
		if err := db.apply(ctx, version, name); err != nil {
			return fmt.Errorf("migrate %s to version %d (%s): %w", db.Path, version, base, err)
		}
	}
	return nil
}

// apply runs one migration in a transaction unless it is recorded as applied.
func (db *DB) apply(ctx context.Context, version int, name string) error {
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, string(body)); err != nil {
		return err
	}
	if fill := migrationFills[version]; fill != nil {
		if err := fill(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name) VALUES (?, ?)`, version, filepath.Base(name)); err != nil {
		return err
	}
	return tx.Commit()
}

// Setting returns the stored value of a setting, or def if it is not set.
func (db *DB) Setting(ctx context.Context, key, def string) (string, error) {
	var v string
	err := db.sql.QueryRowContext(ctx, `SELECT value FROM settings WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return def, nil
	}
	if err != nil {
		return "", fmt.Errorf("read setting %s: %w", key, err)
	}
	return v, nil
}

// SetSetting stores the value of a setting.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	_, err := db.sql.ExecContext(ctx, `INSERT INTO settings(key, value) VALUES (?, ?)
		ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("store setting %s: %w", key, err)
	}
	return nil
}
