package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

func TestTokens(t *testing.T) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	created := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := db.CreateToken(ctx, gpucost.Token{Name: "host-1", Role: gpucost.RoleIngest, Created: created}, gpucost.HashTokenSecret(secret))
	if err != nil {
		t.Fatalf("CreateToken: %v", err)
	}
	if tok.ID == 0 || !tok.Created.Equal(created) {
		t.Errorf("CreateToken = %+v; want an ID and Created %v", tok, created)
	}
	other, _ := gpucost.NewTokenSecret()
	if _, err := db.CreateToken(ctx, gpucost.Token{Name: "viewer", Role: gpucost.RoleViewer}, gpucost.HashTokenSecret(other)); err != nil {
		t.Fatal(err)
	}

	got, err := db.TokenByHash(ctx, gpucost.HashTokenSecret(secret))
	if err != nil || got.ID != tok.ID || got.Role != gpucost.RoleIngest || got.Name != "host-1" {
		t.Errorf("TokenByHash(secret) = %+v, %v; want token %d", got, err, tok.ID)
	}
	for name, hash := range map[string][]byte{
		"wrong secret": gpucost.HashTokenSecret(secret + "x"),
		"short hash":   []byte("abc"),
		"no hash":      nil,
	} {
		if _, err := db.TokenByHash(ctx, hash); gpucost.ErrorCode(err) != gpucost.ENotFound {
			t.Errorf("TokenByHash(%s) error = %v; want not_found", name, err)
		}
	}
	// Same lookup prefix, different hash: found by index, refused by the full comparison.
	forged := append([]byte(nil), gpucost.HashTokenSecret(secret)...)
	forged[31] ^= 1
	if _, err := db.TokenByHash(ctx, forged); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("TokenByHash(hash with the same prefix) error = %v; want not_found", err)
	}

	revokedAt := created.Add(time.Hour)
	if err := db.RevokeToken(ctx, tok.ID, revokedAt); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	if err := db.RevokeToken(ctx, tok.ID, revokedAt.Add(time.Hour)); err != nil {
		t.Fatalf("RevokeToken again: %v", err)
	}
	if _, err := db.TokenByHash(ctx, gpucost.HashTokenSecret(secret)); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("TokenByHash(revoked) error = %v; want not_found", err)
	}
	if err := db.RevokeToken(ctx, 999, revokedAt); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("RevokeToken(999) error = %v; want not_found", err)
	}

	list, err := db.Tokens(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("Tokens = %+v, %v; want 2", list, err)
	}
	if !list[0].Revoked.Equal(revokedAt) || !list[1].Revoked.IsZero() {
		t.Errorf("Tokens revoked = %v, %v; want %v (the first revocation) and zero", list[0].Revoked, list[1].Revoked, revokedAt)
	}

	for name, tk := range map[string]gpucost.Token{
		"no name":  {Role: gpucost.RoleAdmin},
		"bad role": {Name: "x", Role: "root"},
	} {
		s, _ := gpucost.NewTokenSecret()
		if _, err := db.CreateToken(ctx, tk, gpucost.HashTokenSecret(s)); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("CreateToken(%s) error = %v; want invalid", name, err)
		}
	}
	if err := db.Ping(ctx); err != nil {
		t.Errorf("Ping: %v", err)
	}
}
