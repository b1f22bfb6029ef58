package gpucost

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"time"
)

// Role is what an API token may do.
type Role string

// Roles, from least to most allowed.
const (
	RoleViewer Role = "viewer" // reads
	RoleIngest Role = "ingest" // pushes samples and bills, and nothing else
	RoleAdmin  Role = "admin"  // everything
)

// ParseRole returns the role named s, or an EInvalid error naming the roles there are.
func ParseRole(s string) (Role, error) {
	switch r := Role(strings.ToLower(strings.TrimSpace(s))); r {
	case RoleViewer, RoleIngest, RoleAdmin:
		return r, nil
	}
	return "", Errorf(EInvalid, "role %q: use viewer, ingest or admin", s)
}

// Allows reports whether a token with role r may act as any of the roles in need. An admin may
// do everything; a viewer or ingest token only what its own role is named in.
func (r Role) Allows(need ...Role) bool {
	if r == RoleAdmin {
		return true
	}
	for _, n := range need {
		if r == n {
			return true
		}
	}
	return false
}

// Token is an API token as stored: never its secret, which is shown once when it is created.
type Token struct {
	ID      int64     `json:"id"`
	Name    string    `json:"name"`
	Role    Role      `json:"role"`
	Created time.Time `json:"created"`
	Revoked time.Time `json:"revoked,omitzero"` // zero while the token is valid
}

// TokenSecretPrefix starts every token secret, so secret scanners and people recognise one.
const TokenSecretPrefix = "gpc_"

// NewTokenSecret returns a new random secret: TokenSecretPrefix and 32 random bytes, base64url.
func NewTokenSecret() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("make a token secret: %w", err)
	}
	return TokenSecretPrefix + base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// HashTokenSecret returns the SHA-256 hash of a secret: what a TokenStore keeps in its place.
func HashTokenSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// TokenStore keeps API tokens by the hash of their secret.
type TokenStore interface {
	// CreateToken stores t with the hash of its secret and returns it with ID and Created set.
	CreateToken(ctx context.Context, t Token, hash []byte) (Token, error)

	// TokenByHash returns the valid (unrevoked) token whose secret has the given hash, comparing
	// hashes in constant time. It returns an ENotFound Error if there is none.
	TokenByHash(ctx context.Context, hash []byte) (Token, error)

	// Tokens lists every token, revoked ones too, by ID.
	Tokens(ctx context.Context) ([]Token, error)

	// RevokeToken marks the token revoked at the given time. It returns an ENotFound Error if
	// there is no such token; revoking a revoked token is fine and keeps the first time.
	RevokeToken(ctx context.Context, id int64, at time.Time) error
}
