package httpapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func netipPrefix(t testing.TB, s string) netip.Prefix {
	t.Helper()
	p, err := netip.ParsePrefix(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := ParseTrustedProxies(" 10.0.0.0/8, 192.0.2.7,2001:db8::/32,10.1.2.3/16 ")
	want := []string{"10.0.0.0/8", "192.0.2.7/32", "2001:db8::/32", "10.1.0.0/16"}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseTrustedProxies = %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("ParseTrustedProxies[%d] = %v; want %s", i, got[i], want[i])
		}
	}
	if _, err := ParseTrustedProxies("10.0.0.0/8,proxy.internal"); err == nil {
		t.Errorf("ParseTrustedProxies(a host name) = nil error; want one")
	}
}

// TestOrigin checks which client address and scheme a request is taken to come from: the
// forwarded ones only from a trusted proxy.
func TestOrigin(t *testing.T) {
	proxies := TrustedProxies{netipPrefix(t, "10.0.0.0/8")}
	cases := []struct {
		name, peer, xff, proto string
		tls                    bool
		addr                   string
		secure                 bool
	}{
		{"direct", "192.0.2.1:4000", "", "", false, "192.0.2.1", false},
		{"direct TLS", "192.0.2.1:4000", "", "", true, "192.0.2.1", true},
		{"untrusted peer's headers ignored", "192.0.2.1:4000", "203.0.113.7", "https", false, "192.0.2.1", false},
		{"trusted proxy", "10.0.0.5:4000", "203.0.113.7", "https", false, "203.0.113.7", true},
		{"trusted proxy over http", "10.0.0.5:4000", "203.0.113.7", "http", false, "203.0.113.7", false},
		{"client's own X-Forwarded-For not believed", "10.0.0.5:4000", "198.51.100.1, 203.0.113.7", "https", false, "203.0.113.7", true},
		{"chain of trusted proxies", "10.0.0.5:4000", "203.0.113.7, 10.0.0.9", "https", false, "203.0.113.7", true},
		{"garbage hop stops the walk", "10.0.0.5:4000", "203.0.113.7, junk", "", false, "10.0.0.5", false},
		{"IPv4-mapped peer", "[::ffff:10.0.0.5]:4000", "203.0.113.7", "https", false, "203.0.113.7", true},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if c.proto != "" {
			r.Header.Set("X-Forwarded-Proto", c.proto)
		}
		if c.tls {
			r.TLS = &tls.ConnectionState{}
		}
		var addr string
		var secure bool
		proxies.withOrigin(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			addr, secure = ClientAddr(r), Secure(r)
		})).ServeHTTP(httptest.NewRecorder(), r)
		if addr != c.addr || secure != c.secure {
			t.Errorf("%s: ClientAddr, Secure = %s, %v; want %s, %v", c.name, addr, secure, c.addr, c.secure)
		}
	}
}

// selfSigned writes a self-signed certificate for 127.0.0.1 and its key to dir and returns
// their paths and the certificate.
func selfSigned(t testing.TB, dir string) (certFile, keyFile string, cert *x509.Certificate) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gpucost test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if cert, err = x509.ParseCertificate(der); err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600)
	os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kder}), 0o600)
	return certFile, keyFile, cert
}

// TestServeTLS serves HTTPS with a self-signed certificate made here and checks that a client
// trusting it is answered over TLS, and that plain HTTP is not served.
func TestServeTLS(t *testing.T) {
	f := newFixture(t)
	certFile, keyFile, cert := selfSigned(t, t.TempDir())
	cfg, err := LoadTLS(certFile, keyFile)
	if err != nil {
		t.Fatalf("LoadTLS: %v", err)
	}
	if _, err := LoadTLS(certFile, certFile); err == nil {
		t.Errorf("LoadTLS(cert as key) = nil error; want one")
	}
	srv := &Server{Tokens: f.db, Ingest: f.writer, TLS: cfg}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	roots := x509.NewCertPool()
	roots.AddCert(cert)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}}
	res, err := client.Get("https://" + ln.Addr().String() + "/healthz")
	if err != nil {
		t.Fatalf("GET https /healthz: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || res.TLS == nil || res.ProtoMajor != 2 {
		t.Errorf("GET https /healthz = %d over %s, TLS %v; want 200 over HTTP/2 and TLS", res.StatusCode, res.Proto, res.TLS != nil)
	}
	if res, err := http.Get("http://" + ln.Addr().String() + "/healthz"); err == nil {
		res.Body.Close()
		if res.StatusCode == 200 {
			t.Errorf("GET http /healthz on the TLS port = 200; want it refused")
		}
	}
}
