package sqlite

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
// the revocations whose sessions expired before at (migration 0009_sessions.sql).
func (db *DB) RevokeSession(ctx context.Context, nonce []byte, at, expires time.Time) error {
	if len(nonce) == 0 || len(nonce) > maxSessionNonce {
		return gpucost.Errorf(gpucost.EInvalid, "revoke session: a nonce of %d bytes; want 1 to %d", len(nonce), maxSessionNonce)
	}
	tx, err := db.sql.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("revoke session in %s: %w", db.Path, err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM revoked_sessions WHERE expires_ns < ?`, at.UnixNano()); err != nil {
		return fmt.Errorf("forget expired sessions in %s: %w", db.Path, err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO revoked_sessions(nonce, revoked_ns, expires_ns) VALUES (?, ?, ?)
		ON CONFLICT (nonce) DO NOTHING`, nonce, at.UnixNano(), expires.UnixNano()); err != nil {
		return fmt.Errorf("revoke session in %s: %w", db.Path, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("revoke session in %s: %w", db.Path, err)
	}
	return nil
}

// SessionRevoked reports whether the session with nonce was revoked.
func (db *DB) SessionRevoked(ctx context.Context, nonce []byte) (bool, error) {
	var n int
	if err := db.sql.QueryRowContext(ctx, `SELECT count(*) FROM revoked_sessions WHERE nonce = ?`, nonce).Scan(&n); err != nil {
		return false, fmt.Errorf("look up session in %s: %w", db.Path, err)
	}
	return n > 0, nil
}
