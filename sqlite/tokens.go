package sqlite

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
)

// DB keeps API tokens by the hash of their secret (migration 0005_tokens.sql).
var _ gpucost.TokenStore = (*DB)(nil)

// tokenLookup is the indexed prefix of a hash that a token is found by.
func tokenLookup(hash []byte) string { return hex.EncodeToString(hash[:8]) }

// CreateToken stores t with the hash of its secret and returns it with ID and Created set; a
// zero t.Created means now.
func (db *DB) CreateToken(ctx context.Context, t gpucost.Token, hash []byte) (gpucost.Token, error) {
	t, err := storeutil.PrepareToken(t, hash, time.Now())
	if err != nil {
		return gpucost.Token{}, err
	}
	res, err := db.sql.ExecContext(ctx, `INSERT INTO tokens(name, role, hash, lookup, created_at) VALUES (?, ?, ?, ?, ?)`,
		t.Name, string(t.Role), hash, tokenLookup(hash), t.Created.Format(time.RFC3339))
	if err != nil {
		return gpucost.Token{}, fmt.Errorf("store token %q in %s: %w", t.Name, db.Path, err)
	}
	if t.ID, err = res.LastInsertId(); err != nil {
		return gpucost.Token{}, fmt.Errorf("store token %q in %s: %w", t.Name, db.Path, err)
	}
	return t, nil
}

// TokenByHash returns the unrevoked token whose secret has the given hash.
func (db *DB) TokenByHash(ctx context.Context, hash []byte) (gpucost.Token, error) {
	if len(hash) != sha256.Size {
		return gpucost.Token{}, gpucost.Errorf(gpucost.ENotFound, "no such token")
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT id, name, role, hash, created_at, revoked_at FROM tokens
		WHERE lookup = ? AND revoked_at = ''`, tokenLookup(hash))
	if err != nil {
		return gpucost.Token{}, fmt.Errorf("look up token in %s: %w", db.Path, err)
	}
	defer rows.Close()
	var found gpucost.Token
	ok := false
	for rows.Next() {
		t, stored, err := scanToken(rows)
		if err != nil {
			return gpucost.Token{}, fmt.Errorf("look up token in %s: %w", db.Path, err)
		}
		if subtle.ConstantTimeCompare(stored, hash) == 1 {
			found, ok = t, true
		}
	}
	if err := rows.Err(); err != nil {
		return gpucost.Token{}, fmt.Errorf("look up token in %s: %w", db.Path, err)
	}
	if !ok {
		return gpucost.Token{}, gpucost.Errorf(gpucost.ENotFound, "no such token")
	}
	return found, nil
}

// Tokens lists every token, revoked ones too, by ID.
func (db *DB) Tokens(ctx context.Context) ([]gpucost.Token, error) {
	rows, err := db.sql.QueryContext(ctx, `SELECT id, name, role, hash, created_at, revoked_at FROM tokens ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list tokens in %s: %w", db.Path, err)
	}
	defer rows.Close()
	var out []gpucost.Token
	for rows.Next() {
		t, _, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens in %s: %w", db.Path, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens in %s: %w", db.Path, err)
	}
	return out, nil
}

// RevokeToken marks the token revoked at the given time, keeping an earlier revocation's time.
func (db *DB) RevokeToken(ctx context.Context, id int64, at time.Time) error {
	res, err := db.sql.ExecContext(ctx, `UPDATE tokens SET revoked_at = CASE WHEN revoked_at = '' THEN ? ELSE revoked_at END
		WHERE id = ?`, at.UTC().Truncate(time.Second).Format(time.RFC3339), id)
	if err != nil {
		return fmt.Errorf("revoke token %d in %s: %w", id, db.Path, err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("revoke token %d in %s: %w", id, db.Path, err)
	} else if n == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "revoke token %d: no such token; see gpucost token list", id)
	}
	return nil
}

// Ping checks that the database answers: the server's readiness check.
func (db *DB) Ping(ctx context.Context) error {
	var one int
	if err := db.sql.QueryRowContext(ctx, `SELECT 1`).Scan(&one); err != nil {
		return fmt.Errorf("ping %s: %w", db.Path, err)
	}
	return nil
}

func scanToken(rows *sql.Rows) (gpucost.Token, []byte, error) {
	var (
		t                gpucost.Token
		role             string
		hash             []byte
		created, revoked string
	)
	if err := rows.Scan(&t.ID, &t.Name, &role, &hash, &created, &revoked); err != nil {
		return t, nil, err
	}
	t.Role = gpucost.Role(role)
	var err error
	if t.Created, err = time.Parse(time.RFC3339, created); err != nil {
		return t, nil, fmt.Errorf("token %d: created_at %q: %w", t.ID, created, err)
	}
	if revoked != "" {
		if t.Revoked, err = time.Parse(time.RFC3339, revoked); err != nil {
			return t, nil, fmt.Errorf("token %d: revoked_at %q: %w", t.ID, revoked, err)
		}
	}
	return t, hash, nil
}
