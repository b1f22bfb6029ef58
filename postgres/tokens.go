package postgres

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storeutil"
	"github.com/jackc/pgx/v5"
)

// DB keeps API tokens by the hash of their secret (migration 0002_tokens.sql).
var _ gpucost.TokenStore = (*DB)(nil)

// tokenLookup is the indexed prefix of a hash that a token is found by.
func tokenLookup(hash []byte) []byte { return hash[:8] }

// CreateToken stores t with the hash of its secret and returns it with ID and Created set; a
// zero t.Created means now. Times are kept to the second, as in the SQLite store.
func (db *DB) CreateToken(ctx context.Context, t gpucost.Token, hash []byte) (gpucost.Token, error) {
	t, err := storeutil.PrepareToken(t, hash, time.Now())
	if err != nil {
		return gpucost.Token{}, err
	}
	err = db.pool.QueryRow(ctx, `INSERT INTO tokens(name, role, hash, lookup, created_at) VALUES ($1, $2, $3, $4, $5)
		RETURNING id`, t.Name, string(t.Role), hash, tokenLookup(hash), t.Created).Scan(&t.ID)
	if err != nil {
		return gpucost.Token{}, fmt.Errorf("store token %q in %s: %w", t.Name, db.name, err)
	}
	return t, nil
}

// TokenByHash returns the unrevoked token whose secret has the given hash, found by the hash's
// prefix and then compared whole in constant time.
func (db *DB) TokenByHash(ctx context.Context, hash []byte) (gpucost.Token, error) {
	if len(hash) != sha256.Size {
		return gpucost.Token{}, gpucost.Errorf(gpucost.ENotFound, "no such token")
	}
	rows, err := db.pool.Query(ctx, `SELECT id, name, role, hash, created_at, revoked_at FROM tokens
		WHERE lookup = $1 AND revoked_at IS NULL`, tokenLookup(hash))
	if err != nil {
		return gpucost.Token{}, fmt.Errorf("look up token in %s: %w", db.name, err)
	}
	defer rows.Close()
	var found gpucost.Token
	ok := false
	for rows.Next() {
		t, stored, err := scanToken(rows)
		if err != nil {
			return gpucost.Token{}, fmt.Errorf("look up token in %s: %w", db.name, err)
		}
		if subtle.ConstantTimeCompare(stored, hash) == 1 {
			found, ok = t, true
		}
	}
	if err := rows.Err(); err != nil {
		return gpucost.Token{}, fmt.Errorf("look up token in %s: %w", db.name, err)
	}
	if !ok {
		return gpucost.Token{}, gpucost.Errorf(gpucost.ENotFound, "no such token")
	}
	return found, nil
}

// Tokens lists every token, revoked ones too, by ID.
func (db *DB) Tokens(ctx context.Context) ([]gpucost.Token, error) {
	rows, err := db.pool.Query(ctx, `SELECT id, name, role, hash, created_at, revoked_at FROM tokens ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("list tokens in %s: %w", db.name, err)
	}
	defer rows.Close()
	var out []gpucost.Token
	for rows.Next() {
		t, _, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens in %s: %w", db.name, err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens in %s: %w", db.name, err)
	}
	return out, nil
}

// RevokeToken marks the token revoked at the given time, keeping an earlier revocation's time.
func (db *DB) RevokeToken(ctx context.Context, id int64, at time.Time) error {
	tag, err := db.pool.Exec(ctx, `UPDATE tokens SET revoked_at = COALESCE(revoked_at, $1) WHERE id = $2`,
		at.UTC().Truncate(time.Second), id)
	if err != nil {
		return fmt.Errorf("revoke token %d in %s: %w", id, db.name, err)
	}
	if tag.RowsAffected() == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "revoke token %d: no such token; see gpucost token list", id)
	}
	return nil
}

// Ping checks that the database answers: the server's readiness check.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", db.name, err)
	}
	return nil
}

func scanToken(rows pgx.Rows) (gpucost.Token, []byte, error) {
	var (
		t       gpucost.Token
		role    string
		hash    []byte
		revoked *time.Time
	)
	if err := rows.Scan(&t.ID, &t.Name, &role, &hash, &t.Created, &revoked); err != nil {
		return t, nil, err
	}
	t.Role = gpucost.Role(role)
	t.Created = t.Created.UTC()
	if revoked != nil {
		t.Revoked = revoked.UTC()
	}
	return t, hash, nil
}
