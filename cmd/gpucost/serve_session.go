package main

import (
	"crypto/tls"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/server"
	"github.com/spf13/cobra"
)

// serveSecurityOptions are gpucost serve's per-token rate limits, its throttle of failed
// logins and token checks, TLS and the proxies it trusts.
type serveSecurityOptions struct {
	ingestRate   float64 // --ingest-rate: samples a second per token; 0: no limit
	ingestBurst  int     // --ingest-burst
	billRate     float64 // --bill-rate: uploads an hour per token; 0: no limit
	billBurst    int     // --bill-burst
	authFailures int     // --max-auth-failures: in a row per source address; 0: no throttle
	tlsCert      string  // --tls-cert
	tlsKey       string  // --tls-key
	trustedProxy string  // --trusted-proxy: CIDR[,CIDR]

	loaded  bool // by load, from the flags; a zero serveSecurityOptions keeps the server's defaults
	tls     *tls.Config
	proxies httpapi.TrustedProxies
}

func (o *serveSecurityOptions) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.Float64Var(&o.ingestRate, "ingest-rate", httpapi.DefaultIngestRate, "samples a second each token may push, sustained (0: no limit); past it POST /api/v1/samples answers 429")
	f.IntVar(&o.ingestBurst, "ingest-burst", httpapi.DefaultIngestBurst, "samples each token may push at once above --ingest-rate")
	f.Float64Var(&o.billRate, "bill-rate", httpapi.DefaultBillRate, "bill uploads an hour each token may make, sustained (0: no limit)")
	f.IntVar(&o.billBurst, "bill-burst", httpapi.DefaultBillBurst, "bill uploads each token may make at once above --bill-rate")
	f.IntVar(&o.authFailures, "max-auth-failures", httpapi.DefaultAuthFailures, fmt.Sprintf(
		"failed logins and token checks a source address may make before it must wait, one more every %v (0: no throttle)", httpapi.DefaultAuthFailureRefill))
	f.StringVar(&o.tlsCert, "tls-cert", "", "serve HTTPS with this PEM certificate chain (with --tls-key)")
	f.StringVar(&o.tlsKey, "tls-key", "", "the PEM private key of --tls-cert")
	f.StringVar(&o.trustedProxy, "trusted-proxy", "", "CIDR[,CIDR] of proxies whose X-Forwarded-Proto and X-Forwarded-For are believed (a TLS-terminating load balancer)")
}

// load checks the flags and reads the TLS certificate.
func (o *serveSecurityOptions) load() error {
	if o.ingestRate < 0 || o.ingestBurst < 0 || o.billRate < 0 || o.billBurst < 0 || o.authFailures < 0 {
		return gpucost.Errorf(gpucost.EInvalid, "--ingest-rate, --ingest-burst, --bill-rate, --bill-burst and --max-auth-failures cannot be negative; 0 turns a limit off")
	}
	if o.ingestRate > 0 && o.ingestBurst < httpapi.MaxSamplesPerRequest {
		return gpucost.Errorf(gpucost.EInvalid, "--ingest-burst %d: give at least %d, the samples one push may carry, or no push that large could pass", o.ingestBurst, httpapi.MaxSamplesPerRequest)
	}
	if o.billRate > 0 && o.billBurst < 1 {
		return gpucost.Errorf(gpucost.EInvalid, "--bill-burst %d: give at least 1, or no upload could pass", o.billBurst)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return gpucost.Errorf(gpucost.EInvalid, "give --tls-cert and --tls-key together")
	}
	var err error
	if o.tlsCert != "" {
		if o.tls, err = httpapi.LoadTLS(o.tlsCert, o.tlsKey); err != nil {
			return err
		}
	}
	if o.proxies, err = httpapi.ParseTrustedProxies(o.trustedProxy); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--trusted-proxy: %w", err)
	}
	o.loaded = true
	return nil
}

// security is the server's security settings from the loaded flags, 0 turning a limit off; nil
// (httpapi's defaults) when they were not loaded.
func (o *serveSecurityOptions) security() *server.Security {
	if !o.loaded {
		return nil
	}
	limit := func(rate float64, burst int) httpapi.Limit {
		if rate == 0 {
			return httpapi.Limit{Rate: -1}
		}
		return httpapi.Limit{Rate: rate, Burst: burst}
	}
	failures := o.authFailures
	if failures == 0 {
		failures = -1
	}
	return &server.Security{IngestLimit: limit(o.ingestRate, o.ingestBurst), BillLimit: limit(o.billRate/3600, o.billBurst),
		AuthFailures: failures, TLS: o.tls, TrustedProxies: o.proxies}
}
