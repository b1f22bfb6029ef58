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

// SecuritySettings are the security settings as serve's flags give them, where 0 turns a limit
// off; Security checks them and turns them into the server's Security.
type SecuritySettings struct {
	IngestRate     float64 // --ingest-rate: samples a second per token; 0: no limit
	IngestBurst    int     // --ingest-burst
	BillRate       float64 // --bill-rate: uploads an hour per token; 0: no limit
	BillBurst      int     // --bill-burst
	AuthFailures   int     // --max-auth-failures: in a row per source address; 0: no throttle
	TLSCert        string  // --tls-cert: a PEM certificate chain, with TLSKey
	TLSKey         string  // --tls-key
	TrustedProxies string  // --trusted-proxy: CIDR[,CIDR]
}

// Security checks s (no negative limit, an ingest burst that lets the largest push through,
// a certificate and key together) and returns the server's Security, reading the TLS files.
// Its errors are gpucost.EInvalid and name the flag to change.
func (s SecuritySettings) Security() (*Security, error) {
	if s.IngestRate < 0 || s.IngestBurst < 0 || s.BillRate < 0 || s.BillBurst < 0 || s.AuthFailures < 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--ingest-rate, --ingest-burst, --bill-rate, --bill-burst and --max-auth-failures cannot be negative; 0 turns a limit off")
	}
	if s.IngestRate > 0 && s.IngestBurst < httpapi.MaxSamplesPerRequest {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--ingest-burst %d: give at least %d, the samples one push may carry, or no push that large could pass", s.IngestBurst, httpapi.MaxSamplesPerRequest)
	}
	if s.BillRate > 0 && s.BillBurst < 1 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--bill-burst %d: give at least 1, or no upload could pass", s.BillBurst)
	}
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return nil, gpucost.Errorf(gpucost.EInvalid, "give --tls-cert and --tls-key together")
	}
	sec := &Security{IngestLimit: limit(s.IngestRate, s.IngestBurst), BillLimit: limit(s.BillRate/3600, s.BillBurst),
		AuthFailures: s.AuthFailures}
	if sec.AuthFailures == 0 {
		sec.AuthFailures = -1
	}
	var err error
	if s.TLSCert != "" {
		if sec.TLS, err = httpapi.LoadTLS(s.TLSCert, s.TLSKey); err != nil {
			return nil, err
		}
	}
	if sec.TrustedProxies, err = httpapi.ParseTrustedProxies(s.TrustedProxies); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--trusted-proxy: %w", err)
	}
	return sec, nil
}

// limit is a per-token limit of rate a second with burst; rate 0 is no limit.
func limit(rate float64, burst int) httpapi.Limit {
	if rate == 0 {
		return httpapi.Limit{Rate: -1}
	}
	return httpapi.Limit{Rate: rate, Burst: burst}
}
