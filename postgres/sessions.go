package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// maxSessionNonce bounds the nonce a revocation keeps: web/session.go's are 16 bytes.
const maxSessionNonce = 64

// RevokeSession records that the dashboard session with nonce was ended at at, until expires,
// when its cookie stops being accepted anyway; revoking it again is a no-op. It also forgets
// the revocations whose sessions expired before at (migration 0006_sessions.sql), so every
// replica sharing the database refuses the session.
func (db *DB) RevokeSession(ctx context.Context, nonce []byte, at, expires time.Time) error {
	if len(nonce) == 0 || len(nonce) > maxSessionNonce {
		return gpucost.Errorf(gpucost.EInvalid, "revoke session: a nonce of %d bytes; want 1 to %d", len(nonce), maxSessionNonce)
	}
	tx, err := db.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("revoke session in %s: %w", db.name, err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `DELETE FROM revoked_sessions WHERE expires < $1`, at); err != nil {
		return fmt.Errorf("forget expired sessions in %s: %w", db.name, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO revoked_sessions(nonce, revoked, expires) VALUES ($1, $2, $3)
		ON CONFLICT (nonce) DO NOTHING`, nonce, at, expires); err != nil {
		return fmt.Errorf("revoke session in %s: %w", db.name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("revoke session in %s: %w", db.name, err)
	}
	return nil
}

// SessionRevoked reports whether the session with nonce was revoked.
func (db *DB) SessionRevoked(ctx context.Context, nonce []byte) (bool, error) {
	var revoked bool
	if err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM revoked_sessions WHERE nonce = $1)`, nonce).Scan(&revoked); err != nil {
		return false, fmt.Errorf("look up session in %s: %w", db.name, err)
	}
	return revoked, nil
}
