package web

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// maxFormBytes bounds a login or logout form.
const maxFormBytes = 16 << 10

// viewer is the logged-in person's token and session, as a page sees them.
type viewer struct {
	Token gpucost.Token
	CSRF  string // the token the page's forms carry
}

// current returns the request's session and its token, checked again against the store, so a
// revoked token or a logout (Dashboard.Sessions) ends the session at once. ok is false without
// a valid session; err is set when the store could not be asked.
func (s *site) current(r *http.Request) (sess session, tok gpucost.Token, ok bool, err error) {
	c, cerr := r.Cookie(sessionCookie)
	if cerr != nil {
		return session{}, gpucost.Token{}, false, nil
	}
	sess, derr := s.keys.decode(c.Value, s.d.Now())
	if derr != nil {
		return session{}, gpucost.Token{}, false, nil
	}
	if s.d.Sessions != nil {
		revoked, err := s.d.Sessions.SessionRevoked(r.Context(), sess.Nonce)
		if err != nil || revoked {
			return session{}, gpucost.Token{}, false, err
		}
	}
	tok, err = s.d.Tokens.TokenByHash(r.Context(), sess.TokenHash)
	if gpucost.ErrorCode(err) == gpucost.ENotFound {
		return session{}, gpucost.Token{}, false, nil
	}
	if err != nil {
		return session{}, gpucost.Token{}, false, err
	}
	return sess, tok, true, nil
}

// authenticated serves p to a logged-in viewer or admin: others go to the login form, an
// ingest token gets 403.
func (s *site) authenticated(p page) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sess, tok, ok, err := s.current(r)
		if err != nil {
			s.d.Log.Error("dashboard: check session token", "err", err)
			s.renderError(w, r, nil, http.StatusServiceUnavailable, "The token store could not be reached; try again shortly.")
			return
		}
		if !ok {
			if _, had := r.Cookie(sessionCookie); had == nil {
				http.SetCookie(w, cookie(r, sessionCookie, "", -1, s.d.Now()))
			}
			http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			return
		}
		if !tok.Role.Allows(gpucost.RoleViewer) {
			s.renderError(w, r, nil, http.StatusForbidden, "This token's role ("+string(tok.Role)+") cannot view the dashboard: log out and use a viewer or admin token.")
			return
		}
		v := &viewer{Token: tok, CSRF: s.keys.csrfToken(sess)}
		w.Header().Set("Cache-Control", "no-store")
		p.serve(s, w, r.WithContext(context.WithValue(r.Context(), viewerKey{}, v)))
	})
}

type viewerKey struct{}

func viewerFrom(r *http.Request) *viewer {
	v, _ := r.Context().Value(viewerKey{}).(*viewer)
	return v
}

// loginPage is what the login page shows.
type loginPage struct {
	CSRF  string
	Next  string
	Error string
}

// loginForm shows the login form, or sends a logged-in person on.
func (s *site) loginForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if _, tok, ok, _ := s.current(r); ok && tok.Role.Allows(gpucost.RoleViewer) {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	nonce := loginNonce(w, r, s.d.Now())
	s.renderLogin(w, r, http.StatusOK, loginPage{CSRF: s.keys.loginCSRFToken(nonce), Next: next})
}

// login checks the form's CSRF token and API token and starts a session.
func (s *site) login(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the login form could not be read", http.StatusBadRequest)
		return
	}
	next := safeNext(r.PostForm.Get("next"))
	c, err := r.Cookie(loginCookie)
	if err != nil || !checkToken(r.PostForm.Get("csrf"), s.keys.loginCSRFToken(c.Value)) {
		s.d.Log.Warn("dashboard: login refused", "reason", "missing or wrong CSRF token", "remote", httpapi.ClientAddr(r))
		s.renderError(w, r, nil, http.StatusForbidden, "The login form expired or did not come from this site: reload the login page and try again.")
		return
	}
	retry := func(status int, msg string) {
		s.renderLogin(w, r, status, loginPage{CSRF: s.keys.loginCSRFToken(c.Value), Next: next, Error: msg})
	}
	addr := httpapi.ClientAddr(r)
	if wait := s.d.Throttle.Wait(addr, s.d.Now()); wait > 0 {
		s.d.Log.Warn("dashboard: login refused", "reason", "throttled", "remote", addr)
		httpapi.SetRetryAfter(w, wait)
		retry(http.StatusTooManyRequests, httpapi.Refusal("failed logins", addr, wait))
		return
	}
	secret := strings.TrimSpace(r.PostForm.Get("token"))
	if !strings.HasPrefix(secret, gpucost.TokenSecretPrefix) {
		retry(http.StatusUnauthorized, "Paste an API token: it starts with "+gpucost.TokenSecretPrefix+" (create one with gpucost token create --role viewer).")
		return
	}
	hash := gpucost.HashTokenSecret(secret)
	tok, err := s.d.Tokens.TokenByHash(r.Context(), hash)
	switch {
	case gpucost.ErrorCode(err) == gpucost.ENotFound:
		s.d.Throttle.Failed(addr, s.d.Now())
		s.d.Log.Warn("dashboard: login refused", "reason", "unknown or revoked token", "remote", addr)
		retry(http.StatusUnauthorized, "That token is not valid: it is unknown or was revoked.")
		return
	case err != nil:
		s.d.Log.Error("dashboard: check login token", "err", err)
		retry(http.StatusServiceUnavailable, "The token store could not be reached; try again shortly.")
		return
	case !tok.Role.Allows(gpucost.RoleViewer):
		s.d.Log.Warn("dashboard: login refused", "reason", "role", "token", tok.Name, "role", tok.Role)
		retry(http.StatusForbidden, "An "+string(tok.Role)+" token cannot view the dashboard: use a viewer or admin token.")
		return
	}
	now := s.d.Now()
	http.SetCookie(w, cookie(r, sessionCookie, s.keys.encode(newSession(hash, now.Add(SessionTTL))), SessionTTL, now))
	http.SetCookie(w, cookie(r, loginCookie, "", -1, now))
	s.d.Log.Info("dashboard: login", "token", tok.Name, "token_id", tok.ID, "role", tok.Role)
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// logout ends the session when the form carries the session's CSRF token: in this browser, and
// on the server (Dashboard.Sessions), so that a copy of the cookie is refused too.
func (s *site) logout(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the logout form could not be read", http.StatusBadRequest)
		return
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	sess, err := s.keys.decode(c.Value, s.d.Now())
	if err != nil { // nothing to end but a stale cookie
		http.SetCookie(w, cookie(r, sessionCookie, "", -1, s.d.Now()))
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	if !checkToken(r.PostForm.Get("csrf"), s.keys.csrfToken(sess)) {
		s.renderError(w, r, nil, http.StatusForbidden, "The logout form did not come from this session: reload the page and try again.")
		return
	}
	if s.d.Sessions != nil {
		if err := s.d.Sessions.RevokeSession(r.Context(), sess.Nonce, s.d.Now(), sess.Expires); err != nil {
			s.d.Log.Error("dashboard: revoke session at logout", "err", err)
			s.renderError(w, r, nil, http.StatusServiceUnavailable, "The session could not be ended on the server: the store could not be reached. Log out again shortly.")
			return
		}
	}
	s.recordSessionEnd(r, sess)
	http.SetCookie(w, cookie(r, sessionCookie, "", -1, s.d.Now()))
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// safeNext returns next when it is a path on this site, else "/": a login never sends anyone
// to another origin.
func safeNext(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	if u.Path == "/login" || u.Path == "/logout" {
		return "/"
	}
	return u.RequestURI()
}
