package gcpcreds

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

const (
	testAudience = "//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/gpu-pool/providers/oidc"
	testSA       = "gpucost@gpu-prod.iam.gserviceaccount.com"
	jwtType      = "urn:ietf:params:oauth:token-type:jwt"
)

// fakeSTS is a subject token URL, the Security Token Service and IAM Credentials'
// generateAccessToken; it checks each request exactly against what the test expects.
type fakeSTS struct {
	t         *testing.T
	srv       *httptest.Server
	calls     []string
	stsForm   url.Values // the exchange's form, exactly
	basic     [2]string  // the client id and secret of the exchange's basic auth; none when empty
	impBody   string     // generateAccessToken's JSON body, exactly
	stsStatus int        // an answer other than 200 for the exchange
	impStatus int
}

func newFakeSTS(t *testing.T) *fakeSTS {
	f := &fakeSTS{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeSTS) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	switch r.URL.Path {
	case "/subject":
		f.calls = append(f.calls, "subject")
		if r.Method != http.MethodGet || r.Header.Get("Metadata") != "True" {
			t.Errorf("subject token request %s with Metadata %q; want GET with the configuration's header", r.Method, r.Header.Get("Metadata"))
		}
		fmt.Fprint(w, `{"access_token":"subject-from-url","token_type":"Bearer"}`)
	case "/v1/token":
		f.calls = append(f.calls, "sts")
		r.ParseForm()
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || !reflect.DeepEqual(r.PostForm, f.stsForm) {
			t.Errorf("STS request %s %q form\n%v\nwant\n%v", r.Method, r.Header.Get("Content-Type"), r.PostForm, f.stsForm)
		}
		id, secret, ok := r.BasicAuth()
		if ok != (f.basic[0] != "") || ok && (id != f.basic[0] || secret != f.basic[1]) {
			t.Errorf("STS basic auth %q %q %v, want %q", id, secret, ok, f.basic)
		}
		if f.stsStatus != 0 {
			http.Error(w, `{"error":"invalid_grant","error_description":"The audience in ID Token does not match the expected audience."}`, f.stsStatus)
			return
		}
		fmt.Fprint(w, `{"access_token":"federated-token","issued_token_type":"urn:ietf:params:oauth:token-type:access_token","token_type":"Bearer","expires_in":3599}`)
	case "/v1/projects/-/serviceAccounts/" + testSA + ":generateAccessToken":
		f.calls = append(f.calls, "impersonate")
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Authorization") != "Bearer federated-token" || r.Header.Get("Content-Type") != "application/json" || string(b) != f.impBody {
			t.Errorf("generateAccessToken %s, Authorization %q, body %s; want POST with the federated token and %s", r.Method, r.Header.Get("Authorization"), b, f.impBody)
		}
		if f.impStatus != 0 {
			http.Error(w, `{"error":{"code":403,"message":"Permission 'iam.serviceAccounts.getAccessToken' denied","status":"PERMISSION_DENIED"}}`, f.impStatus)
			return
		}
		fmt.Fprintf(w, `{"accessToken":"ya29.impersonated","expireTime":%q}`, testNow.Add(30*time.Minute).Format(time.RFC3339))
	default:
		t.Errorf("unexpected request %s", r.URL)
		http.NotFound(w, r)
	}
}

// stsForm is the token exchange's form for a subject token and scope.
func stsForm(subject, subjectType, scope string) url.Values {
	return url.Values{"grant_type": {"urn:ietf:params:oauth:grant-type:token-exchange"}, "audience": {testAudience},
		"requested_token_type": {"urn:ietf:params:oauth:token-type:access_token"}, "subject_token_type": {subjectType},
		"subject_token": {subject}, "scope": {scope}}
}

func writeJSON(t *testing.T, dir, name string, v any) string {
	t.Helper()
	b, _ := json.Marshal(v)
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExternalAccount: file- and URL-sourced subject tokens, as text or a JSON field, are
// exchanged at the STS for the chain's scope; with service_account_impersonation_url the STS
// is asked for cloud-platform and the federated token is exchanged for the service account's,
// kept until a minute before its expireTime.
func TestExternalAccount(t *testing.T) {
	dir := t.TempDir()
	oidc := filepath.Join(dir, "oidc-token")
	os.WriteFile(oidc, []byte("eyJ.oidc.token\n"), 0o600)
	jsonFile := filepath.Join(dir, "oidc.json")
	os.WriteFile(jsonFile, []byte(`{"id_token":"eyJ.from.json","other":1}`), 0o600)
	f := newFakeSTS(t)
	impURL := f.srv.URL + "/v1/projects/-/serviceAccounts/" + testSA + ":generateAccessToken"
	for _, c := range []struct {
		name    string
		config  map[string]any
		form    url.Values
		basic   [2]string
		impBody string
		token   string
		calls   string
		source  string
	}{
		{"file, text", map[string]any{"credential_source": map[string]any{"file": oidc}},
			stsForm("eyJ.oidc.token", jwtType, ComputeScope), [2]string{}, "", "federated-token", "sts", "workload identity federation " + testAudience},
		{"file, json, impersonated", map[string]any{"credential_source": map[string]any{"file": jsonFile, "format": map[string]any{"type": "json", "subject_token_field_name": "id_token"}},
			"service_account_impersonation_url": impURL, "service_account_impersonation": map[string]any{"token_lifetime_seconds": 1800}},
			stsForm("eyJ.from.json", jwtType, cloudPlatform), [2]string{}, `{"lifetime":"1800s","scope":["` + ComputeScope + `"]}`,
			"ya29.impersonated", "sts,impersonate", "workload identity federation " + testAudience + " as " + testSA},
		{"url, json, client id", map[string]any{"credential_source": map[string]any{"url": f.srv.URL + "/subject", "headers": map[string]any{"Metadata": "True"},
			"format": map[string]any{"type": "json", "subject_token_field_name": "access_token"}}, "client_id": "cid", "client_secret": "c/secret"},
			stsForm("subject-from-url", jwtType, ComputeScope), [2]string{"cid", "c%2Fsecret"}, "", "federated-token", "subject,sts", "workload identity federation " + testAudience},
	} {
		t.Run(c.name, func(t *testing.T) {
			f.calls, f.stsForm, f.basic, f.impBody = nil, c.form, c.basic, c.impBody
			cfg := map[string]any{"type": "external_account", "audience": testAudience, "subject_token_type": jwtType, "token_url": f.srv.URL + "/v1/token"}
			for k, v := range c.config {
				cfg[k] = v
			}
			path := writeJSON(t, t.TempDir(), "wif.json", cfg)
			now := testNow
			ch := &Chain{Getenv: func(k string) string { return map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": path}[k] }, Now: func() time.Time { return now }}
			for i := range 2 {
				tok, err := ch.Token(context.Background())
				if err != nil || tok != c.token {
					t.Fatalf("Token() #%d = %q, %v; want %q", i+1, tok, err, c.token)
				}
			}
			if got := strings.Join(f.calls, ","); got != c.calls {
				t.Errorf("requests %q, want %q (the second Token() from the cache)", got, c.calls)
			}
			if ch.Source() != c.source {
				t.Errorf("Source() = %q, want %q", ch.Source(), c.source)
			}
			life := 3599 * time.Second // the STS's expires_in
			if c.impBody != "" {
				life = 30 * time.Minute // the impersonated token's expireTime
			}
			now, f.calls = testNow.Add(life-90*time.Second), nil
			if _, err := ch.Token(context.Background()); err != nil || len(f.calls) != 0 {
				t.Errorf("Token() 90s before expiry = %v with requests %q; want the kept token", err, f.calls)
			}
			now = testNow.Add(life - 30*time.Second)
			if _, err := ch.Token(context.Background()); err != nil || len(f.calls) == 0 {
				t.Errorf("Token() 30s before expiry = %v with no request; want a new token", err)
			}
		})
	}
}

// TestExternalAccountRefusals: AWS- and executable-sourced configurations are refused with
// what to use instead, before any request; refusals of the STS and of impersonation say what
// the server answered and what to grant.
func TestExternalAccountRefusals(t *testing.T) {
	dir := t.TempDir()
	oidc := filepath.Join(dir, "oidc-token")
	os.WriteFile(oidc, []byte("eyJ.oidc.token"), 0o600)
	f := newFakeSTS(t)
	impURL := f.srv.URL + "/v1/projects/-/serviceAccounts/" + testSA + ":generateAccessToken"
	base := func(extra map[string]any) map[string]any {
		cfg := map[string]any{"type": "external_account", "audience": testAudience, "subject_token_type": jwtType, "token_url": f.srv.URL + "/v1/token",
			"credential_source": map[string]any{"file": oidc}}
		for k, v := range extra {
			cfg[k] = v
		}
		return cfg
	}
	for _, c := range []struct {
		name      string
		config    map[string]any
		stsStatus int
		impStatus int
		want      []string
		code      string
		calls     string
	}{
		{"aws without credentials", base(map[string]any{"subject_token_type": "urn:ietf:params:aws:token-type:aws4_request",
			"credential_source": map[string]any{"environment_id": "aws1", "region_url": "http://169.254.169.254/latest/meta-data/placement/availability-zone"}}),
			0, 0, []string{"AWS_ACCESS_KEY_ID", "credential_source.url"}, gpucost.EInvalid, ""},
		{"aws2", base(map[string]any{"credential_source": map[string]any{"environment_id": "aws2"}}), 0, 0, []string{`"aws2"`, "aws1"}, gpucost.EInvalid, ""},
		{"executable", base(map[string]any{"credential_source": map[string]any{"executable": map[string]any{"command": "/bin/get-token"}}}),
			0, 0, []string{"executable", "credential_source.file"}, gpucost.EInvalid, ""},
		{"no source", base(map[string]any{"credential_source": map[string]any{}}), 0, 0, []string{"no file or url"}, gpucost.EInvalid, ""},
		{"no audience", base(map[string]any{"audience": ""}), 0, 0, []string{"audience", "create-cred-config"}, gpucost.EInvalid, ""},
		{"json field missing", base(map[string]any{"credential_source": map[string]any{"file": oidc, "format": map[string]any{"type": "json", "subject_token_field_name": "id_token"}}}),
			0, 0, []string{"not JSON"}, gpucost.EInvalid, ""},
		{"sts refuses", base(nil), http.StatusBadRequest, 0, []string{"HTTP 400", "audience in ID Token"}, gpucost.EInvalid, "sts"},
		{"impersonation refused", base(map[string]any{"service_account_impersonation_url": impURL}), 0, http.StatusForbidden,
			[]string{testSA, "HTTP 403", "roles/iam.workloadIdentityUser"}, gpucost.EInvalid, "sts,impersonate"},
	} {
		f.calls, f.stsStatus, f.impStatus = nil, c.stsStatus, c.impStatus
		scope := ComputeScope
		if c.config["service_account_impersonation_url"] != nil {
			scope = cloudPlatform
		}
		f.stsForm, f.basic, f.impBody = stsForm("eyJ.oidc.token", jwtType, scope), [2]string{}, `{"lifetime":"3600s","scope":["`+ComputeScope+`"]}`
		path := writeJSON(t, t.TempDir(), "wif.json", c.config)
		ch := &Chain{Getenv: func(k string) string { return map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": path}[k] }, Now: func() time.Time { return testNow }}
		_, err := ch.Token(context.Background())
		if err == nil || gpucost.ErrorCode(err) != c.code {
			t.Errorf("%s: Token() = %v, want an %s error", c.name, err, c.code)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Token() = %v; want it to mention %q", c.name, err, w)
			}
		}
		if strings.Contains(err.Error(), "eyJ.oidc.token") || strings.Contains(err.Error(), "federated-token") {
			t.Errorf("%s: the error %q shows a token", c.name, err)
		}
		if got := strings.Join(f.calls, ","); got != c.calls {
			t.Errorf("%s: requests %q, want %q", c.name, got, c.calls)
		}
	}
}
