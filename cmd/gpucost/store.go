package main

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/jackc/pgx/v5/pgconn"
)

// defaultIdleBelow is the utilisation under which a minute counts as idle: an idle GPU reports
// 0%, and a few percent covers monitoring and keep-alive kernels.
const defaultIdleBelow = 5.0

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

// openDB opens the store named by --db (see openStore), or returns the store the server shares
// with its views, which its users' Close leaves open.
func (e *env) openDB(ctx context.Context) (storeDB, error) {
	if e.store != nil {
		return sharedStore{e.store}, nil
	}
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

// sharedStore is a store opened once and shared: its users' Close leaves it open.
type sharedStore struct{ gpucost.Store }

func (sharedStore) Close() error { return nil }

// idleBelow returns the store's idle threshold, recording the default on first use: every
// rollup in one store is made with the same threshold.
func idleBelow(ctx context.Context, db storeDB) (float64, error) {
	v, err := db.Setting(ctx, "idle_below", "")
	if err != nil {
		return 0, err
	}
	if v == "" {
		v = strconv.FormatFloat(defaultIdleBelow, 'f', -1, 64)
		if err := db.SetSetting(ctx, "idle_below", v); err != nil {
			return 0, err
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, gpucost.Errorf(gpucost.EInvalid, "store %s: setting idle_below = %q is not a number", db.Name(), v)
	}
	return f, nil
}

// rollupWriter returns a writer that rolls samples up into db.
func (e *env) rollupWriter(ctx context.Context, db storeDB) (*telemetry.Writer, error) {
	idle, err := idleBelow(ctx, db)
	if err != nil {
		return nil, err
	}
	return &telemetry.Writer{Store: db, IdleBelow: idle, Now: e.now}, nil
}
