// Package web is gpucost's dashboard: server-rendered pages over httpapi.Views (overview, GPU
// heatmap, costs, idle, recommendations, budgets, jobs) and httpapi.ActivityLog (what budget
// alerts and enforcement did) behind a login by API token. A login puts the token's hash into
// a signed, HttpOnly session cookie, so several server replicas sharing one Key share
// sessions, and every request checks the token again, so revoking it ends the session; a
// logout is kept in the store (Dashboard.Sessions), so a copy of its cookie is refused too.
// Styles, scripts and the chart libraries (uPlot, Apache ECharts) are embedded; no
// page loads anything from another origin, and no page runs an inline script.
package web

import (
	"crypto/rand"
	"embed"
	"log/slog"
	"net/http"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

//go:embed static
var staticFS embed.FS

// SessionTTL is how long a login lasts.
const SessionTTL = 12 * time.Hour

// Dashboard serves the web dashboard. Views supplies what the pages show and Tokens checks
// logins. Key signs session cookies and CSRF tokens: give every replica the same key of at
// least 32 random bytes. With no Key, Handler makes a random one, so sessions end when the
// server restarts and are not shared between replicas.
type Dashboard struct {
	Views  httpapi.Views
	Tokens gpucost.TokenStore
	Key    []byte
	Now    func() time.Time // default: time.Now
	Log    *slog.Logger     // default: discard

	// Activity, optional, is what budget alerts and enforcement did, for the activity page;
	// without it the page says how to turn them on.
	Activity httpapi.ActivityLog

	// Sessions, optional, keeps the sessions a logout ended, so that their cookies are refused
	// from then on by every replica sharing the store; without it a logout only deletes the
	// cookie in the browser, and a copy of it stays valid until it expires.
	Sessions SessionStore

	// Throttle refuses logins, with 429, from a source address that has failed too many (a
	// zero httpapi.Throttle if nil); give it the API server's AuthThrottle to count both.
	Throttle *httpapi.Throttle

	// Audit, optional, is the audit trail: the end of each session (logout) is recorded in it,
	// and the activity page shows it to admins.
	Audit gpucost.AuditLog

	// BillSources, optional, is the state of serve --pull-bills's sources, for the activity page.
	BillSources httpapi.BillSources
	// Applied, optional, measures the applied plan steps on the bill, for the Recommendations
	// page's realized savings.
	Applied httpapi.StepApplier
}

// Handler returns the dashboard's handler: the pages, /login, /logout and /static/.
func (d *Dashboard) Handler() http.Handler {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if len(d.Key) == 0 {
		d.Key = make([]byte, 32)
		rand.Read(d.Key) // never fails (crypto/rand panics rather than return an error)
		d.Log.Warn("dashboard: no session key given; a random one is used, so logins end when the server restarts")
	} else if len(d.Key) < 32 {
		d.Log.Warn("dashboard: the session key is shorter than 32 bytes; give 32 random bytes", "bytes", len(d.Key))
	}
	if d.Sessions == nil {
		d.Log.Warn("dashboard: no session store given; a logout ends a session only in its browser")
	}
	if d.Throttle == nil {
		d.Throttle = &httpapi.Throttle{}
	}
	assets := mustAssets()
	s := &site{d: d, keys: newKeys(d.Key), assets: assets}
	mux := http.NewServeMux()
	mux.Handle("GET /static/", assets)
	mux.HandleFunc("GET /login", s.loginForm)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("POST /recommendations/apply", s.applyStep)
	for _, p := range pageList {
		mux.Handle("GET "+p.path, s.authenticated(p))
	}
	mux.HandleFunc("/", s.notFound)
	return securityHeaders(mux)
}

// site is the dashboard's handler state, built once by Handler.
type site struct {
	d      *Dashboard
	keys   keys
	assets *assets
}

// contentSecurityPolicy allows only this origin's scripts, styles and images (and data: images,
// which chart exports use); no inline script, no framing, forms posting only here.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; " +
	"img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
	"form-action 'self'; frame-ancestors 'none'"

// securityHeaders sets the headers every dashboard response carries.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		h.Set("X-Frame-Options", "DENY")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}
