package gpucost

import (
	"context"
	"time"
)

// Store is a whole gpucost store, as --db names it: the SQLite file (package sqlite) or a
// PostgreSQL database that several server replicas share (package postgres). Commands and the
// server read and write through it and never ask which one they hold; both pass the one suite
// in internal/storetest. Its parts are the small interfaces below, which code that needs less
// takes instead.
type Store interface {
	RollupStore
	MinutePruner
	OfferStore
	CostStore
	BillSourceStore
	PeriodStore
	InventoryStore
	TokenStore
	SessionStore
	SettingStore
	AuditLog
	DeliveryLog
	ActionLog
	AppliedStepStore

	// Name names the store in messages and logs: a SQLite file's path, or a PostgreSQL URL
	// without its password.
	Name() string

	// File returns the path of the one file a store keeps everything in (SQLite), so that
	// what belongs beside it, such as the server's write-ahead log of pushed samples, can be;
	// "" for a store on a database server.
	File() string

	// Ping checks that the store answers, for health checks.
	Ping(ctx context.Context) error

	// Close releases the store; its methods fail afterwards.
	Close() error
}

// MinutePruner deletes minute rollups past their retention; hour rollups are kept.
type MinutePruner interface {
	// PruneMinutes deletes the minute rollups of the hours that end at or before before (a
	// minute rollup is kept with the rest of its hour) and returns how many it deleted.
	PruneMinutes(ctx context.Context, before time.Time) (int, error)
}

// SettingStore keeps the store's own key/value settings, such as the idle threshold every
// rollup in it was made with.
type SettingStore interface {
	// Setting returns the stored value of key, or def if it is not set.
	Setting(ctx context.Context, key, def string) (string, error)

	// SetSetting stores the value of key, replacing any.
	SetSetting(ctx context.Context, key, value string) error
}

// SessionStore keeps the dashboard sessions a logout ended until they expire, so that a copy
// of the cookie is refused after the logout by every replica sharing the store.
type SessionStore interface {
	// RevokeSession records that the session with nonce ended at at; its cookie expires at
	// expires. Revoking a revoked session is a no-op. A nonce of 0 or over 64 bytes is an
	// EInvalid.
	RevokeSession(ctx context.Context, nonce []byte, at, expires time.Time) error

	// SessionRevoked reports whether the session with nonce was revoked.
	SessionRevoked(ctx context.Context, nonce []byte) (bool, error)
}
