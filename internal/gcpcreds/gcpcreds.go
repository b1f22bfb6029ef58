// Package gcpcreds gets OAuth 2 access tokens for Google Cloud APIs as Application Default
// Credentials do (docs/architecture.md "Credentials"): the JSON file GOOGLE_APPLICATION_CREDENTIALS
// names, else the one "gcloud auth application-default login" wrote
// (~/.config/gcloud/application_default_credentials.json, under $CLOUDSDK_CONFIG when set), else
// the metadata server of the GCE VM, GKE pod or Cloud Run service gpucost runs on. A service
// account key signs a JWT exchanged at its token_uri; an authorized_user file's refresh token
// is exchanged at oauth2.googleapis.com; an external_account configuration's subject token
// (workload identity federation) is exchanged at the Security Token Service, then for an
// impersonated service account's. Requests are plain HTTP, made here.
package gcpcreds

import (
	"cmp"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost/internal/hooks"

	"github.com/gpucost/gpucost"
)

// ComputeScope is the scope gpucost asks for: listing, stopping and starting VMs.
const ComputeScope = "https://www.googleapis.com/auth/compute"

// DefaultTokenURL is Google's OAuth 2 token endpoint.
const DefaultTokenURL = "https://oauth2.googleapis.com/token"

// Chain returns an access token from the first source of Application Default Credentials
// that is configured, and keeps it until a minute before it expires.
type Chain struct {
	Getenv func(string) string // the environment; nothing set when nil
	Scope  string              // ComputeScope when empty
	HTTP   *http.Client        // a client with a one-minute timeout when nil
	Now    func() time.Time    // time.Now when nil
	// TokenURL replaces DefaultTokenURL for authorized_user files; MetadataHost replaces
	// metadata.google.internal (GCE_METADATA_HOST too).
	TokenURL, MetadataHost string

	mu      sync.Mutex
	token   string
	expires time.Time
	source  string
}

var errNotSet = errors.New("not set")

// ErrNone is in the error of a chain none of whose sources is configured, so that a caller
// with another way in (an API key, a mirror) can tell it from a source that failed.
var ErrNone = errors.New("no Google Cloud credentials")

// Token returns a current access token. When no source is configured its EInvalid error lists
// the sources tried and what to set.
func (c *Chain) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.now().Add(time.Minute).Before(c.expires) {
		return c.token, nil
	}
	tok, err := c.retrieve(ctx)
	if err != nil {
		return "", err
	}
	c.token, c.expires = tok.AccessToken, c.now().Add(time.Duration(tok.ExpiresIn)*time.Second)
	return c.token, nil
}

// Source says where the last token came from, for logs; it holds no secret.
func (c *Chain) Source() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.source
}

// tokenAnswer is an OAuth 2 token endpoint's, and the metadata server's, answer.
type tokenAnswer struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int64  `json:"expires_in"`
}

func (c *Chain) retrieve(ctx context.Context) (tokenAnswer, error) {
	var tried []string
	if p := c.getenv("GOOGLE_APPLICATION_CREDENTIALS"); p != "" {
		tok, err := c.fromFile(ctx, p)
		return tok, wrap("GOOGLE_APPLICATION_CREDENTIALS "+p, err)
	}
	tried = append(tried, "GOOGLE_APPLICATION_CREDENTIALS")
	if p := c.gcloudFile(); p != "" {
		tok, err := c.fromFile(ctx, p)
		if !errors.Is(err, os.ErrNotExist) {
			return tok, wrap(p, err)
		}
		tried = append(tried, p)
	}
	tok, err := c.metadata(ctx)
	if !errors.Is(err, errNotSet) {
		return tok, wrap("the GCE metadata server", err)
	}
	tried = append(tried, "the GCE metadata server")
	return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "%w; tried %s. Run gcloud auth application-default login, "+
		"set GOOGLE_APPLICATION_CREDENTIALS to a service account key file, run on GCE or GKE with a service account, or set GPUCOST_GCE_TOKEN", ErrNone, strings.Join(tried, ", "))
}

// wrap names the source of an error; a gpucost error keeps its code, others are EUnavailable.
func wrap(source string, err error) error {
	if err == nil {
		return nil
	}
	code := gpucost.EUnavailable
	var e *gpucost.Error
	if errors.As(err, &e) {
		code = e.Code
	}
	return gpucost.Errorf(code, "Google Cloud credentials from %s: %w", source, err)
}

func (c *Chain) gcloudFile() string {
	if d := c.getenv("CLOUDSDK_CONFIG"); d != "" {
		return filepath.Join(d, "application_default_credentials.json")
	}
	if h := c.getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "gcloud", "application_default_credentials.json")
	}
	return ""
}

// credentialsFile is the part of a credentials JSON file that is read.
type credentialsFile struct {
	Type string `json:"type"`
	// service_account
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
	// authorized_user
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	RefreshToken string `json:"refresh_token"`
}

func (c *Chain) fromFile(ctx context.Context, path string) (tokenAnswer, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return tokenAnswer{}, err
	}
	var f credentialsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "not a credentials JSON file: %v", err)
	}
	switch f.Type {
	case "service_account":
		assertion, err := c.jwt(f)
		if err != nil {
			return tokenAnswer{}, err
		}
		c.source = "service account " + f.ClientEmail
		return c.exchange(ctx, cmp.Or(f.TokenURI, DefaultTokenURL), url.Values{
			"grant_type": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "assertion": {assertion}})
	case "authorized_user":
		if f.RefreshToken == "" || f.ClientID == "" {
			return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "authorized_user file without client_id or refresh_token; run gcloud auth application-default login again")
		}
		c.source = "gcloud application-default login"
		return c.exchange(ctx, cmp.Or(c.TokenURL, DefaultTokenURL), url.Values{"grant_type": {"refresh_token"},
			"client_id": {f.ClientID}, "client_secret": {f.ClientSecret}, "refresh_token": {f.RefreshToken}})
	case "external_account":
		return c.external(ctx, b)
	}
	return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "credentials of type %q are not read by gpucost; use a service_account key, "+
		"an external_account configuration (workload identity federation) or gcloud auth application-default login", f.Type)
}

// jwt signs the service account's assertion: RS256 over the header and claims, one hour long.
func (c *Chain) jwt(f credentialsFile) (string, error) {
	block, _ := pem.Decode([]byte(f.PrivateKey))
	if block == nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "service account %s: private_key is not PEM", f.ClientEmail)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		parsed, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	}
	key, ok := parsed.(*rsa.PrivateKey)
	if err != nil || !ok {
		return "", gpucost.Errorf(gpucost.EInvalid, "service account %s: private_key is not an RSA key", f.ClientEmail)
	}
	now := c.now().Unix()
	enc := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	head := map[string]string{"alg": "RS256", "typ": "JWT"}
	if f.PrivateKeyID != "" {
		head["kid"] = f.PrivateKeyID
	}
	claims := map[string]any{"iss": f.ClientEmail, "scope": c.scope(), "aud": cmp.Or(f.TokenURI, DefaultTokenURL), "iat": now, "exp": now + 3600}
	signing := enc(head) + "." + enc(claims)
	sum := sha256.Sum256([]byte(signing))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		return "", err
	}
	return signing + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// exchange posts form to a token endpoint.
func (c *Chain) exchange(ctx context.Context, endpoint string, form url.Values) (tokenAnswer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return tokenAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return do(c.http(), req)
}

// metadata asks the metadata server for the default service account's token. No answer means
// gpucost is not on Google Cloud: errNotSet.
func (c *Chain) metadata(ctx context.Context) (tokenAnswer, error) {
	host := cmp.Or(c.MetadataHost, c.getenv("GCE_METADATA_HOST"), "metadata.google.internal")
	u := "http://" + host + "/computeMetadata/v1/instance/service-accounts/default/token?" + url.Values{"scopes": {c.scope()}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return tokenAnswer{}, err
	}
	req.Header.Set("Metadata-Flavor", "Google")
	res, err := (&http.Client{Timeout: 3 * time.Second}).Do(req)
	if err != nil {
		return tokenAnswer{}, fmt.Errorf("%w (%v)", errNotSet, err)
	}
	defer res.Body.Close()
	if res.Header.Get("Metadata-Flavor") != "Google" {
		return tokenAnswer{}, fmt.Errorf("%w (%s answered without Metadata-Flavor: Google)", errNotSet, host)
	}
	c.source = "GCE metadata server"
	return read(req, res)
}

// do sends req and reads a token answer.
func do(hc *http.Client, req *http.Request) (tokenAnswer, error) {
	res, err := hc.Do(req)
	if err != nil {
		return tokenAnswer{}, err
	}
	defer res.Body.Close()
	return read(req, res)
}

// read reads a token answer; a refusal's body (an OAuth error, never a secret) is in the
// error.
func read(req *http.Request, res *http.Response) (tokenAnswer, error) {
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return tokenAnswer{}, err
	}
	if res.StatusCode != http.StatusOK {
		code := gpucost.EUnavailable
		if res.StatusCode/100 == 4 {
			code = gpucost.EInvalid
		}
		return tokenAnswer{}, gpucost.Errorf(code, "%s answered HTTP %d: %s", req.URL.Host, res.StatusCode, strings.TrimSpace(string(b[:min(len(b), 300)])))
	}
	var t tokenAnswer
	if err := json.Unmarshal(b, &t); err != nil || t.AccessToken == "" {
		return tokenAnswer{}, fmt.Errorf("%s answered without an access_token", req.URL.Host)
	}
	return t, nil
}

func (c *Chain) scope() string { return cmp.Or(c.Scope, ComputeScope) }

func (c *Chain) getenv(k string) string { return hooks.Getenv(c.Getenv, k) }
func (c *Chain) now() time.Time         { return hooks.Now(c.Now) }
func (c *Chain) http() *http.Client     { return hooks.HTTP(c.HTTP) }
