package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/telemetry"
)

// defaultIdleBelow is the utilisation under which a minute counts as idle: an idle GPU reports
// 0%, and a few percent covers monitoring and keep-alive kernels.
const defaultIdleBelow = 5.0

// storeDB is a whole gpucost store, as --db names it: the SQLite file (*sqlite.DB) or a
// PostgreSQL database (*postgres.DB) that several server replicas share. Every command reads
// and writes either through it.
type storeDB interface {
	gpucost.RollupStore
	gpucost.OfferStore
	gpucost.CostStore
	gpucost.InventoryStore
	gpucost.TokenStore
	gpucost.AuditLog
	settingStore
	minutePruner
	Ping(ctx context.Context) error
	Close() error
}

// sharedStore is a store opened once and shared: its users' Close leaves it open.
type sharedStore struct{ storeDB }

func (sharedStore) Close() error { return nil }

// unshared returns the store behind a sharedStore.
func unshared(db any) any {
	if s, ok := db.(sharedStore); ok {
		return s.storeDB
	}
	return db
}

// deliveryLog returns db's alert delivery log.
func deliveryLog(db storeDB) notify.StoredLog {
	switch db := unshared(db).(type) {
	case *sqlite.DB:
		return db.DeliveryLog()
	case *postgres.DB:
		return db.DeliveryLog()
	}
	panic(fmt.Sprintf("deliveryLog: %T is not a gpucost store", db))
}

// actionLog returns db's enforcement action log.
func actionLog(db storeDB) enforce.ActionLog {
	switch db := unshared(db).(type) {
	case *sqlite.DB:
		return db.ActionLog()
	case *postgres.DB:
		return db.ActionLog()
	}
	panic(fmt.Sprintf("actionLog: %T is not a gpucost store", db))
}

// settingStore keeps the store's own key/value settings: *sqlite.DB and *postgres.DB.
type settingStore interface {
	Setting(ctx context.Context, key, def string) (string, error)
	SetSetting(ctx context.Context, key, value string) error
}

// rollupSettingStore is a store that rollups are written to: *sqlite.DB and *postgres.DB.
type rollupSettingStore interface {
	gpucost.RollupStore
	settingStore
}

// storeName names a store in messages: a SQLite file's path, or a PostgreSQL URL without its
// password.
func storeName(db any) string {
	if s, ok := unshared(db).(*sqlite.DB); ok {
		return s.Path
	}
	return fmt.Sprint(db)
}

// idleBelow returns the store's idle threshold, recording the default on first use: every
// rollup in one store is made with the same threshold.
func idleBelow(ctx context.Context, db settingStore) (float64, error) {
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
		return 0, gpucost.Errorf(gpucost.EInvalid, "store %s: setting idle_below = %q is not a number", storeName(db), v)
	}
	return f, nil
}

// rollupWriter returns a writer that rolls samples up into db.
func (e *env) rollupWriter(ctx context.Context, db rollupSettingStore) (*telemetry.Writer, error) {
	idle, err := idleBelow(ctx, db)
	if err != nil {
		return nil, err
	}
	return &telemetry.Writer{Store: db, IdleBelow: idle, Now: e.now}, nil
}
