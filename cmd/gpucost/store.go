package main

import (
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeopen"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/telemetry"
)

// storeDB is the store --db names, under the name the commands use: the whole gpucost.Store,
// a SQLite file or a PostgreSQL database, which commands never tell apart.
type storeDB = gpucost.Store

// settingStore is the store's settings, under the name the commands use.
type settingStore = gpucost.SettingStore

// noStoreYet reports whether --db names a SQLite file that does not exist yet: a command that
// only reads has nothing to show then, and must not create the file.
func (e *env) noStoreYet() bool { return storeopen.Missing(e.dbPath) }

// openDB opens the store named by --db (package storeopen knows the kinds), and keeps in
// e.dbPath where it lives: the SQLite file without its scheme, or the PostgreSQL URL.
func (e *env) openDB(ctx context.Context) (storeDB, error) {
	db, err := storeopen.Open(ctx, e.dbPath)
	if err != nil {
		return nil, err
	}
	e.dbPath = storeopen.Path(e.dbPath)
	if e.wrapStore != nil {
		return e.wrapStore(db), nil
	}
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

// openObjectStore opens the object store a --store or --results flag names, with the AWS
// settings of the command's environment (storeopen.Objects).
func openObjectStore(ctx context.Context, e *env, url string) (gpucost.ObjectStore, error) {
	return storeopen.Objects(ctx, url, e.getenv)
}
