package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// RunSessions runs the cases of gpucost.SessionStore: every replica sharing a store refuses a
// session once it is logged out.
func RunSessions(t *testing.T, open Open) {
	for _, c := range []struct {
		name string
		fn   func(*testing.T, Open)
	}{
		{"RevokeAndLookUp", testSessionRevokeAndLookUp},
		{"ExpiredForgotten", testSessionExpiredForgotten},
		{"RejectsBadNonces", testSessionRejectsBadNonces},
	} {
		t.Run(c.name, func(t *testing.T) { c.fn(t, open) })
	}
}

// sessionAt is the logout time the session cases use.
var sessionAt = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

func nonce(b byte) []byte { return bytes.Repeat([]byte{b}, 16) }

func testSessionRevokeAndLookUp(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	a, b := nonce(1), nonce(2)
	if got, err := s.SessionRevoked(ctx, a); err != nil || got {
		t.Fatalf("SessionRevoked(a) before any logout = %v, %v; want false", got, err)
	}
	for range 2 { // a second logout of the same session is a no-op
		if err := s.RevokeSession(ctx, a, sessionAt, sessionAt.Add(12*time.Hour)); err != nil {
			t.Fatalf("RevokeSession(a): %v", err)
		}
	}
	if got, err := s.SessionRevoked(ctx, a); err != nil || !got {
		t.Errorf("SessionRevoked(a) after logout = %v, %v; want true", got, err)
	}
	if got, err := s.SessionRevoked(ctx, b); err != nil || got {
		t.Errorf("SessionRevoked(b), never logged out = %v, %v; want false", got, err)
	}
	if got, err := s.SessionRevoked(ctx, a[:15]); err != nil || got {
		t.Errorf("SessionRevoked(a prefix) = %v, %v; want false: nonces match whole", got, err)
	}
}

func testSessionExpiredForgotten(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	old, live := nonce(3), nonce(4)
	if err := s.RevokeSession(ctx, old, sessionAt, sessionAt.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.RevokeSession(ctx, live, sessionAt, sessionAt.Add(12*time.Hour)); err != nil {
		t.Fatal(err)
	}
	// A logout after old's expiry forgets it (its cookie is refused as expired anyway) and
	// keeps live, which has not expired.
	later := nonce(5)
	if err := s.RevokeSession(ctx, later, sessionAt.Add(2*time.Hour), sessionAt.Add(14*time.Hour)); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		nonce []byte
		want  bool
	}{{"expired", old, false}, {"live", live, true}, {"later", later, true}} {
		if got, err := s.SessionRevoked(ctx, c.nonce); err != nil || got != c.want {
			t.Errorf("SessionRevoked(%s) = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}

func testSessionRejectsBadNonces(t *testing.T, open Open) {
	ctx := context.Background()
	s := open(t)
	for _, n := range [][]byte{nil, make([]byte, 65)} {
		if err := s.RevokeSession(ctx, n, sessionAt, sessionAt.Add(time.Hour)); err == nil {
			t.Errorf("RevokeSession(nonce of %d bytes) = nil; want an error", len(n))
		}
	}
}
