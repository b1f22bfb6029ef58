package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/server"
)

func TestServeSecurityFlagsRefused(t *testing.T) {
	db := filepath.Join(t.TempDir(), "g.db")
	for _, c := range []struct {
		name string
		args []string
		says string
	}{
		{"cert without key", []string{"--tls-cert", "c.pem"}, "--tls-cert and --tls-key together"},
		{"missing cert files", []string{"--tls-cert", "c.pem", "--tls-key", "k.pem"}, "PEM certificate chain"},
		{"burst under one push", []string{"--ingest-burst", "10"}, "--ingest-burst 10"},
		{"negative rate", []string{"--bill-rate", "-1"}, "cannot be negative"},
		{"bad proxy", []string{"--trusted-proxy", "lb.internal"}, `trusted proxy "lb.internal"`},
	} {
		code, _, stderr := runCLIDB(t, db, append([]string{"serve", "--listen", "127.0.0.1:0"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.says) {
			t.Errorf("gpucost serve %s = exit %d, %q; want 2 saying %q", strings.Join(c.args, " "), code, stderr, c.says)
		}
	}
}

// TestServeTLSEndToEnd runs gpucost serve with --tls-cert and --tls-key of a certificate made
// here and fetches the login page over HTTPS: its cookie is Secure.
func TestServeTLSEndToEnd(t *testing.T) {
	dir := t.TempDir()
	certFile, keyFile, roots := testCertificate(t, dir)
	o := serveOptions{flush: time.Second, viewsEvery: defaultViewsEvery}
	o.security.flags = server.SecuritySettings{TLSCert: certFile, TLSKey: keyFile, IngestRate: httpapi.DefaultIngestRate,
		IngestBurst: httpapi.DefaultIngestBurst, AuthFailures: httpapi.DefaultAuthFailures}
	if err := o.security.load(); err != nil {
		t.Fatal(err)
	}
	logs := &lockedBuffer{}
	e := liveEnv(filepath.Join(dir, "g.db"), logs, func(string) string { return "" })
	db, err := e.openDB(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- e.serve(ctx, db, ln, o) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		db.Close()
	}()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	res, err := client.Get("https://" + ln.Addr().String() + "/login")
	if err != nil {
		t.Fatalf("GET https /login: %v\n%s", err, logs)
	}
	res.Body.Close()
	secure := false
	for _, c := range res.Cookies() {
		secure = secure || c.Secure
	}
	if res.StatusCode != 200 || res.TLS == nil || !secure {
		t.Errorf("GET https /login = %d, TLS %v, Secure cookie %v; want 200 over TLS with a Secure cookie", res.StatusCode, res.TLS != nil, secure)
	}
}

// testCertificate writes a self-signed certificate for 127.0.0.1 and its key to dir.
func testCertificate(t *testing.T, dir string) (certFile, keyFile string, roots *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	kder, _ := x509.MarshalPKCS8PrivateKey(key)
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	roots = x509.NewCertPool()
	roots.AddCert(cert)
	return certFile, keyFile, roots
}
