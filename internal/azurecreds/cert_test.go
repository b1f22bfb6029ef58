package azurecreds

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/pkcs12"
)

// certEndpoint is Entra ID's token endpoint for a service principal with a certificate: it
// verifies the client assertion's RS256 signature with the certificate's public key and checks
// its header and every claim.
type certEndpoint struct {
	t      *testing.T
	srv    *httptest.Server
	cert   *x509.Certificate
	x5c    []*x509.Certificate // the chain the header must carry; none when nil
	jtis   map[string]bool
	now    time.Time // the assertion's nbf and iat
	tokens int
}

func newCertEndpoint(t *testing.T, cert *x509.Certificate) *certEndpoint {
	f := &certEndpoint{t: t, cert: cert, jtis: map[string]bool{}, now: testNow}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

var uuid4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func (f *certEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	r.ParseForm()
	form := r.PostForm
	want := map[string]string{"grant_type": "client_credentials", "scope": Scope, "client_id": "app-1",
		"client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}
	for k, v := range want {
		if form.Get(k) != v {
			t.Errorf("token request %s = %q, want %q", k, form.Get(k), v)
		}
	}
	if r.URL.Path != "/tenant-1/oauth2/v2.0/token" || form.Has("client_secret") || len(form) != 5 {
		t.Errorf("token request %s %v; want the tenant's v2.0 endpoint and exactly %v with client_assertion", r.URL.Path, form, want)
	}
	parts := strings.Split(form.Get("client_assertion"), ".")
	if len(parts) != 3 {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		t.Fatalf("client_assertion has %d parts, want a JWS's 3", len(parts))
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(f.cert.PublicKey.(*rsa.PublicKey), crypto.SHA256, sum[:], sig); err != nil {
		t.Errorf("client_assertion's signature does not verify with the certificate's key: %v", err)
	}
	var head map[string]any
	var claims map[string]any
	decode := func(s string, v any) {
		b, err := base64.RawURLEncoding.DecodeString(s)
		if err != nil || json.Unmarshal(b, v) != nil {
			t.Errorf("JWT part %q: %v", s, err)
		}
	}
	decode(parts[0], &head)
	decode(parts[1], &claims)
	s1, s256 := sha1.Sum(f.cert.Raw), sha256.Sum256(f.cert.Raw)
	wantHead := map[string]any{"alg": "RS256", "typ": "JWT", "x5t": base64.RawURLEncoding.EncodeToString(s1[:]),
		"x5t#S256": base64.RawURLEncoding.EncodeToString(s256[:])}
	if f.x5c != nil {
		var x5c []any
		for _, c := range f.x5c {
			x5c = append(x5c, base64.StdEncoding.EncodeToString(c.Raw))
		}
		wantHead["x5c"] = x5c
	}
	if !reflect.DeepEqual(head, wantHead) {
		t.Errorf("JWT header = %v, want %v", head, wantHead)
	}
	jti, _ := claims["jti"].(string)
	if !uuid4.MatchString(jti) || f.jtis[jti] {
		t.Errorf("jti = %q: want a fresh version 4 UUID", jti)
	}
	f.jtis[jti] = true
	delete(claims, "jti")
	now := float64(f.now.Unix())
	wantClaims := map[string]any{"aud": f.srv.URL + "/tenant-1/oauth2/v2.0/token", "iss": "app-1", "sub": "app-1", "nbf": now, "iat": now, "exp": now + 600}
	if !reflect.DeepEqual(claims, wantClaims) {
		t.Errorf("JWT claims = %v, want %v and a jti", claims, wantClaims)
	}
	f.tokens++
	fmt.Fprintf(w, `{"token_type":"Bearer","expires_in":3599,"access_token":"arm-cert-%d"}`, f.tokens)
}

// testCert returns a self-signed RSA certificate, and its key, for a service principal; with a
// parent, one it signs.
func testCert(t *testing.T, cn string, parent *x509.Certificate, parentKey *rsa.PrivateKey) (*x509.Certificate, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: cn},
		NotBefore: testNow.Add(-time.Hour), NotAfter: testNow.AddDate(1, 0, 0), IsCA: parent == nil, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return cert, key
}

func writePEM(t *testing.T, blocks ...*pem.Block) string {
	t.Helper()
	var b []byte
	for _, bl := range blocks {
		b = append(b, pem.EncodeToMemory(bl)...)
	}
	p := filepath.Join(t.TempDir(), "sp.pem")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func certChain(url string, env ...string) *Chain {
	m := map[string]string{"AZURE_TENANT_ID": "tenant-1", "AZURE_CLIENT_ID": "app-1"}
	for i := 0; i+1 < len(env); i += 2 {
		m[env[i]] = env[i+1]
	}
	return &Chain{Getenv: func(k string) string { return m[k] }, AuthorityHost: url, IMDSEndpoint: "http://127.0.0.1:1",
		Now: func() time.Time { return testNow }, RunCLI: func(context.Context, ...string) ([]byte, error) { return nil, fmt.Errorf("az must not run") }}
}

// TestCertificatePEM: a PEM file's key signs the client assertion (PKCS#8 and PKCS#1 keys, the
// certificate before or after the key, a CA certificate beside it); with
// AZURE_CLIENT_SEND_CERTIFICATE_CHAIN the header carries the chain, leaf first.
func TestCertificatePEM(t *testing.T) {
	ca, caKey := testCert(t, "gpucost-test-ca", nil, nil)
	leaf, key := testCert(t, "gpucost-test-sp", ca, caKey)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(key)
	for _, c := range []struct {
		name  string
		file  []*pem.Block
		chain bool
	}{
		{"PKCS#8 key after the certificate", []*pem.Block{{Type: "CERTIFICATE", Bytes: leaf.Raw}, {Type: "PRIVATE KEY", Bytes: pkcs8}}, false},
		{"PKCS#1 key first, CA certificate first", []*pem.Block{{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)},
			{Type: "CERTIFICATE", Bytes: ca.Raw}, {Type: "CERTIFICATE", Bytes: leaf.Raw}}, false},
		{"chain sent", []*pem.Block{{Type: "CERTIFICATE", Bytes: leaf.Raw}, {Type: "CERTIFICATE", Bytes: ca.Raw}, {Type: "PRIVATE KEY", Bytes: pkcs8}}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newCertEndpoint(t, leaf)
			env := []string{"AZURE_CLIENT_CERTIFICATE_PATH", writePEM(t, c.file...)}
			if c.chain {
				f.x5c = []*x509.Certificate{leaf, ca}
				env = append(env, "AZURE_CLIENT_SEND_CERTIFICATE_CHAIN", "true")
			}
			ch := certChain(f.srv.URL, env...)
			tok, err := ch.Token(context.Background())
			if err != nil || tok != "arm-cert-1" {
				t.Fatalf("Token() = %q, %v; want arm-cert-1", tok, err)
			}
			if tok, err := ch.Token(context.Background()); err != nil || tok != "arm-cert-1" {
				t.Errorf("Token() again = %q, %v; want arm-cert-1 kept", tok, err)
			}
			f.now = testNow.Add(2 * time.Hour)
			ch.Now = func() time.Time { return f.now }
			if tok, err := ch.Token(context.Background()); err != nil || tok != "arm-cert-2" {
				t.Errorf("Token() two hours on = %q, %v; want arm-cert-2 from a new assertion", tok, err)
			}
		})
	}
}

// TestCertificatePKCS12: PKCS#12 files open with AZURE_CLIENT_CERTIFICATE_PASSWORD and their
// key signs the assertion: the legacy kind (3DES, SHA-1 MAC), OpenSSL 3's default (PBES2 with
// AES-256 and a SHA-256 MAC), AES-128 with a SHA-1 MAC, and an unencrypted one without a
// password; a wrong or missing password, and a file that is not PKCS#12, are refused with what
// to do.
func TestCertificatePKCS12(t *testing.T) {
	b, err := os.ReadFile("testdata/sp-legacy.p12")
	if err != nil {
		t.Fatal(err)
	}
	_, cert, err := pkcs12.Decode(b, "test-pfx-password")
	if err != nil {
		t.Fatalf("testdata/sp-legacy.p12: %v", err)
	}
	f := newCertEndpoint(t, cert)
	for i, c := range []struct{ file, password string }{
		{"testdata/sp-legacy.p12", "test-pfx-password"},
		{"testdata/sp-aes.p12", "test-pfx-password"},
		{"testdata/sp-aes128-sha1mac.p12", "test-pfx-password"},
		{"testdata/sp-nopass.p12", ""},
	} {
		tok, err := certChain(f.srv.URL, "AZURE_CLIENT_CERTIFICATE_PATH", c.file, "AZURE_CLIENT_CERTIFICATE_PASSWORD", c.password).Token(context.Background())
		if want := fmt.Sprintf("arm-cert-%d", i+1); err != nil || tok != want {
			t.Errorf("Token() with %s = %q, %v; want %s", c.file, tok, err, want)
		}
	}
	notP12 := filepath.Join(t.TempDir(), "sp.p12")
	os.WriteFile(notP12, []byte("\x30\x03\x02\x01\x03 not DER"), 0o600)
	for _, c := range []struct {
		name, file, password, want string
	}{
		{"wrong password, legacy", "testdata/sp-legacy.p12", "nope", "does not open"},
		{"wrong password, AES", "testdata/sp-aes.p12", "nope", "does not open"},
		{"no password, legacy", "testdata/sp-legacy.p12", "", "set AZURE_CLIENT_CERTIFICATE_PASSWORD"},
		{"no password, AES", "testdata/sp-aes.p12", "", "set AZURE_CLIENT_CERTIFICATE_PASSWORD"},
		{"not PKCS#12", notP12, "x", "openssl pkcs12 -in FILE -nodes"},
	} {
		_, err := certChain(f.srv.URL, "AZURE_CLIENT_CERTIFICATE_PATH", c.file, "AZURE_CLIENT_CERTIFICATE_PASSWORD", c.password).Token(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "test-pfx-password") {
			t.Errorf("%s: Token() = %v, want an error saying %q and never the password", c.name, err, c.want)
		}
	}
	if f.tokens != 4 {
		t.Errorf("the token endpoint was asked %d times, want 4", f.tokens)
	}
}

// TestCertificateRefusals: files without what is needed, and a certificate without its
// tenant, end the chain with what to fix; a secret wins over a certificate, as in
// DefaultAzureCredential.
func TestCertificateRefusals(t *testing.T) {
	leaf, key := testCert(t, "gpucost-test-sp", nil, nil)
	other, _ := testCert(t, "someone-else", nil, nil)
	pkcs8, _ := x509.MarshalPKCS8PrivateKey(key)
	f := newCertEndpoint(t, leaf)
	for _, c := range []struct {
		name string
		env  []string
		want string
	}{
		{"no key", []string{"AZURE_CLIENT_CERTIFICATE_PATH", writePEM(t, &pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw})}, "no private key"},
		{"not the key's certificate", []string{"AZURE_CLIENT_CERTIFICATE_PATH",
			writePEM(t, &pem.Block{Type: "CERTIFICATE", Bytes: other.Raw}, &pem.Block{Type: "PRIVATE KEY", Bytes: pkcs8})}, "none of its certificates"},
		{"encrypted PEM key", []string{"AZURE_CLIENT_CERTIFICATE_PATH",
			writePEM(t, &pem.Block{Type: "CERTIFICATE", Bytes: leaf.Raw}, &pem.Block{Type: "ENCRYPTED PRIVATE KEY", Bytes: []byte{1}})}, "encrypted"},
		{"no tenant", []string{"AZURE_TENANT_ID", "", "AZURE_CLIENT_CERTIFICATE_PATH", "x.pem"}, "needs AZURE_TENANT_ID"},
		{"missing file", []string{"AZURE_CLIENT_CERTIFICATE_PATH", filepath.Join(t.TempDir(), "none.pem")}, "no such file"},
	} {
		_, err := certChain(f.srv.URL, c.env...).Token(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "AZURE_CLIENT_CERTIFICATE_PATH") {
			t.Errorf("%s: Token() = %v, want an error naming AZURE_CLIENT_CERTIFICATE_PATH and %q", c.name, err, c.want)
		}
	}
	if f.tokens != 0 {
		t.Errorf("the token endpoint was asked %d times, want never", f.tokens)
	}
	fa := newFakeAzure(t)
	ch := &Chain{Getenv: func(k string) string {
		return map[string]string{"AZURE_TENANT_ID": "tenant-1", "AZURE_CLIENT_ID": "app-1", "AZURE_CLIENT_SECRET": "sp-secret", "AZURE_CLIENT_CERTIFICATE_PATH": "unread.pem"}[k]
	}, AuthorityHost: fa.srv.URL, Now: func() time.Time { return testNow }}
	if tok, err := ch.Token(context.Background()); err != nil || tok != "arm-sp" || !reflect.DeepEqual(fa.calls, []string{"secret"}) {
		t.Errorf("Token() with a secret and a certificate = %q, %v, calls %v; want the secret's", tok, err, fa.calls)
	}
}
