package server

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
)

// TestSecuritySettings checks what serve's flags give the server: the limits, a second per
// token, 0 turning one off, and the proxies; TestSecurityApplied checks how it sets them.
func TestSecuritySettings(t *testing.T) {
	s := SecuritySettings{IngestRate: 100, IngestBurst: httpapi.MaxSamplesPerRequest, BillRate: 7200, BillBurst: 3,
		AuthFailures: 0, TrustedProxies: "10.0.0.0/8"}
	sec, err := s.Security()
	if err != nil {
		t.Fatalf("Security() = %v", err)
	}
	if sec.IngestLimit != (httpapi.Limit{Rate: 100, Burst: httpapi.MaxSamplesPerRequest}) || sec.BillLimit != (httpapi.Limit{Rate: 2, Burst: 3}) {
		t.Errorf("limits = %+v, %+v; want 100/s burst %d, 2/s burst 3", sec.IngestLimit, sec.BillLimit, httpapi.MaxSamplesPerRequest)
	}
	if sec.AuthFailures >= 0 {
		t.Errorf("auth failures = %d; want the throttle off (--max-auth-failures 0)", sec.AuthFailures)
	}
	if len(sec.TrustedProxies) != 1 || sec.TLS != nil {
		t.Errorf("proxies %v, TLS %v; want 10.0.0.0/8 and plain HTTP", sec.TrustedProxies, sec.TLS)
	}
	off, err := SecuritySettings{AuthFailures: 7}.Security()
	if err != nil || off.IngestLimit.Rate != -1 || off.BillLimit.Rate != -1 || off.AuthFailures != 7 {
		t.Errorf("rates 0: Security() = %+v, %v; want both limits off (Rate -1) and 7 failures", off, err)
	}
}

func TestSecuritySettingsRefused(t *testing.T) {
	ok := SecuritySettings{IngestRate: 1, IngestBurst: httpapi.MaxSamplesPerRequest, BillRate: 1, BillBurst: 1}
	for _, c := range []struct {
		name string
		edit func(*SecuritySettings)
		says string
	}{
		{"negative rate", func(s *SecuritySettings) { s.BillRate = -1 }, "cannot be negative"},
		{"negative failures", func(s *SecuritySettings) { s.AuthFailures = -1 }, "cannot be negative"},
		{"burst under one push", func(s *SecuritySettings) { s.IngestBurst = 10 }, "--ingest-burst 10: give at least"},
		{"no bill burst", func(s *SecuritySettings) { s.BillBurst = 0 }, "--bill-burst 0: give at least 1"},
		{"cert without key", func(s *SecuritySettings) { s.TLSCert = "c.pem" }, "give --tls-cert and --tls-key together"},
		{"key without cert", func(s *SecuritySettings) { s.TLSKey = "k.pem" }, "give --tls-cert and --tls-key together"},
		{"bad proxy", func(s *SecuritySettings) { s.TrustedProxies = "lb.internal" }, `--trusted-proxy: `},
	} {
		s := ok
		c.edit(&s)
		_, err := s.Security()
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Security() = %v; want invalid saying %q", c.name, err, c.says)
		}
	}
	if _, err := (SecuritySettings{IngestBurst: 10}).Security(); err != nil {
		t.Errorf("burst 10 with no ingest limit: Security() = %v; the burst matters only with a rate", err)
	}
}
