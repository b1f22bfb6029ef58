package azurecreds

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var testNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// fakeAzure is Entra ID's token endpoint and the instance metadata service; it checks each
// request exactly.
type fakeAzure struct {
	t     *testing.T
	srv   *httptest.Server
	calls []string
	noMSI bool
}

func newFakeAzure(t *testing.T) *fakeAzure {
	f := &fakeAzure{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAzure) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	switch r.URL.Path {
	case "/tenant-1/oauth2/v2.0/token":
		r.ParseForm()
		form := r.PostForm
		if r.Method != http.MethodPost || form.Get("grant_type") != "client_credentials" || form.Get("scope") != Scope || form.Get("client_id") != "app-1" {
			t.Errorf("token request %s %v", r.Method, form)
		}
		switch {
		case form.Get("client_secret") == "sp-secret":
			f.calls = append(f.calls, "secret")
		case form.Get("client_assertion") == "federated-jwt" && form.Get("client_assertion_type") == "urn:ietf:params:oauth:client-assertion-type:jwt-bearer":
			f.calls = append(f.calls, "workload")
		default:
			http.Error(w, `{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided."}`, http.StatusUnauthorized)
			return
		}
		fmt.Fprint(w, `{"token_type":"Bearer","expires_in":3599,"access_token":"arm-sp"}`)
	case "/metadata/identity/oauth2/token":
		f.calls = append(f.calls, "msi")
		q := r.URL.Query()
		if r.Header.Get("Metadata") != "true" || q.Get("api-version") != "2018-02-01" || q.Get("resource") != Resource {
			t.Errorf("IMDS request %s Metadata %q", r.URL, r.Header.Get("Metadata"))
		}
		if f.noMSI {
			http.Error(w, `{"error":"invalid_request","error_description":"Identity not found"}`, http.StatusBadRequest)
			return
		}
		fmt.Fprintf(w, `{"access_token":"arm-msi","expires_on":"%d","resource":"%s","token_type":"Bearer"}`, testNow.Add(time.Hour).Unix(), Resource)
	default:
		t.Errorf("unexpected request %s", r.URL)
		http.NotFound(w, r)
	}
}

func TestChain(t *testing.T) {
	fed := filepath.Join(t.TempDir(), "token")
	os.WriteFile(fed, []byte("federated-jwt\n"), 0o600)
	sp := []string{"AZURE_TENANT_ID", "tenant-1", "AZURE_CLIENT_ID", "app-1", "AZURE_CLIENT_SECRET", "sp-secret"}
	for _, c := range []struct {
		name   string
		env    []string
		noMSI  bool
		cli    bool
		token  string
		calls  string
		cliArg string
	}{
		{"a service principal beats workload identity", append(sp, "AZURE_FEDERATED_TOKEN_FILE", fed), false, true, "arm-sp", "secret", ""},
		{"workload identity beats the managed identity", []string{"AZURE_TENANT_ID", "tenant-1", "AZURE_CLIENT_ID", "app-1", "AZURE_FEDERATED_TOKEN_FILE", fed}, false, true, "arm-sp", "workload", ""},
		{"the managed identity beats the CLI", nil, false, true, "arm-msi", "msi", ""},
		{"the CLI last", nil, true, true, "arm-cli", "msi,cli", "account get-access-token --output json --resource " + Resource},
		{"the CLI in a tenant", []string{"AZURE_TENANT_ID", "tenant-1"}, true, true, "arm-cli", "msi,cli", "account get-access-token --output json --resource " + Resource + " --tenant tenant-1"},
	} {
		f := newFakeAzure(t)
		f.noMSI = c.noMSI
		var cliArgs string
		ch := &Chain{Getenv: envOf(c.env...), AuthorityHost: f.srv.URL, IMDSEndpoint: f.srv.URL, Now: func() time.Time { return testNow },
			RunCLI: func(_ context.Context, args ...string) ([]byte, error) {
				f.calls = append(f.calls, "cli")
				cliArgs = strings.Join(args, " ")
				return []byte(fmt.Sprintf(`{"accessToken":"arm-cli","expiresOn":"2026-11-27 13:00:00.000000","expires_on":%d,"subscription":"sub","tenant":"tenant-1","tokenType":"Bearer"}`,
					testNow.Add(time.Hour).Unix())), nil
			}}
		for range 2 {
			tok, err := ch.Token(context.Background())
			if err != nil || tok != c.token {
				t.Errorf("%s: Token() = %q, %v; want %q", c.name, tok, err, c.token)
			}
		}
		if got := strings.Join(f.calls, ","); got != c.calls {
			t.Errorf("%s: requests %q, want %q (the second Token() from the cache)", c.name, got, c.calls)
		}
		if cliArgs != c.cliArg {
			t.Errorf("%s: az %s, want az %s", c.name, cliArgs, c.cliArg)
		}
	}
}

func TestChainErrors(t *testing.T) {
	notFound := func(context.Context, ...string) ([]byte, error) {
		return nil, &exec.Error{Name: "az", Err: exec.ErrNotFound}
	}
	for _, c := range []struct {
		name string
		env  []string
		cli  func(context.Context, ...string) ([]byte, error)
		code string
		want []string
	}{
		{"nothing", nil, notFound, gpucost.EInvalid, []string{"AZURE_CLIENT_SECRET", "AZURE_FEDERATED_TOKEN_FILE", "managed identity", "az account get-access-token", "az login"}},
		{"refused secret", []string{"AZURE_TENANT_ID", "tenant-1", "AZURE_CLIENT_ID", "app-1", "AZURE_CLIENT_SECRET", "wrong-secret"}, notFound, gpucost.EInvalid, []string{"HTTP 401", "AADSTS7000215"}},
		{"half a principal", []string{"AZURE_CLIENT_SECRET", "sp-secret"}, notFound, gpucost.EInvalid, []string{"AZURE_TENANT_ID and AZURE_CLIENT_ID"}},
		{"not logged in", nil, func(context.Context, ...string) ([]byte, error) {
			return nil, errors.New("ERROR: Please run 'az login' to setup account.")
		}, gpucost.EInvalid, []string{"az login"}},
	} {
		f := newFakeAzure(t)
		f.noMSI = true
		ch := &Chain{Getenv: envOf(c.env...), AuthorityHost: f.srv.URL, IMDSEndpoint: f.srv.URL, RunCLI: c.cli}
		_, err := ch.Token(context.Background())
		if gpucost.ErrorCode(err) != c.code {
			t.Errorf("%s: Token() = %v, want an %s error", c.name, err, c.code)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Token() = %v; want it to mention %q", c.name, err, w)
			}
		}
		if slices.ContainsFunc([]string{"sp-secret", "wrong-secret"}, func(s string) bool { return strings.Contains(err.Error(), s) }) {
			t.Errorf("%s: the error %q shows a secret", c.name, err)
		}
	}
}

func envOf(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}
