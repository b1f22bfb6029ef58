package gcpcreds

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var testNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// fakeGoogle is the OAuth 2 token endpoint and the metadata server. It checks each request
// exactly: the JWT's signature and claims, the refresh token's form, the metadata header.
type fakeGoogle struct {
	t     *testing.T
	srv   *httptest.Server
	key   *rsa.PrivateKey
	calls []string
}

func newFakeGoogle(t *testing.T) *fakeGoogle {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeGoogle{t: t, key: key}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGoogle) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	switch r.URL.Path {
	case "/token":
		r.ParseForm()
		switch g := r.PostForm.Get("grant_type"); g {
		case "urn:ietf:params:oauth:grant-type:jwt-bearer":
			f.calls = append(f.calls, "jwt")
			f.checkJWT(r.PostForm.Get("assertion"))
			fmt.Fprint(w, `{"access_token":"ya29.sa","expires_in":3599,"token_type":"Bearer"}`)
		case "refresh_token":
			f.calls = append(f.calls, "refresh")
			if r.PostForm.Get("refresh_token") != "1//refresh" || r.PostForm.Get("client_id") != "cid.apps.googleusercontent.com" || r.PostForm.Get("client_secret") != "csecret" {
				t.Errorf("refresh form %v", r.PostForm)
			}
			fmt.Fprint(w, `{"access_token":"ya29.user","expires_in":3599}`)
		default:
			t.Errorf("grant_type %q", g)
			http.Error(w, `{"error":"unsupported_grant_type"}`, http.StatusBadRequest)
		}
	case "/computeMetadata/v1/instance/service-accounts/default/token":
		f.calls = append(f.calls, "metadata")
		if r.Header.Get("Metadata-Flavor") != "Google" || r.URL.Query().Get("scopes") != ComputeScope {
			t.Errorf("metadata request %s Metadata-Flavor %q", r.URL, r.Header.Get("Metadata-Flavor"))
		}
		w.Header().Set("Metadata-Flavor", "Google")
		fmt.Fprint(w, `{"access_token":"ya29.vm","expires_in":3599,"token_type":"Bearer"}`)
	case "/revoked":
		http.Error(w, `{"error":"invalid_grant","error_description":"Token has been expired or revoked."}`, http.StatusBadRequest)
	default:
		t.Errorf("unexpected request %s", r.URL)
		http.NotFound(w, r)
	}
}

// checkJWT verifies the assertion with the service account's public key and wants the claims
// Google requires.
func (f *fakeGoogle) checkJWT(jwt string) {
	t := f.t
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Errorf("assertion %q is not a JWT", jwt)
		return
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&f.key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		t.Errorf("JWT signature: %v", err)
	}
	var head map[string]string
	var claims map[string]any
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	c, _ := base64.RawURLEncoding.DecodeString(parts[1])
	json.Unmarshal(h, &head)
	json.Unmarshal(c, &claims)
	if head["alg"] != "RS256" || head["typ"] != "JWT" || head["kid"] != "key-1" {
		t.Errorf("JWT header %v", head)
	}
	want := map[string]any{"iss": "gpucost@proj.iam.gserviceaccount.com", "scope": ComputeScope, "aud": f.srv.URL + "/token",
		"iat": float64(testNow.Unix()), "exp": float64(testNow.Unix() + 3600)}
	for k, v := range want {
		if claims[k] != v {
			t.Errorf("JWT claim %s = %v, want %v", k, claims[k], v)
		}
	}
}

func (f *fakeGoogle) files(t *testing.T) (saFile, userFile, home string) {
	dir := t.TempDir()
	der, _ := x509.MarshalPKCS8PrivateKey(f.key)
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "gpucost@proj.iam.gserviceaccount.com",
		"private_key_id": "key-1", "private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "token_uri": f.srv.URL + "/token"})
	saFile = filepath.Join(dir, "sa.json")
	os.WriteFile(saFile, sa, 0o600)
	home = filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, ".config", "gcloud"), 0o700)
	userFile = filepath.Join(home, ".config", "gcloud", "application_default_credentials.json")
	os.WriteFile(userFile, []byte(`{"type":"authorized_user","client_id":"cid.apps.googleusercontent.com","client_secret":"csecret","refresh_token":"1//refresh"}`), 0o600)
	return saFile, userFile, home
}

// TestChain checks the order of Application Default Credentials and each source's request.
func TestChain(t *testing.T) {
	f := newFakeGoogle(t)
	saFile, _, home := f.files(t)
	host := strings.TrimPrefix(f.srv.URL, "http://")
	for _, c := range []struct {
		name  string
		env   map[string]string
		token string
		calls string
	}{
		{"GOOGLE_APPLICATION_CREDENTIALS beats gcloud", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": saFile, "HOME": home}, "ya29.sa", "jwt"},
		{"gcloud beats the metadata server", map[string]string{"HOME": home, "GCE_METADATA_HOST": host}, "ya29.user", "refresh"},
		{"CLOUDSDK_CONFIG", map[string]string{"CLOUDSDK_CONFIG": filepath.Join(home, ".config", "gcloud")}, "ya29.user", "refresh"},
		{"metadata server last", map[string]string{"HOME": t.TempDir(), "GCE_METADATA_HOST": host}, "ya29.vm", "metadata"},
	} {
		f.calls = nil
		ch := &Chain{Getenv: func(k string) string { return c.env[k] }, TokenURL: f.srv.URL + "/token", Now: func() time.Time { return testNow }}
		for range 2 {
			tok, err := ch.Token(context.Background())
			if err != nil || tok != c.token {
				t.Errorf("%s: Token() = %q, %v; want %q", c.name, tok, err, c.token)
			}
		}
		if got := strings.Join(f.calls, ","); got != c.calls {
			t.Errorf("%s: requests %q, want %q (the second Token() from the cache)", c.name, got, c.calls)
		}
	}
}

func TestChainErrors(t *testing.T) {
	f := newFakeGoogle(t)
	_, userFile, _ := f.files(t)
	bad := filepath.Join(t.TempDir(), "ext.json")
	os.WriteFile(bad, []byte(`{"type":"impersonated_service_account"}`), 0o600)
	for _, c := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"nothing", map[string]string{"HOME": t.TempDir(), "GCE_METADATA_HOST": "127.0.0.1:1"},
			[]string{"GOOGLE_APPLICATION_CREDENTIALS", "application_default_credentials.json", "metadata server", "gcloud auth application-default login"}},
		{"missing file", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": filepath.Join(t.TempDir(), "none.json")}, []string{"none.json"}},
		{"unsupported type", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": bad}, []string{`"impersonated_service_account"`}},
		{"refused refresh", map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": userFile}, []string{"HTTP 400", "invalid_grant"}},
	} {
		ch := &Chain{Getenv: func(k string) string { return c.env[k] }, TokenURL: f.srv.URL + "/revoked", Now: func() time.Time { return testNow }}
		_, err := ch.Token(context.Background())
		if err == nil {
			t.Errorf("%s: Token() = nil error", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Token() = %v; want it to mention %q", c.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "csecret") || strings.Contains(err.Error(), "1//refresh") {
			t.Errorf("%s: the error %q shows a secret", c.name, err)
		}
		if c.name == "nothing" && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("nothing: Token() = %v, want an %s error", err, gpucost.EInvalid)
		}
	}
}
