package awscreds

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/gpucost/gpucost"
)

var testNow = time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)

// fakeAWS is STS, the SSO portal, the ECS credentials endpoint and IMDSv2 on one loopback
// server. Each handler checks the exact request and fails the test on any difference.
type fakeAWS struct {
	t   *testing.T
	srv *httptest.Server
	// signer are the credentials STS AssumeRole must be signed with.
	signer aws.Credentials
	calls  []string
}

func newFakeAWS(t *testing.T) *fakeAWS {
	f := &fakeAWS{t: t}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAWS) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/":
		form, _ := url.ParseQuery(string(body))
		f.calls = append(f.calls, "sts "+form.Get("Action"))
		f.sts(w, r, body, form)
	case r.URL.Path == "/federation/credentials":
		f.calls = append(f.calls, "sso")
		if r.Method != http.MethodGet || r.Header.Get("x-amz-sso_bearer_token") != "sso-access-token" ||
			r.URL.Query().Get("account_id") != "111122223333" || r.URL.Query().Get("role_name") != "GPUAdmin" {
			t.Errorf("SSO request %s %s token %q; want GET account_id=111122223333 role_name=GPUAdmin with the cached token", r.Method, r.URL, r.Header.Get("x-amz-sso_bearer_token"))
		}
		fmt.Fprintf(w, `{"roleCredentials":{"accessKeyId":"ASIASSO","secretAccessKey":"sso-secret","sessionToken":"sso-session","expiration":%d}}`, testNow.Add(time.Hour).UnixMilli())
	case r.URL.Path == "/v2/credentials/abc":
		f.calls = append(f.calls, "ecs")
		if got := r.Header.Get("Authorization"); got != "ecs-auth" {
			t.Errorf("ECS request Authorization = %q, want the token from AWS_CONTAINER_AUTHORIZATION_TOKEN", got)
		}
		fmt.Fprint(w, `{"AccessKeyId":"ASIAECS","SecretAccessKey":"ecs-secret","Token":"ecs-session","Expiration":"2026-11-27T18:00:00Z"}`)
	case r.URL.Path == "/latest/api/token":
		f.calls = append(f.calls, "imds token")
		if r.Method != http.MethodPut || r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds") != "21600" {
			t.Errorf("IMDS token request %s TTL %q; want PUT with 21600", r.Method, r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds"))
		}
		fmt.Fprint(w, "imds-session")
	case strings.HasPrefix(r.URL.Path, "/latest/meta-data/iam/security-credentials/"):
		if r.Header.Get("X-Aws-Ec2-Metadata-Token") != "imds-session" {
			t.Errorf("IMDS %s without the session token", r.URL.Path)
		}
		if strings.HasSuffix(r.URL.Path, "/") {
			fmt.Fprint(w, "gpu-role\n")
			return
		}
		f.calls = append(f.calls, "imds role")
		fmt.Fprint(w, `{"Code":"Success","AccessKeyId":"ASIAIMDS","SecretAccessKey":"imds-secret","Token":"imds-tok","Expiration":"2026-11-27T18:00:00Z"}`)
	default:
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func (f *fakeAWS) sts(w http.ResponseWriter, r *http.Request, body []byte, form url.Values) {
	t := f.t
	action := form.Get("Action")
	if form.Get("Version") != "2011-06-15" || !strings.HasPrefix(form.Get("RoleSessionName"), "gpucost-") && form.Get("RoleSessionName") != "named" {
		t.Errorf("STS %s form %v; want Version 2011-06-15 and a RoleSessionName", action, form)
	}
	switch action {
	case "AssumeRole":
		if form.Get("RoleArn") != "arn:aws:iam::111122223333:role/gpucost" || form.Get("ExternalId") != "ext-1" {
			t.Errorf("AssumeRole form %v; want the profile's role_arn and external_id", form)
		}
		verifySigV4(t, r, body, f.signer, "sts", "eu-west-1")
	case "AssumeRoleWithWebIdentity":
		if form.Get("WebIdentityToken") != "oidc-token" || form.Get("RoleArn") != "arn:aws:iam::111122223333:role/irsa" {
			t.Errorf("AssumeRoleWithWebIdentity form %v; want the token file's token and AWS_ROLE_ARN", form)
		}
		if r.Header.Get("Authorization") != "" {
			t.Errorf("AssumeRoleWithWebIdentity was signed; it must go unsigned")
		}
	default:
		t.Errorf("unexpected STS action %q", action)
	}
	fmt.Fprintf(w, `<%[1]sResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><%[1]sResult><Credentials>
<AccessKeyId>ASIA%[2]s</AccessKeyId><SecretAccessKey>sts-secret</SecretAccessKey><SessionToken>sts-session</SessionToken>
<Expiration>2026-11-27T13:00:00Z</Expiration></Credentials></%[1]sResult></%[1]sResponse>`, action, strings.ToUpper(action[len(action)-4:]))
}

// verifySigV4 signs a copy of r's signed headers and body with creds at testNow and wants the
// same Authorization header.
func verifySigV4(t *testing.T, r *http.Request, body []byte, creds aws.Credentials, service, region string) {
	t.Helper()
	auth := r.Header.Get("Authorization")
	_, signed, _ := strings.Cut(auth, "SignedHeaders=")
	signed, _, _ = strings.Cut(signed, ",")
	req, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	for _, h := range strings.Split(signed, ";") {
		if h != "host" {
			req.Header.Set(h, r.Header.Get(h))
		}
	}
	sum := sha256.Sum256(body)
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), service, region, testNow); err != nil {
		t.Fatal(err)
	}
	if want := req.Header.Get("Authorization"); auth != want {
		t.Errorf("Authorization = %q\nwant %q (signed by %s in %s)", auth, want, creds.AccessKeyID, region)
	}
}

// files writes the shared config, credentials and SSO cache under a home directory.
func files(t *testing.T) string {
	home := t.TempDir()
	write := func(name, text string) {
		p := filepath.Join(home, ".aws", name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("config", `[default]
region = eu-west-1
s3 =
  max_concurrent_requests = 4
[profile static]
aws_access_key_id = AKIACONFIG
aws_secret_access_key = config-secret
[profile role]
role_arn = arn:aws:iam::111122223333:role/gpucost
source_profile = base
external_id = ext-1
region = eu-west-1
[profile envrole]
role_arn = arn:aws:iam::111122223333:role/gpucost
credential_source = Environment
external_id = ext-1
region = eu-west-1
[profile sso]
sso_session = corp
sso_account_id = 111122223333
sso_role_name = GPUAdmin
[sso-session corp]
sso_region = us-east-2
sso_start_url = https://corp.awsapps.com/start
[profile loop]
role_arn = arn:aws:iam::111122223333:role/gpucost
source_profile = loop
[profile proc]
credential_process = printf '{"Version":1,"AccessKeyId":"AKIAPROC","SecretAccessKey":"proc-secret"}'
`)
	write("credentials", `[default]
aws_access_key_id = AKIADEFAULT
aws_secret_access_key = default-secret
[base]
aws_access_key_id = AKIABASE
aws_secret_access_key = base-secret
[half]
aws_access_key_id = AKIAHALF
`)
	sum := sha1.Sum([]byte("corp"))
	write("sso/cache/"+hex.EncodeToString(sum[:])+".json", `{"accessToken":"sso-access-token","expiresAt":"2026-11-27T20:00:00Z","region":"us-east-2"}`)
	return home
}

func (f *fakeAWS) chain(env map[string]string, profile string) *Chain {
	return &Chain{Getenv: func(k string) string { return env[k] }, Profile: profile, Now: func() time.Time { return testNow },
		STSEndpoint: f.srv.URL + "/", SSOEndpoint: f.srv.URL, IMDSEndpoint: f.srv.URL, ECSEndpoint: f.srv.URL}
}

// TestChainOrder checks which source wins when several are configured, and the exact
// requests each makes.
func TestChainOrder(t *testing.T) {
	home := files(t)
	token := filepath.Join(t.TempDir(), "token")
	os.WriteFile(token, []byte("oidc-token\n"), 0o600)
	envKeys := map[string]string{"AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env-secret"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{"HOME": home}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// The fake's address is fixed before the cases, as FULL_URI names it.
	fixed := newFakeAWS(t)
	f0 := fixed.srv.URL
	authFile := filepath.Join(t.TempDir(), "auth")
	os.WriteFile(authFile, []byte("ecs-auth\n"), 0o600)
	webID := []string{"AWS_WEB_IDENTITY_TOKEN_FILE", token, "AWS_ROLE_ARN", "arn:aws:iam::111122223333:role/irsa"}
	for _, c := range []struct {
		name    string
		env     map[string]string
		profile string
		key     string
		calls   string
	}{
		{"env beats the default profile", with(envKeys), "", "AKIAENV", ""},
		{"env beats web identity", with(envKeys, webID...), "", "AKIAENV", ""},
		{"--aws-profile beats env", with(envKeys), "static", "AKIACONFIG", ""},
		{"AWS_PROFILE beats env", with(envKeys, "AWS_PROFILE", "static"), "", "AKIACONFIG", ""},
		{"--aws-profile beats AWS_PROFILE", with(nil, "AWS_PROFILE", "nosuch"), "static", "AKIACONFIG", ""},
		{"web identity beats the default profile", with(nil, webID...), "", "ASIATITY", "sts AssumeRoleWithWebIdentity"},
		{"default profile beats the container", with(nil, "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc"), "", "AKIADEFAULT", ""},
		{"container beats the instance role", with(nil, "HOME", "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "/v2/credentials/abc", "AWS_CONTAINER_AUTHORIZATION_TOKEN", "ecs-auth"), "", "ASIAECS", "ecs"},
		{"container full URI with a token file", with(nil, "HOME", "", "AWS_CONTAINER_CREDENTIALS_FULL_URI", f0+"/v2/credentials/abc", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE", authFile), "", "ASIAECS", "ecs"},
		{"instance role last", with(nil, "HOME", ""), "", "ASIAIMDS", "imds token,imds role"},
		{"role from source_profile", with(envKeys), "role", "ASIAROLE", "sts AssumeRole"},
		{"role from the environment", with(envKeys), "envrole", "ASIAROLE", "sts AssumeRole"},
		{"SSO", with(nil), "sso", "ASIASSO", "sso"},
		{"credential_process", with(nil), "proc", "AKIAPROC", ""},
	} {
		f := newFakeAWS(t)
		if strings.Contains(c.name, "full URI") {
			f = fixed
		}
		f.signer = aws.Credentials{AccessKeyID: "AKIABASE", SecretAccessKey: "base-secret"}
		if c.profile == "envrole" {
			f.signer = aws.Credentials{AccessKeyID: "AKIAENV", SecretAccessKey: "env-secret"}
		}
		got, err := f.chain(c.env, c.profile).Retrieve(context.Background())
		if err != nil || got.AccessKeyID != c.key {
			t.Errorf("%s: Retrieve() = %s, %v; want key %s", c.name, got.AccessKeyID, err, c.key)
		}
		if calls := strings.Join(f.calls, ","); calls != c.calls {
			t.Errorf("%s: requests %q, want %q", c.name, calls, c.calls)
		}
	}
}

// TestChainErrors checks that errors say what was tried and what to set, and never hold a
// secret.
func TestChainErrors(t *testing.T) {
	home := files(t)
	for _, c := range []struct {
		name    string
		env     map[string]string
		profile string
		code    string
		want    []string
	}{
		{"nothing", map[string]string{"AWS_EC2_METADATA_DISABLED": "true"}, "", gpucost.EInvalid,
			[]string{"the environment", "web identity", "default profile", "ECS container", "EC2 instance role", "--aws-profile"}},
		{"missing profile", map[string]string{"HOME": home}, "nosuch", gpucost.EInvalid, []string{"AWS profile nosuch", "aws configure"}},
		{"half a key in the environment", map[string]string{"AWS_ACCESS_KEY_ID": "AKIAENV"}, "", gpucost.EInvalid, []string{"AWS_SECRET_ACCESS_KEY"}},
		{"half a key in a profile", map[string]string{"HOME": home}, "half", gpucost.EInvalid, []string{"without the other"}},
		{"container full URI off the link-local hosts", map[string]string{"AWS_CONTAINER_CREDENTIALS_FULL_URI": "http://10.0.0.9/creds"}, "", gpucost.EInvalid, []string{"use https"}},
		{"source_profile loop", map[string]string{"HOME": home}, "loop", gpucost.EInvalid, []string{"loop"}},
		{"SSO login lapsed", map[string]string{"HOME": home}, "sso", gpucost.EInvalid, []string{"aws sso login --profile sso"}},
	} {
		f := newFakeAWS(t)
		ch := f.chain(c.env, c.profile)
		ch.IMDSEndpoint = "http://127.0.0.1:1"
		if c.name == "SSO login lapsed" {
			ch.Now = func() time.Time { return testNow.Add(24 * time.Hour) }
		}
		_, err := ch.Retrieve(context.Background())
		if gpucost.ErrorCode(err) != c.code {
			t.Errorf("%s: Retrieve() = %v, want an %s error", c.name, err, c.code)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Retrieve() = %v; want it to mention %q", c.name, err, w)
			}
		}
		for _, secret := range []string{"config-secret", "base-secret", "env-secret", "sso-access-token"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%s: the error %q shows a secret", c.name, err)
			}
		}
	}
}

func TestSharedKeys(t *testing.T) {
	home := files(t)
	for _, c := range []struct {
		env    map[string]string
		access string
	}{
		{map[string]string{"HOME": home}, "AKIADEFAULT"},
		{map[string]string{"HOME": home, "AWS_PROFILE": "base"}, "AKIABASE"},
		{map[string]string{"HOME": home, "AWS_PROFILE": "nosuch"}, ""},
		{map[string]string{}, ""},
	} {
		a, _, _, err := SharedKeys(func(k string) string { return c.env[k] })
		if err != nil || a != c.access {
			t.Errorf("SharedKeys(%v) = %q, %v; want %q", c.env, a, err, c.access)
		}
	}
}
