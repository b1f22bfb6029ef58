// Package postgres stores gpucost's series, rollups, offers, bill lines and inventory in a
// PostgreSQL database (pgx v5, a connection pool), so that several server replicas share one
// store. It keeps the semantics of the SQLite store (package sqlite) exactly: rollups are merged
// with the stored ones on write by gpucost.MergeRollups, a bill file is imported whole or not at all
// and is found again by its checksum, and offers and inventory entries replace those with the
// same key. The shared store test suite (internal/storetest) runs against both.
//
// The schema is versioned: migrations/NNNN_name.sql files are applied in order, once each, in
// one transaction that first takes an advisory lock, so that replicas starting at once migrate
// the database once between them; schema_migrations records the versions applied.
//
// Rows are plain rows, one per series, rollup, offer, import, bill line and inventory entry,
// with primary keys that serve the scans in order: not the SQLite store's packed columnar blobs,
// whose codec is unexported in package sqlite (sharing it would mean moving it out of sqlite).
// Plain rows keep the data readable and queryable in SQL by the people who run the database. A
// bill line's row is narrow: its own numbers and the number of its context (strings, billing
// period, maps), which cost_line_contexts keeps once per import, and the view cost_lines_full
// joins the two (migrations/0030_narrow_cost_lines.sql, docs/architecture.md "Storing bill
// lines"). Bulk writes use COPY: rollups through pgx's CopyFrom, bill lines and contexts in
// binary COPY format encoded here (pgx's generic encoding was most of the client's time), on a
// goroutine of their own while the next batch is encoded.
//
// The pool's size and timeouts come from the URL (pool_max_conns=N and the other pgxpool
// parameters). A scan holds one connection until it returns.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net/url"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key that serialises migrations: "gpucost" in ASCII.
const migrationLock = 0x677075636f7374

// DB is an open gpucost database on a PostgreSQL server.
type DB struct {
	name string // the URL without its password, for messages
	pool *pgxpool.Pool
}

// Open connects to the database at url (postgres://user:password@host:port/database?...) and
// applies any migrations it lacks.
func Open(ctx context.Context, url string) (*DB, error) {
	name := redact(url)
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "open database %s: %w", name, err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", name, err)
	}
	db := &DB{name: name, pool: pool}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	if err := db.backfillIdentity(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// redact returns u with any password replaced, for messages and logs.
func redact(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		if err != nil {
			return "(unparseable URL)"
		}
		return u
	}
	return p.Redacted()
}

// Close closes the connections.
func (db *DB) Close() error {
	db.pool.Close()
	return nil
}

// Pool returns the connection pool, for tests and adapters in this package's family.
func (db *DB) Pool() *pgxpool.Pool { return db.pool }

// String returns the database's URL without its password.
func (db *DB) String() string { return db.name }

var _ gpucost.Store = (*DB)(nil)

// Name returns the database's URL without its password, for messages.
func (db *DB) Name() string { return db.name }

// File returns "": the database lives on its server, not in a file of this machine.
func (db *DB) File() string { return "" }

// migrate applies the missing migrations in one transaction under the advisory lock.
func (db *DB) migrate(ctx context.Context) error { return db.migrateTo(ctx, math.MaxInt) }

// migrateTo applies the missing migrations up to version last (tests make a store of an older
// schema with it).
func (db *DB) migrateTo(ctx context.Context, last int) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate %s: %w", db.name, err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLock)); err != nil {
		return fmt.Errorf("migrate %s: take the migration lock: %w", db.name, err)
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("migrate %s: %w", db.name, err)
	}
	known, err := storeutil.LastMigration(names)
	if err != nil {
		return err
	}
	var newer int
	var newerName string
	switch err := tx.QueryRow(ctx, `SELECT version, name FROM schema_migrations WHERE version > $1 ORDER BY version DESC LIMIT 1`, known).Scan(&newer, &newerName); {
	case err == nil:
		return storeutil.NewerSchema(db.name, newer, newerName, known)
	case !errors.Is(err, pgx.ErrNoRows):
		return fmt.Errorf("migrate %s: %w", db.name, err)
	}
	for _, name := range names {
		base := filepath.Base(name)
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: name must start with a number", base)
		}
		if version > last {
			break
		}
		if err := apply(ctx, tx, version, name); err != nil {
			return fmt.Errorf("migrate %s to version %d (%s): %w", db.name, version, base, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate %s: commit: %w", db.name, err)
	}
	return nil
}

// apply runs one migration unless it is recorded as applied.
func apply(ctx context.Context, tx pgx.Tx, version int, name string) error {
	var n int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM schema_migrations WHERE version = $1`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, string(body)); err != nil {
		return err
	}
	if fill := migrationFills[version]; fill != nil {
		if err := fill(ctx, tx); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `INSERT INTO schema_migrations(version, name) VALUES ($1, $2)`, version, filepath.Base(name))
	return err
}

// Setting returns the stored value of a setting, or def if it is not set.
func (db *DB) Setting(ctx context.Context, key, def string) (string, error) {
	var v string
	err := db.pool.QueryRow(ctx, `SELECT value FROM settings WHERE key = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return def, nil
	}
	if err != nil {
		return "", fmt.Errorf("read setting %s from %s: %w", key, db.name, err)
	}
	return v, nil
}

// SetSetting stores the value of a setting.
func (db *DB) SetSetting(ctx context.Context, key, value string) error {
	_, err := db.pool.Exec(ctx, `INSERT INTO settings(key, value) VALUES ($1, $2)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`, key, value)
	if err != nil {
		return fmt.Errorf("store setting %s in %s: %w", key, db.name, err)
	}
	return nil
}
