package gcpcreds

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// DefaultSTSURL is Google's Security Token Service, where workload identity federation
// exchanges a subject token for an access token.
const DefaultSTSURL = "https://sts.googleapis.com/v1/token"

// cloudPlatform is the scope of the federated token that impersonates a service account, as
// Google's client libraries ask for it; the impersonated token gets the chain's scope.
const cloudPlatform = "https://www.googleapis.com/auth/cloud-platform"

// externalAccount is an "external_account" credential configuration (workload identity
// federation), as gcloud iam workload-identity-pools create-cred-config writes it.
type externalAccount struct {
	Audience                       string `json:"audience"`
	SubjectTokenType               string `json:"subject_token_type"`
	TokenURL                       string `json:"token_url"`
	ServiceAccountImpersonationURL string `json:"service_account_impersonation_url"`
	ServiceAccountImpersonation    struct {
		TokenLifetimeSeconds int `json:"token_lifetime_seconds"`
	} `json:"service_account_impersonation"`
	ClientID                 string `json:"client_id"`
	ClientSecret             string `json:"client_secret"`
	WorkforcePoolUserProject string `json:"workforce_pool_user_project"`
	CredentialSource         struct {
		File          string            `json:"file"`
		URL           string            `json:"url"`
		Headers       map[string]string `json:"headers"`
		EnvironmentID string            `json:"environment_id"`
		// AWS-sourced: where the EC2 metadata server gives the region, the role's credentials
		// and an IMDSv2 session token, and the GetCallerIdentity URL to sign.
		RegionURL                   string          `json:"region_url"`
		RegionalCredVerificationURL string          `json:"regional_cred_verification_url"`
		IMDSv2SessionTokenURL       string          `json:"imdsv2_session_token_url"`
		Executable                  json.RawMessage `json:"executable"`
		Format                      struct {
			Type                  string `json:"type"`
			SubjectTokenFieldName string `json:"subject_token_field_name"`
		} `json:"format"`
	} `json:"credential_source"`
}

// external gets an access token for an external account: the subject token from its file, URL
// or AWS credentials, exchanged at the Security Token Service (RFC 8693), then, when the configuration names
// a service account to impersonate, exchanged again at IAM Credentials' generateAccessToken.
func (c *Chain) external(ctx context.Context, b []byte) (tokenAnswer, error) {
	var x externalAccount
	if err := json.Unmarshal(b, &x); err != nil {
		return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "not an external_account credential configuration: %v", err)
	}
	if x.Audience == "" || x.SubjectTokenType == "" {
		return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "external_account without audience or subject_token_type; "+
			"write it again with gcloud iam workload-identity-pools create-cred-config")
	}
	subject, err := c.subjectToken(ctx, x)
	if err != nil {
		return tokenAnswer{}, err
	}
	scope := c.scope()
	if x.ServiceAccountImpersonationURL != "" {
		scope = cloudPlatform
	}
	form := url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "audience": {x.Audience},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:access_token"}, "subject_token_type": {x.SubjectTokenType},
		"subject_token": {subject}, "scope": {scope}}
	if x.WorkforcePoolUserProject != "" && x.ClientID == "" {
		opts, _ := json.Marshal(map[string]string{"userProject": x.WorkforcePoolUserProject})
		form.Set("options", string(opts))
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, cmp.Or(x.TokenURL, DefaultSTSURL), strings.NewReader(form.Encode()))
	if err != nil {
		return tokenAnswer{}, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if x.ClientID != "" {
		req.SetBasicAuth(url.QueryEscape(x.ClientID), url.QueryEscape(x.ClientSecret))
	}
	federated, err := do(c.http(), req)
	if err != nil {
		return tokenAnswer{}, fmt.Errorf("exchange the subject token at the Security Token Service: %w", err)
	}
	c.source = "workload identity federation " + x.Audience
	if x.ServiceAccountImpersonationURL == "" {
		return federated, nil
	}
	c.source += " as " + impersonated(x.ServiceAccountImpersonationURL)
	return c.impersonate(ctx, x, federated.AccessToken)
}

// subjectToken reads the external account's subject token from its file or URL, as text or
// as a field of a JSON object, or, AWS-sourced, signed by AWS credentials (awsSubject).
// Executable-sourced configurations are refused with what to use instead.
func (c *Chain) subjectToken(ctx context.Context, x externalAccount) (string, error) {
	src := x.CredentialSource
	var raw []byte
	switch {
	case strings.HasPrefix(src.EnvironmentID, "aws"):
		return c.awsSubject(ctx, x)
	case len(src.Executable) > 0 && string(src.Executable) != "null":
		return "", gpucost.Errorf(gpucost.EInvalid, "executable-sourced external_account credentials are not run by gpucost; "+
			"set GPUCOST_GCE_TOKEN=$(gcloud auth print-access-token), or write the subject token to a file and name it in credential_source.file")
	case src.File != "":
		b, err := os.ReadFile(src.File)
		if err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "read the subject token of credential_source.file: %w", err)
		}
		raw = b
	case src.URL != "":
		b, err := c.subjectFromURL(ctx, src.URL, src.Headers)
		if err != nil {
			return "", err
		}
		raw = b
	default:
		return "", gpucost.Errorf(gpucost.EInvalid, "external_account whose credential_source names no file or url")
	}
	raw = bytes.TrimSpace(raw)
	switch src.Format.Type {
	case "", "text":
		if len(raw) == 0 {
			return "", gpucost.Errorf(gpucost.EInvalid, "the subject token of the external_account's credential_source is empty")
		}
		return string(raw), nil
	case "json":
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "the external_account's subject token is not JSON (format type json): %v", err)
		}
		s, ok := m[src.Format.SubjectTokenFieldName].(string)
		if !ok || s == "" {
			return "", gpucost.Errorf(gpucost.EInvalid, "the external_account's subject token JSON has no string field %q (subject_token_field_name)", src.Format.SubjectTokenFieldName)
		}
		return s, nil
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "credential_source.format.type %q: want text or json", src.Format.Type)
}

// subjectFromURL gets a URL-sourced subject token with the configuration's headers.
func (c *Chain) subjectFromURL(ctx context.Context, u string, headers map[string]string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "credential_source.url: %v", err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.http().Do(req)
	if err != nil {
		return nil, fmt.Errorf("get the subject token from credential_source.url: %w", err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode/100 != 2 {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "credential_source.url %s answered HTTP %d", req.URL.Host, res.StatusCode)
	}
	return b, nil
}

// impersonate exchanges the federated token for the service account's at the
// configuration's generateAccessToken URL, for the chain's scope.
func (c *Chain) impersonate(ctx context.Context, x externalAccount, federated string) (tokenAnswer, error) {
	lifetime := cmp.Or(x.ServiceAccountImpersonation.TokenLifetimeSeconds, 3600)
	body, _ := json.Marshal(map[string]any{"scope": []string{c.scope()}, "lifetime": fmt.Sprintf("%ds", lifetime)})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, x.ServiceAccountImpersonationURL, bytes.NewReader(body))
	if err != nil {
		return tokenAnswer{}, gpucost.Errorf(gpucost.EInvalid, "service_account_impersonation_url: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+federated)
	res, err := c.http().Do(req)
	if err != nil {
		return tokenAnswer{}, fmt.Errorf("impersonate %s: %w", impersonated(x.ServiceAccountImpersonationURL), err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return tokenAnswer{}, err
	}
	if res.StatusCode != http.StatusOK {
		code := gpucost.EUnavailable
		if res.StatusCode/100 == 4 {
			code = gpucost.EInvalid
		}
		return tokenAnswer{}, gpucost.Errorf(code, "impersonate %s: %s answered HTTP %d: %s; the federated principal needs roles/iam.workloadIdentityUser on it",
			impersonated(x.ServiceAccountImpersonationURL), req.URL.Host, res.StatusCode, strings.TrimSpace(string(b[:min(len(b), 300)])))
	}
	var out struct {
		AccessToken string    `json:"accessToken"`
		ExpireTime  time.Time `json:"expireTime"`
	}
	if err := json.Unmarshal(b, &out); err != nil || out.AccessToken == "" {
		return tokenAnswer{}, fmt.Errorf("impersonate %s: %s answered without an accessToken", impersonated(x.ServiceAccountImpersonationURL), req.URL.Host)
	}
	return tokenAnswer{AccessToken: out.AccessToken, ExpiresIn: int64(out.ExpireTime.Sub(c.now()) / time.Second)}, nil
}

// impersonated names the service account of a generateAccessToken URL
// (…/serviceAccounts/EMAIL:generateAccessToken), for messages.
func impersonated(u string) string {
	_, after, ok := strings.Cut(u, "/serviceAccounts/")
	if !ok {
		return "the service account of service_account_impersonation_url"
	}
	email, _, _ := strings.Cut(after, ":")
	return email
}
