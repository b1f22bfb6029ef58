package web

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gpucost/gpucost/httpapi"
)

// Cookie names.
const (
	sessionCookie = "gpucost_session" // a signed session: token hash, expiry, nonce
	loginCookie   = "gpucost_login"   // a random nonce the login form's CSRF token is bound to
)

// loginCookieTTL is how long a login form may stay open before it must be reloaded.
const loginCookieTTL = time.Hour

// keys derives one key per use from the dashboard's Key, so a session MAC can never pass as a
// CSRF token or the other way round.
type keys struct {
	session, csrf, loginCSRF []byte
}

func newKeys(key []byte) keys {
	derive := func(use string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte("gpucost dashboard " + use))
		return m.Sum(nil)
	}
	return keys{session: derive("session"), csrf: derive("csrf"), loginCSRF: derive("login csrf")}
}

// SessionStore keeps the sessions a logout ended until they expire, so that a copy of the
// cookie is refused after the logout by every replica sharing the store: *sqlite.DB and
// *postgres.DB.
type SessionStore interface {
	// RevokeSession records that the session with nonce ended at at; its cookie expires at
	// expires. Revoking a revoked session is a no-op.
	RevokeSession(ctx context.Context, nonce []byte, at, expires time.Time) error

	// SessionRevoked reports whether the session with nonce was revoked.
	SessionRevoked(ctx context.Context, nonce []byte) (bool, error)
}

// session is what a session cookie carries. It holds the token's hash, never its secret.
type session struct {
	TokenHash []byte    // SHA-256 of the token secret, 32 bytes
	Expires   time.Time // to the second
	Nonce     []byte    // 16 random bytes: what the session's CSRF token is bound to
}

const (
	hashLen    = sha256.Size
	nonceLen   = 16
	payloadLen = hashLen + 8 + nonceLen
)

var errBadSession = errors.New("session cookie is not valid")

func newSession(tokenHash []byte, expires time.Time) session {
	nonce := make([]byte, nonceLen)
	rand.Read(nonce)
	return session{TokenHash: tokenHash, Expires: expires.Truncate(time.Second), Nonce: nonce}
}

// encode returns the cookie value: base64url(hash ‖ expiry ‖ nonce) "." base64url(HMAC-SHA256).
func (k keys) encode(s session) string {
	p := make([]byte, 0, payloadLen)
	p = append(p, s.TokenHash...)
	p = binary.BigEndian.AppendUint64(p, uint64(s.Expires.Unix()))
	p = append(p, s.Nonce...)
	return b64(p) + "." + b64(mac(k.session, p))
}

// decode checks a cookie value's signature and expiry and returns its session.
func (k keys) decode(v string, now time.Time) (session, error) {
	ps, ms, ok := strings.Cut(v, ".")
	if !ok {
		return session{}, errBadSession
	}
	p, err1 := base64.RawURLEncoding.DecodeString(ps)
	m, err2 := base64.RawURLEncoding.DecodeString(ms)
	if err1 != nil || err2 != nil || len(p) != payloadLen {
		return session{}, errBadSession
	}
	if !hmac.Equal(m, mac(k.session, p)) {
		return session{}, errBadSession
	}
	s := session{
		TokenHash: p[:hashLen],
		Expires:   time.Unix(int64(binary.BigEndian.Uint64(p[hashLen:hashLen+8])), 0),
		Nonce:     p[hashLen+8:],
	}
	if !now.Before(s.Expires) {
		return session{}, errors.New("session expired")
	}
	return s, nil
}

// csrfToken is the token a session's forms carry: bound to the session's nonce.
func (k keys) csrfToken(s session) string { return b64(mac(k.csrf, s.Nonce)) }

// loginCSRFToken is the token the login form carries: bound to the login cookie's nonce.
func (k keys) loginCSRFToken(nonce string) string { return b64(mac(k.loginCSRF, []byte(nonce))) }

// checkToken compares a form's token with the expected one in constant time.
func checkToken(got, want string) bool {
	return got != "" && hmac.Equal([]byte(got), []byte(want))
}

func mac(key, msg []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(msg)
	return m.Sum(nil)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// cookie returns a dashboard cookie: HttpOnly, SameSite=Strict, Path=/, Secure over TLS (to
// this server, or to a trusted proxy that says so: httpapi.Secure). A negative maxAge deletes it.
func cookie(r *http.Request, name, value string, maxAge time.Duration, now time.Time) *http.Cookie {
	c := &http.Cookie{
		Name: name, Value: value, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: httpapi.Secure(r),
	}
	if maxAge < 0 {
		c.MaxAge = -1
		c.Expires = time.Unix(1, 0)
		return c
	}
	c.MaxAge = int(maxAge / time.Second)
	c.Expires = now.Add(maxAge)
	return c
}

// loginNonce returns the request's login cookie nonce, setting a new cookie when it has none.
func loginNonce(w http.ResponseWriter, r *http.Request, now time.Time) string {
	if c, err := r.Cookie(loginCookie); err == nil && len(c.Value) == 22 {
		return c.Value
	}
	n := make([]byte, nonceLen)
	rand.Read(n)
	v := b64(n)
	http.SetCookie(w, cookie(r, loginCookie, v, loginCookieTTL, now))
	return v
}
