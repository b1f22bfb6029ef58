// Package azurecreds gets Azure Resource Manager access tokens as the Azure SDKs'
// DefaultAzureCredential does (docs/architecture.md "Credentials"): a service principal's
// secret from AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET, or its certificate
// (AZURE_CLIENT_CERTIFICATE_PATH, a signed client assertion), else workload identity
// (AZURE_FEDERATED_TOKEN_FILE, as AKS injects it), else the VM's managed identity through the
// instance metadata service, else the Azure CLI's login (az account get-access-token). The
// requests are plain HTTP, made here.
package azurecreds

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost/internal/hooks"

	"github.com/gpucost/gpucost"
)

// Resource is Azure Resource Manager's; Scope the same as a v2.0 endpoint scope.
const (
	Resource = "https://management.azure.com/"
	Scope    = "https://management.azure.com/.default"
)

// Chain returns an ARM access token from the first configured source, and keeps it until
// a minute before it expires.
type Chain struct {
	Getenv func(string) string // the environment; nothing set when nil
	HTTP   *http.Client        // a client with a one-minute timeout when nil
	Now    func() time.Time    // time.Now when nil
	// AuthorityHost replaces https://login.microsoftonline.com (AZURE_AUTHORITY_HOST too);
	// IMDSEndpoint replaces http://169.254.169.254.
	AuthorityHost, IMDSEndpoint string
	// RunCLI runs the Azure CLI and returns its standard output; exec.CommandContext when nil.
	RunCLI func(ctx context.Context, args ...string) ([]byte, error)

	mu      sync.Mutex
	token   string
	expires time.Time
}

var errNotSet = errors.New("not set")

// token is a source's answer.
type token struct {
	value   string
	expires time.Time
}

// Token returns a current ARM access token. When no source is configured its EInvalid error
// lists the sources tried and what to set.
func (c *Chain) Token(ctx context.Context) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.token != "" && c.now().Add(time.Minute).Before(c.expires) {
		return c.token, nil
	}
	var tried []string
	for _, src := range []struct {
		name string
		get  func(context.Context) (token, error)
	}{
		{"the environment (AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET)", c.secret},
		{"the environment (AZURE_CLIENT_CERTIFICATE_PATH)", c.certificate},
		{"workload identity (AZURE_FEDERATED_TOKEN_FILE)", c.workload},
		{"the managed identity (instance metadata service)", c.managed},
		{"the Azure CLI (az account get-access-token)", c.cli},
	} {
		t, err := src.get(ctx)
		if err == nil {
			c.token, c.expires = t.value, t.expires
			return t.value, nil
		}
		if !errors.Is(err, errNotSet) {
			return "", wrap(src.name, err)
		}
		tried = append(tried, src.name)
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "no Azure credentials; tried %s. Run az login, set AZURE_TENANT_ID, AZURE_CLIENT_ID and "+
		"AZURE_CLIENT_SECRET or AZURE_CLIENT_CERTIFICATE_PATH for a service principal, run on a VM or AKS with a managed or workload identity, or set GPUCOST_AZURE_TOKEN", strings.Join(tried, ", "))
}

// wrap names the source of an error; a gpucost error keeps its code, others are EUnavailable.
func wrap(source string, err error) error {
	code := gpucost.EUnavailable
	var e *gpucost.Error
	if errors.As(err, &e) {
		code = e.Code
	}
	return gpucost.Errorf(code, "Azure credentials from %s: %w", source, err)
}

// secret is the client credentials grant with a service principal's secret.
func (c *Chain) secret(ctx context.Context) (token, error) {
	tenant, id, secret := c.getenv("AZURE_TENANT_ID"), c.getenv("AZURE_CLIENT_ID"), c.getenv("AZURE_CLIENT_SECRET")
	if secret == "" {
		return token{}, errNotSet
	}
	if tenant == "" || id == "" {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "AZURE_CLIENT_SECRET needs AZURE_TENANT_ID and AZURE_CLIENT_ID too")
	}
	return c.login(ctx, tenant, url.Values{"client_id": {id}, "client_secret": {secret}})
}

// workload is the client credentials grant with the federated token AKS writes to a file.
func (c *Chain) workload(ctx context.Context) (token, error) {
	file := c.getenv("AZURE_FEDERATED_TOKEN_FILE")
	if file == "" {
		return token{}, errNotSet
	}
	tenant, id := c.getenv("AZURE_TENANT_ID"), c.getenv("AZURE_CLIENT_ID")
	if tenant == "" || id == "" {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "AZURE_FEDERATED_TOKEN_FILE needs AZURE_TENANT_ID and AZURE_CLIENT_ID too")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "read AZURE_FEDERATED_TOKEN_FILE: %w", err)
	}
	return c.login(ctx, tenant, url.Values{"client_id": {id}, "client_assertion": {strings.TrimSpace(string(b))},
		"client_assertion_type": {"urn:ietf:params:oauth:client-assertion-type:jwt-bearer"}})
}

// login posts a client credentials grant to the tenant's v2.0 token endpoint.
func (c *Chain) login(ctx context.Context, tenant string, form url.Values) (token, error) {
	form.Set("grant_type", "client_credentials")
	form.Set("scope", Scope)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.tokenURL(tenant), strings.NewReader(form.Encode()))
	if err != nil {
		return token{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	var out struct {
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	if err := do(c.http(), req, &out); err != nil {
		return token{}, err
	}
	return token{out.AccessToken, c.now().Add(time.Duration(out.ExpiresIn) * time.Second)}, nil
}

// tokenURL is the tenant's v2.0 token endpoint, which a client assertion names as its audience.
func (c *Chain) tokenURL(tenant string) string {
	host := strings.TrimRight(cmp.Or(c.AuthorityHost, c.getenv("AZURE_AUTHORITY_HOST"), "https://login.microsoftonline.com"), "/")
	return host + "/" + url.PathEscape(tenant) + "/oauth2/v2.0/token"
}

// managed asks the instance metadata service for the managed identity's token (the
// user-assigned one AZURE_CLIENT_ID names, when set). No answer, or an answer that there is no
// identity, is errNotSet.
func (c *Chain) managed(ctx context.Context) (token, error) {
	q := url.Values{"api-version": {"2018-02-01"}, "resource": {Resource}}
	if id := c.getenv("AZURE_CLIENT_ID"); id != "" {
		q.Set("client_id", id)
	}
	base := strings.TrimRight(cmp.Or(c.IMDSEndpoint, "http://169.254.169.254"), "/")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/metadata/identity/oauth2/token?"+q.Encode(), nil)
	if err != nil {
		return token{}, err
	}
	req.Header.Set("Metadata", "true")
	res, err := (&http.Client{Timeout: 3 * time.Second}).Do(req)
	if err != nil {
		return token{}, fmt.Errorf("%w (%v)", errNotSet, err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusNotFound {
		return token{}, fmt.Errorf("%w (HTTP %d: no managed identity)", errNotSet, res.StatusCode)
	}
	var out struct {
		AccessToken string `json:"access_token"`
		ExpiresOn   string `json:"expires_on"` // seconds since the epoch, as a string
	}
	if err := read(req, res, &out); err != nil {
		return token{}, err
	}
	sec, _ := strconv.ParseInt(out.ExpiresOn, 10, 64)
	return token{out.AccessToken, time.Unix(sec, 0)}, nil
}

// cli asks the Azure CLI for a token of the account "az login" signed in. A missing az is
// errNotSet.
func (c *Chain) cli(ctx context.Context) (token, error) {
	args := []string{"account", "get-access-token", "--output", "json", "--resource", Resource}
	if t := c.getenv("AZURE_TENANT_ID"); t != "" {
		args = append(args, "--tenant", t)
	}
	run := c.RunCLI
	if run == nil {
		run = runAz
	}
	b, err := run(ctx, args...)
	if errors.Is(err, exec.ErrNotFound) {
		return token{}, fmt.Errorf("%w (az is not installed)", errNotSet)
	}
	if err != nil {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "%v; run az login", err)
	}
	var out struct {
		AccessToken string `json:"accessToken"`
		ExpiresOn   int64  `json:"expires_on"` // az 2.54 and later
		ExpiresOnTS string `json:"expiresOn"`  // local time, "2006-01-02 15:04:05.000000"
	}
	if err := json.Unmarshal(b, &out); err != nil || out.AccessToken == "" {
		return token{}, gpucost.Errorf(gpucost.EInvalid, "az account get-access-token printed no accessToken")
	}
	exp := time.Unix(out.ExpiresOn, 0)
	if out.ExpiresOn == 0 {
		exp, _ = time.ParseInLocation("2006-01-02 15:04:05.999999", out.ExpiresOnTS, time.Local)
	}
	return token{out.AccessToken, exp}, nil
}

// runAz runs az; its standard error (never a token) goes into the error.
func runAz(ctx context.Context, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "az", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil && stderr.Len() > 0 {
		return nil, fmt.Errorf("az account get-access-token: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, err
}

// do sends req and decodes a 200 answer.
func do(hc *http.Client, req *http.Request, out any) error {
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	return read(req, res, out)
}

// read decodes a 200 answer; a refusal's body (an OAuth error, never a secret) is in the
// error.
func read(req *http.Request, res *http.Response, out any) error {
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		code := gpucost.EUnavailable
		if res.StatusCode/100 == 4 {
			code = gpucost.EInvalid
		}
		return gpucost.Errorf(code, "%s answered HTTP %d: %s", req.URL.Host, res.StatusCode, strings.TrimSpace(string(b[:min(len(b), 300)])))
	}
	return json.Unmarshal(b, out)
}

func (c *Chain) getenv(k string) string { return hooks.Getenv(c.Getenv, k) }
func (c *Chain) now() time.Time         { return hooks.Now(c.Now) }
func (c *Chain) http() *http.Client     { return hooks.HTTP(c.HTTP) }
