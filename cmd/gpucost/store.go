package main

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/jackc/pgx/v5/pgconn"
)

// storeDB is the store --db names, under the name the commands use: the whole gpucost.Store,
// a SQLite file or a PostgreSQL database, which commands never tell apart.
type storeDB = gpucost.Store

// settingStore is the store's settings, under the name the commands use.
type settingStore = gpucost.SettingStore

// openStore opens the store db names: a postgres:// or postgresql:// URL opens the PostgreSQL
// store; a file path, or a file: or sqlite:// URL, the SQLite store. It is the one place that
// knows the kinds of store; it returns the SQLite file's path without its scheme, or the URL.
func openStore(ctx context.Context, db string) (gpucost.Store, string, error) {
	if isPostgresURL(db) {
		s, err := postgres.Open(ctx, db)
		if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
			return nil, db, gpucost.Errorf(gpucost.EUnavailable, "%w; check that PostgreSQL runs there and the --db URL's host, port, user, password and database", err)
		}
		if err != nil {
			return nil, db, err
		}
		return s, db, nil
	}
	path := storeFile(db)
	if scheme, _, ok := strings.Cut(path, "://"); ok {
		return nil, db, gpucost.Errorf(gpucost.EInvalid, "--db %s: %s stores are not supported; use a SQLite file path or a postgres:// URL", db, scheme)
	}
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, path, err
	}
	return s, path, nil
}

// isPostgresURL reports whether --db names a PostgreSQL database rather than a SQLite file.
func isPostgresURL(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// storeFile returns the file a --db value names, without a sqlite: or file: prefix.
func storeFile(db string) string {
	for _, prefix := range []string{"sqlite://", "sqlite:", "file://", "file:"} {
		if p, ok := strings.CutPrefix(db, prefix); ok {
			return p
		}
	}
	return db
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// noStoreYet reports whether --db names a SQLite file that does not exist yet: a command that
// only reads has nothing to show then, and must not create the file.
func (e *env) noStoreYet() bool {
	fl := storeFile(e.dbPath)
	return !strings.Contains(fl, "://") && !fileExists(fl)
}

// openDB opens the store named by --db (see openStore).
func (e *env) openDB(ctx context.Context) (storeDB, error) {
	db, path, err := openStore(ctx, e.dbPath)
	if err != nil {
		return nil, err
	}
	e.dbPath = path
	return db, nil
}

// withStore opens the store --db names, calls fn with it and closes it.
func (e *env) withStore(ctx context.Context, fn func(db storeDB) error) error {
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(db)
}

// fromStore is withStore for a function that returns a value: open, call, close.
func fromStore[T any](ctx context.Context, e *env, fn func(db storeDB) (T, error)) (T, error) {
	var v T
	err := e.withStore(ctx, func(db storeDB) error {
		var err error
		v, err = fn(db)
		return err
	})
	return v, err
}

// printStored checks --output, opens the store, and prints what list makes of it.
func (e *env) printStored(ctx context.Context, list func(db storeDB) (result, error)) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	r, err := fromStore(ctx, e, list)
	if err != nil {
		return err
	}
	return e.print(r)
}

// rollupWriter returns a writer that rolls samples up into db.
func (e *env) rollupWriter(ctx context.Context, db storeDB) (*telemetry.Writer, error) {
	idle, err := query.IdleBelow(ctx, db)
	if err != nil {
		return nil, err
	}
	return &telemetry.Writer{Store: db, IdleBelow: idle, Now: e.now}, nil
}
