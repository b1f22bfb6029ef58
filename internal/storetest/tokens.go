package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// Pinger is a store that answers a readiness check (both stores do; it is not part of
// gpucost.TokenStore).
type Pinger interface {
	Ping(ctx context.Context) error
}

// RunTokens runs the cases of gpucost.TokenStore.
func RunTokens(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"CreateAndLookUp", testTokenCreateAndLookUp},
		{"LookUpRefusesOtherHashes", testTokenLookUpRefusesOtherHashes},
		{"RevokeKeepsFirstTime", testTokenRevokeKeepsFirstTime},
		{"CreateRejectsBadTokens", testTokenCreateRejectsBadTokens},
		{"DuplicateHashRefused", testTokenDuplicateHashRefused},
		{"Ping", testTokenStorePing},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// tokenCreated is the creation time the token cases use.
var tokenCreated = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// newToken stores a token with a new secret and returns it with the secret.
func newToken(t *testing.T, s gpucost.TokenStore, tok gpucost.Token) (gpucost.Token, string) {
	t.Helper()
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.CreateToken(context.Background(), tok, gpucost.HashTokenSecret(secret))
	if err != nil {
		t.Fatalf("CreateToken(%+v): %v", tok, err)
	}
	return got, secret
}

func testTokenCreateAndLookUp(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	// A creation time below the second is kept to the second, the same in every store.
	tok, secret := newToken(t, s, gpucost.Token{Name: "host-1", Role: gpucost.RoleIngest, Created: tokenCreated.Add(300 * time.Millisecond)})
	if tok.ID == 0 || !tok.Created.Equal(tokenCreated) || !tok.Revoked.IsZero() {
		t.Errorf("CreateToken = %+v; want an ID, Created %v and no revocation", tok, tokenCreated)
	}
	viewer, viewerSecret := newToken(t, s, gpucost.Token{Name: "team-a", Role: gpucost.RoleViewer})
	if viewer.ID == tok.ID || viewer.Created.IsZero() {
		t.Errorf("second CreateToken = %+v; want a new ID and Created set to now", viewer)
	}
	for _, want := range []struct {
		tok    gpucost.Token
		secret string
	}{{tok, secret}, {viewer, viewerSecret}} {
		got, err := s.TokenByHash(ctx, gpucost.HashTokenSecret(want.secret))
		if err != nil || got != want.tok {
			t.Errorf("TokenByHash(%s) = %+v, %v; want %+v", want.tok.Name, got, err, want.tok)
		}
	}
	list, err := s.Tokens(ctx)
	if err != nil || len(list) != 2 || list[0] != tok || list[1] != viewer {
		t.Errorf("Tokens = %+v, %v; want [%+v %+v]", list, err, tok, viewer)
	}
}

func testTokenLookUpRefusesOtherHashes(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	_, secret := newToken(t, s, gpucost.Token{Name: "host-1", Role: gpucost.RoleAdmin, Created: tokenCreated})
	// Same lookup prefix, different hash: found by the index, refused by the full comparison.
	forged := append([]byte(nil), gpucost.HashTokenSecret(secret)...)
	forged[31] ^= 1
	for name, hash := range map[string][]byte{
		"wrong secret":         gpucost.HashTokenSecret(secret + "x"),
		"same prefix":          forged,
		"short hash":           []byte("abc"),
		"the prefix alone":     gpucost.HashTokenSecret(secret)[:8],
		"no hash":              nil,
		"the secret, unhashed": []byte(secret),
	} {
		if got, err := s.TokenByHash(ctx, hash); gpucost.ErrorCode(err) != gpucost.ENotFound {
			t.Errorf("TokenByHash(%s) = %+v, %v; want a not_found error", name, got, err)
		}
	}
}

func testTokenRevokeKeepsFirstTime(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	tok, secret := newToken(t, s, gpucost.Token{Name: "host-1", Role: gpucost.RoleIngest, Created: tokenCreated})
	other, otherSecret := newToken(t, s, gpucost.Token{Name: "host-2", Role: gpucost.RoleIngest, Created: tokenCreated})
	revokedAt := tokenCreated.Add(time.Hour)
	if err := s.RevokeToken(ctx, tok.ID, revokedAt.Add(400*time.Millisecond)); err != nil {
		t.Fatalf("RevokeToken: %v", err)
	}
	if err := s.RevokeToken(ctx, tok.ID, revokedAt.Add(time.Hour)); err != nil {
		t.Fatalf("RevokeToken again: %v", err)
	}
	if got, err := s.TokenByHash(ctx, gpucost.HashTokenSecret(secret)); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("TokenByHash(revoked) = %+v, %v; want a not_found error", got, err)
	}
	if got, err := s.TokenByHash(ctx, gpucost.HashTokenSecret(otherSecret)); err != nil || got != other {
		t.Errorf("TokenByHash(the token not revoked) = %+v, %v; want %+v", got, err, other)
	}
	if err := s.RevokeToken(ctx, other.ID+1000, revokedAt); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("RevokeToken(no such id) error = %v; want not_found", err)
	}
	list, err := s.Tokens(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("Tokens = %+v, %v; want 2", list, err)
	}
	if !list[0].Revoked.Equal(revokedAt) || !list[1].Revoked.IsZero() {
		t.Errorf("Tokens revoked = %v, %v; want %v (the first revocation, to the second) and zero", list[0].Revoked, list[1].Revoked, revokedAt)
	}
}

func testTokenCreateRejectsBadTokens(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		t.Fatal(err)
	}
	good := gpucost.HashTokenSecret(secret)
	for name, c := range map[string]struct {
		tok  gpucost.Token
		hash []byte
	}{
		"no name":    {gpucost.Token{Role: gpucost.RoleAdmin}, good},
		"blank name": {gpucost.Token{Name: "  ", Role: gpucost.RoleAdmin}, good},
		"bad role":   {gpucost.Token{Name: "x", Role: "root"}, good},
		"no role":    {gpucost.Token{Name: "x"}, good},
		"short hash": {gpucost.Token{Name: "x", Role: gpucost.RoleViewer}, good[:16]},
		"no hash":    {gpucost.Token{Name: "x", Role: gpucost.RoleViewer}, nil},
	} {
		if got, err := s.CreateToken(ctx, c.tok, c.hash); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("CreateToken(%s) = %+v, %v; want an invalid error", name, got, err)
		}
	}
	if list, err := s.Tokens(ctx); err != nil || len(list) != 0 {
		t.Errorf("Tokens after refused creates = %+v, %v; want none", list, err)
	}
}

func testTokenDuplicateHashRefused(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	tok, secret := newToken(t, s, gpucost.Token{Name: "host-1", Role: gpucost.RoleViewer, Created: tokenCreated})
	if got, err := s.CreateToken(ctx, gpucost.Token{Name: "copy", Role: gpucost.RoleAdmin}, gpucost.HashTokenSecret(secret)); err == nil {
		t.Errorf("CreateToken(a stored hash) = %+v; want an error", got)
	}
	if got, err := s.TokenByHash(ctx, gpucost.HashTokenSecret(secret)); err != nil || got != tok {
		t.Errorf("TokenByHash after the refused copy = %+v, %v; want %+v", got, err, tok)
	}
}

func testTokenStorePing(t *testing.T, open Open) {
	p, ok := open(t).(Pinger)
	if !ok {
		t.Skip("the store has no Ping")
	}
	if err := p.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
}

// BenchTokenByHash measures the lookup every authenticated request makes: one token of tokens
// stored, found by the hash of its secret.
func BenchTokenByHash(b *testing.B, open Open, tokens int) {
	ctx := context.Background()
	s := open(b)
	hashes := make([][]byte, tokens)
	for i := range hashes {
		secret, err := gpucost.NewTokenSecret()
		if err != nil {
			b.Fatal(err)
		}
		hashes[i] = gpucost.HashTokenSecret(secret)
		if _, err := s.CreateToken(ctx, gpucost.Token{Name: fmt.Sprintf("host-%d", i), Role: gpucost.RoleIngest}, hashes[i]); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if _, err := s.TokenByHash(ctx, hashes[i%tokens]); err != nil {
			b.Fatal(err)
		}
	}
}
