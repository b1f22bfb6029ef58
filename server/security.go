package server

import (
	"crypto/tls"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/web"
)

// Security is a server's per-token rate limits, its throttle of failed logins and token checks,
// TLS and the proxies it trusts.
type Security struct {
	IngestLimit    httpapi.Limit // samples a second per token; Rate -1: none
	BillLimit      httpapi.Limit // bill uploads a second per token; Rate -1: none
	AuthFailures   int           // failed logins and token checks in a row per source address; -1: no throttle
	TLS            *tls.Config   // nil: plain HTTP
	TrustedProxies httpapi.TrustedProxies
}

// apply sets s on the server and its dashboard, which share one throttle, and gives the
// dashboard st's revoked sessions. A nil s leaves httpapi's defaults.
func (s *Security) apply(srv *httpapi.Server, d *web.Dashboard, st gpucost.SessionStore) {
	d.Sessions = st
	srv.AuthThrottle = &httpapi.Throttle{}
	d.Throttle = srv.AuthThrottle
	if s == nil {
		return
	}
	srv.IngestLimit, srv.BillLimit = s.IngestLimit, s.BillLimit
	srv.AuthThrottle.Failures = s.AuthFailures
	srv.TrustedProxies, srv.TLS = s.TrustedProxies, s.TLS
}
