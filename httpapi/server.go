// Package httpapi is gpucost's HTTP server and its client: token authentication with roles,
// health and readiness checks, sample ingest from agents, the read API over Views (reports,
// filtered and paged), billing uploads, budgets, and the OpenAPI document that describes the
// endpoints. The client side (Client, RemoteSink) is what gpucost agent --server pushes with.
package httpapi

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Default request limits.
const (
	DefaultMaxBody    = 8 << 20  // bytes of a request body as sent (compressed)
	DefaultMaxDecoded = 64 << 20 // bytes of a request body once decompressed
)

// Ingester takes the samples agents push; telemetry.Writer and agent.Sink are ones.
type Ingester interface {
	Add(ctx context.Context, samples ...gpucost.Sample) error
}

// Server serves gpucost's HTTP API. Every endpoint but /healthz, /readyz and the OpenAPI
// document needs a bearer token whose role allows it.
type Server struct {
	Tokens     gpucost.TokenStore
	Ingest     Ingester
	Ready      func(ctx context.Context) error // the store's ping; nil means always ready
	Log        *slog.Logger                    // default: discard
	Now        func() time.Time                // default: time.Now
	MaxBody    int64                           // DefaultMaxBody if zero
	MaxDecoded int64                           // DefaultMaxDecoded if zero

	// Limits of one samples push beyond its bytes: its samples (MaxSamplesPerRequest if zero)
	// and the memory they hold once decoded (MaxSampleMemory if zero).
	MaxSamples      int
	MaxSampleMemory int64

	// Per-token rate limits, each a token bucket per token id: samples pushed a second
	// (DefaultIngestRate, DefaultIngestBurst if zero) and bill uploads a second
	// (DefaultBillRate an hour, DefaultBillBurst if zero). A negative Rate turns one off.
	IngestLimit Limit
	BillLimit   Limit

	// AuthThrottle refuses, with 429, a source address that has failed too many token checks
	// (a zero Throttle if nil); the dashboard's logins may share it.
	AuthThrottle *Throttle

	// TrustedProxies are the peers whose X-Forwarded-Proto and X-Forwarded-For are believed
	// (ClientAddr, Secure); none by default.
	TrustedProxies TrustedProxies

	// TLS, when set, makes Serve serve HTTPS (LoadTLS reads it from PEM files).
	TLS *tls.Config

	// For /metrics, each optional: the ingest queue's depth, the count of failed writes of
	// ingested samples, and the gpucost_* series computed from the store at most every
	// FleetEvery (DefaultFleetEvery if zero).
	QueueDepth  func() int
	FlushErrors func() int64
	Fleet       FleetFunc
	FleetEvery  time.Duration

	// For the read API, bill uploads and budgets, each optional (its endpoints answer 503
	// without it): the reports, the bill importer with the largest bill it takes as sent
	// (DefaultMaxBill if zero) and the folder uploads are spooled to (the system's if empty),
	// and the budgets PUT /api/v1/budgets replaces.
	Views   Views
	Bills   BillImporter
	Imports ImportLister // GET /api/v1/imports (503 without it)
	MaxBill int64
	TempDir string
	Budgets BudgetStore

	// Activity is what budget alerts and enforcement did, for GET /api/v1/actions and
	// /api/v1/deliveries (503 without it).
	Activity ActivityLog

	// Audit keeps who replaced or removed a bill, changed the budgets or acted as admin
	// (gpucost.AuditLog); nil records nothing.
	Audit gpucost.AuditLog

	// BillSources is the state of the bill sources serve --pull-bills pulls, for GET
	// /api/v1/bill-sources (503 without it) and /metrics.
	BillSources BillSources
	// Applied records the plan steps teams made and measures them on the bill (503 without it).
	Applied StepApplier

	// UI serves every path outside /api/, /metrics and the health checks: the dashboard, which
	// authenticates its own users (token login into a session cookie). Nil serves 404s there.
	UI http.Handler

	metrics *metrics
	limits  *rateLimits
}

// route is one endpoint: what the mux serves and what the OpenAPI document must describe.
type route struct {
	method, path string
	roles        []gpucost.Role // nil: no token needed
	handle       func(w http.ResponseWriter, r *http.Request)
}

func (s *Server) routes() []route {
	rs := []route{
		{"GET", "/healthz", nil, s.healthz},
		{"GET", "/readyz", nil, s.readyz},
		{"GET", "/api/openapi.json", nil, serveOpenAPI},
		{"GET", "/metrics", []gpucost.Role{gpucost.RoleViewer}, s.serveMetrics},
		{"GET", "/api/v1/whoami", []gpucost.Role{gpucost.RoleViewer, gpucost.RoleIngest}, s.whoami},
		{"POST", "/api/v1/samples", []gpucost.Role{gpucost.RoleIngest}, s.postSamples},
		{"POST", "/api/v1/bills", []gpucost.Role{gpucost.RoleIngest}, s.limitBills(s.postBill)},
		{"DELETE", "/api/v1/bills/{id}", []gpucost.Role{}, s.deleteBill},
		{"GET", "/api/v1/imports", []gpucost.Role{gpucost.RoleViewer}, s.getImports},
		{"PUT", "/api/v1/budgets", []gpucost.Role{}, s.putBudgets},
	}
	rs = append(rs, s.readRoutes()...)
	rs = append(rs, s.billSourceRoutes()...)
	rs = append(rs, s.appliedRoutes()...)
	return append(rs, s.activityRoutes()...)
}

// Handler returns the API's handler.
func (s *Server) Handler() http.Handler {
	s.defaults()
	s.metrics = s.newMetrics()
	mux := http.NewServeMux()
	for _, rt := range s.routes() {
		h := http.HandlerFunc(rt.handle)
		if rt.roles != nil {
			h = s.authorize(rt.roles, h)
		}
		mux.Handle(rt.method+" "+rt.path, s.metrics.instrument(rt.method+" "+rt.path, h))
	}
	mux.Handle("/api/", s.metrics.instrument("other", http.HandlerFunc(s.notFound)))
	if s.UI != nil {
		mux.Handle("/", s.metrics.instrument("dashboard", s.UI))
	} else {
		mux.Handle("/", s.metrics.instrument("other", http.HandlerFunc(s.notFound)))
	}
	return s.TrustedProxies.withOrigin(s.logRequests(mux))
}

// notFound answers a path no route serves, or serves with another method (405).
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, rt := range s.routes() {
		if rt.path == r.URL.Path {
			allow = append(allow, rt.method)
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		writeError(w, http.StatusMethodNotAllowed, gpucost.EInvalid, r.Method+" "+r.URL.Path+": use "+strings.Join(allow, " or "))
		return
	}
	writeError(w, http.StatusNotFound, gpucost.ENotFound, "no endpoint "+r.URL.Path+"; see /api/openapi.json")
}

func (s *Server) defaults() {
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	if s.MaxBody <= 0 {
		s.MaxBody = DefaultMaxBody
	}
	if s.MaxDecoded <= 0 {
		s.MaxDecoded = DefaultMaxDecoded
	}
	if s.MaxBill <= 0 {
		s.MaxBill = DefaultMaxBill
	}
	if s.IngestLimit == (Limit{}) {
		s.IngestLimit = Limit{Rate: DefaultIngestRate, Burst: DefaultIngestBurst}
	}
	if s.BillLimit == (Limit{}) {
		s.BillLimit = Limit{Rate: DefaultBillRate / 3600.0, Burst: DefaultBillBurst}
	}
	if s.AuthThrottle == nil {
		s.AuthThrottle = &Throttle{}
	}
	s.limits = newRateLimits(s.IngestLimit, s.BillLimit)
}

type tokenKey struct{}

// TokenFrom returns the token a request was authenticated with.
func TokenFrom(ctx context.Context) (gpucost.Token, bool) {
	t, ok := ctx.Value(tokenKey{}).(gpucost.Token)
	return t, ok
}

// authorize lets a request through when its bearer token is valid and its role allows one of
// roles: 401 without a valid token, 403 with one whose role does not allow the endpoint, 429
// from a source address that failed too many token checks (AuthThrottle), before its token
// is looked up.
func (s *Server) authorize(roles []gpucost.Role, next http.Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		secret, ok := bearer(r)
		if !ok {
			s.authFailed("missing")
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpucost"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "this endpoint needs a token: send Authorization: Bearer gpc_…; create one with gpucost token create")
			return
		}
		addr := ClientAddr(r)
		if wait := s.AuthThrottle.Wait(addr, s.Now()); wait > 0 {
			s.authFailed("throttled")
			writeTooMany(w, wait, Refusal("failed token checks", addr, wait))
			return
		}
		tok, err := s.Tokens.TokenByHash(r.Context(), gpucost.HashTokenSecret(secret))
		switch {
		case gpucost.ErrorCode(err) == gpucost.ENotFound:
			s.AuthThrottle.Failed(addr, s.Now())
			s.authFailed("invalid")
			w.Header().Set("WWW-Authenticate", `Bearer realm="gpucost", error="invalid_token"`)
			writeError(w, http.StatusUnauthorized, "unauthorized", "the token is unknown or revoked")
			return
		case err != nil:
			s.Log.Error("token lookup failed", "err", err)
			writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "the token store cannot be read now; retry later")
			return
		}
		setLogToken(r, tok)
		if !tok.Role.Allows(roles...) {
			s.authFailed("forbidden")
			writeError(w, http.StatusForbidden, "forbidden", aToken(tok.Role)+" may not "+r.Method+" "+r.URL.Path+"; it needs role "+rolesText(roles))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tokenKey{}, tok)))
	}
}

func bearer(r *http.Request) (string, bool) {
	auth := r.Header.Get("Authorization")
	scheme, secret, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	secret = strings.TrimSpace(secret)
	return secret, secret != ""
}

// aToken names a token by its role, with its article: "a viewer token", "an ingest token".
func aToken(r gpucost.Role) string {
	if r != "" && strings.ContainsRune("aeiou", rune(r[0])) {
		return "an " + string(r) + " token"
	}
	return "a " + string(r) + " token"
}

func rolesText(roles []gpucost.Role) string {
	names := make([]string, 0, len(roles)+1)
	for _, r := range roles {
		names = append(names, string(r))
	}
	return strings.Join(append(names, string(gpucost.RoleAdmin)), " or ")
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

func (s *Server) readyz(w http.ResponseWriter, r *http.Request) {
	if s.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := s.Ready(ctx); err != nil {
			s.Log.Warn("not ready", "err", err)
			writeError(w, http.StatusServiceUnavailable, gpucost.EUnavailable, "the store does not answer")
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request) {
	tok, _ := TokenFrom(r.Context())
	writeJSON(w, http.StatusOK, tok)
}

// statusOf maps error codes to HTTP statuses, once.
var statusOf = map[string]int{
	gpucost.EInvalid:     http.StatusBadRequest,
	gpucost.ENotFound:    http.StatusNotFound,
	gpucost.EConflict:    http.StatusConflict,
	gpucost.EUnavailable: http.StatusServiceUnavailable,
	gpucost.EInternal:    http.StatusInternalServerError,
}

// ErrorBody is the JSON body of every error response.
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// writeErr writes err with the status its code maps to; internal errors are logged and their
// text kept from the client.
func (s *Server) writeErr(w http.ResponseWriter, err error, doing string) {
	code := gpucost.ErrorCode(err)
	msg := err.Error()
	if code == gpucost.EInternal {
		s.Log.Error(doing, "err", err)
		msg = doing + ": internal error; see the server log"
	}
	writeError(w, statusOf[code], code, msg)
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	var b ErrorBody
	b.Error.Code, b.Error.Message = code, msg
	writeJSON(w, status, b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}
