package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const refreshAWSSecret = "profile-secret-key-for-refresh"

// runRefreshCLI runs gpucost with environ as its environment; stdout and stderr must never
// hold a secret of it.
func runRefreshCLI(t *testing.T, dir string, environ map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] },
		now: func() time.Time { return time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC) }}
	code := run(context.Background(), append([]string{"--db", filepath.Join(dir, "gpucost.db")}, args...), e)
	if s := out.String() + errb.String(); strings.Contains(s, refreshAWSSecret) || strings.Contains(s, "ya29.billing") {
		t.Errorf("a secret is in the output:\n%s", s)
	}
	return code, out.String(), errb.String()
}

// priceAPIs answers the AWS Price List and EC2 spot price APIs with pricing/awsprices' recorded
// pages, the Cloud Billing Catalog API with pricing/gcpprices', and a Google token endpoint; it
// keeps each request's Authorization (and the GCP key) to check.
type priceAPIs struct {
	srv   *httptest.Server
	mu    sync.Mutex
	auths map[string][]string // "GetProducts", "DescribeSpotPriceHistory", "skus", "token" → Authorization (skus: and key=)
}

func newPriceAPIs(t *testing.T) *priceAPIs {
	p := &priceAPIs{auths: map[string][]string{}}
	read := func(name string) []byte {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		auth := r.Header.Get("Authorization")
		p.mu.Lock()
		defer p.mu.Unlock()
		switch {
		case r.URL.Path == "/spot-advisor-data.json":
			http.NotFound(w, r)
		case r.URL.Path == "/token":
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ParseForm()
			p.auths["token"] = append(p.auths["token"], r.PostForm.Get("grant_type"))
			fmt.Fprint(w, `{"access_token":"ya29.billing","expires_in":3599,"token_type":"Bearer"}`)
		case strings.HasPrefix(r.URL.Path, "/v1/services/"):
			p.auths["skus"] = append(p.auths["skus"], auth+" key="+r.URL.Query().Get("key"))
			name := "../../pricing/gcpprices/testdata/page1.json"
			if r.URL.Query().Get("pageToken") != "" {
				name = "../../pricing/gcpprices/testdata/page2.json"
			}
			w.Write(read(name))
		case r.Header.Get("X-Amz-Target") == "AWSPriceListService.GetProducts":
			p.auths["GetProducts"] = append(p.auths["GetProducts"], auth)
			var in struct{ NextToken string }
			json.Unmarshal(body, &in)
			name := "../../pricing/awsprices/testdata/products_page1.json"
			if in.NextToken != "" {
				name = "../../pricing/awsprices/testdata/products_page2.json"
			}
			w.Header().Set("Content-Type", "application/x-amz-json-1.1")
			w.Write(read(name))
		case strings.Contains(string(body), "Action=DescribeSpotPriceHistory"):
			p.auths["DescribeSpotPriceHistory"] = append(p.auths["DescribeSpotPriceHistory"], auth)
			w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
			w.Write(read("../../pricing/awsprices/testdata/spot.xml"))
		default:
			t.Errorf("unexpected request %s %s", r.URL, body)
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *priceAPIs) requests(name string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.auths[name]
}

// TestCatalogRefreshAWSProfile: catalog refresh --provider aws signs the Price List and spot
// price requests with the credentials of --aws-profile, which beat the environment's keys;
// against a mirror with no credentials anywhere the requests go unsigned; without a mirror the
// missing credentials are refused with what to set.
func TestCatalogRefreshAWSProfile(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "aws-config")
	os.WriteFile(config, []byte("[profile pricing]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = "+refreshAWSSecret+"\nregion = us-east-1\n"), 0o600)
	environ := map[string]string{"AWS_CONFIG_FILE": config, "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none"),
		"AWS_ACCESS_KEY_ID": "AKIDENVIRONMENT", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_EC2_METADATA_DISABLED": "true"}
	apis := newPriceAPIs(t)
	code, out, errb := runRefreshCLI(t, dir, environ, "catalog", "refresh", "--provider", "aws", "--region", "us-east-1", "--aws-profile", "pricing", "--base-url", apis.srv.URL)
	if code != exitOK || !strings.Contains(out, "3 offers added") {
		t.Fatalf("catalog refresh --provider aws --aws-profile pricing: exit %d\n%s%s", code, out, errb)
	}
	for _, api := range []string{"GetProducts", "DescribeSpotPriceHistory"} {
		got := apis.requests(api)
		if len(got) == 0 {
			t.Errorf("%s was not asked", api)
		}
		for _, auth := range got {
			if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDPROFILE/") || strings.Contains(auth, refreshAWSSecret) {
				t.Errorf("%s Authorization = %q, want SigV4 with the profile's key id and never its secret", api, auth)
			}
		}
	}

	mirror := newPriceAPIs(t)
	bare := map[string]string{"HOME": dir, "AWS_EC2_METADATA_DISABLED": "true"}
	code, out, errb = runRefreshCLI(t, t.TempDir(), bare, "catalog", "refresh", "--provider", "aws", "--region", "us-east-1", "--base-url", mirror.srv.URL)
	if code != exitOK {
		t.Fatalf("catalog refresh --provider aws against a mirror without credentials: exit %d\n%s%s", code, out, errb)
	}
	for _, auth := range append(mirror.requests("GetProducts"), mirror.requests("DescribeSpotPriceHistory")...) {
		if auth != "" {
			t.Errorf("a request to the mirror without credentials carried Authorization %q", auth)
		}
	}
	code, _, errb = runRefreshCLI(t, t.TempDir(), bare, "catalog", "refresh", "--provider", "aws", "--region", "us-east-1")
	if code != exitInvalid || !strings.Contains(errb, "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass --aws-profile") || !strings.Contains(errb, "tried") {
		t.Errorf("catalog refresh --provider aws without credentials: exit %d, stderr %s; want %d naming what to set and the sources tried", code, errb, exitInvalid)
	}
	code, _, errb = runRefreshCLI(t, t.TempDir(), environ, "catalog", "refresh", "--provider", "aws", "--aws-profile", "nosuch", "--base-url", mirror.srv.URL)
	if code != exitInvalid || !strings.Contains(errb, "AWS profile nosuch") {
		t.Errorf("catalog refresh --aws-profile nosuch: exit %d, stderr %s; want %d naming the profile, even against a mirror", code, errb, exitInvalid)
	}
}

// TestCatalogRefreshGCPCredentials: without GPUCOST_GCP_API_KEY, catalog refresh --provider gcp
// asks the Cloud Billing Catalog API with an Application Default Credentials token (here a
// service account key whose token_uri is the fake); with the key, the key alone.
func TestCatalogRefreshGCPCredentials(t *testing.T) {
	dir := t.TempDir()
	apis := newPriceAPIs(t)
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "pricing@p.iam.gserviceaccount.com",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), "token_uri": apis.srv.URL + "/token"})
	saFile := filepath.Join(dir, "sa.json")
	os.WriteFile(saFile, sa, 0o600)
	code, out, errb := runRefreshCLI(t, dir, map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": saFile},
		"catalog", "refresh", "--provider", "gcp", "--region", "us-central1", "--base-url", apis.srv.URL)
	if code != exitOK || !strings.Contains(out, "offers added") {
		t.Fatalf("catalog refresh --provider gcp with a service account: exit %d\n%s%s", code, out, errb)
	}
	if got := apis.requests("token"); len(got) != 1 || got[0] != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		t.Errorf("token requests = %q, want one JWT bearer grant (the token kept for every page)", got)
	}
	skus := apis.requests("skus")
	for _, s := range skus {
		if s != "Bearer ya29.billing key=" {
			t.Errorf("skus request Authorization and key = %q, want the service account's token and no key", s)
		}
	}
	if len(skus) != 2 {
		t.Errorf("skus pages asked %d, want 2", len(skus))
	}

	keyed := newPriceAPIs(t)
	code, out, errb = runRefreshCLI(t, t.TempDir(), map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": saFile, "GPUCOST_GCP_API_KEY": "test-key"},
		"catalog", "refresh", "--provider", "gcp", "--region", "us-central1", "--base-url", keyed.srv.URL)
	if code != exitOK {
		t.Fatalf("catalog refresh --provider gcp with a key: exit %d\n%s%s", code, out, errb)
	}
	if got := keyed.requests("token"); len(got) != 0 {
		t.Errorf("with an API key the token endpoint was asked %q", got)
	}
	for _, s := range keyed.requests("skus") {
		if s != " key=test-key" {
			t.Errorf("skus request Authorization and key = %q, want the key alone", s)
		}
	}
}
