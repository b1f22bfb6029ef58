package gcpcreds

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

const awsTokenType = "urn:ietf:params:aws:token-type:aws4_request"

// fakeAWSSource is the EC2 metadata server (IMDSv2) and Google's STS for an AWS-sourced
// external account. The STS decodes the subject token and checks the signed GetCallerIdentity
// request exactly: its URL, method, headers, and a signature equal to the AWS SDK's for the
// same request, keys and time.
type fakeAWSSource struct {
	t      *testing.T
	srv    *httptest.Server
	calls  []string
	keys   aws.Credentials
	region string
}

func newFakeAWSSource(t *testing.T, keys aws.Credentials, region string) *fakeAWSSource {
	f := &fakeAWSSource{t: t, keys: keys, region: region}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeAWSSource) serve(w http.ResponseWriter, r *http.Request) {
	t := f.t
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	if strings.HasPrefix(r.URL.Path, "/latest/meta-data/") && r.Header.Get("X-aws-ec2-metadata-token") != "imds-session" {
		t.Errorf("%s without the IMDSv2 session token", r.URL.Path)
	}
	switch r.URL.Path {
	case "/latest/api/token":
		if r.Method != http.MethodPut || r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds") != "300" {
			t.Errorf("IMDSv2 token request %s ttl %q", r.Method, r.Header.Get("X-aws-ec2-metadata-token-ttl-seconds"))
		}
		fmt.Fprint(w, "imds-session")
	case "/latest/meta-data/placement/availability-zone":
		fmt.Fprint(w, "us-west-2b")
	case "/latest/meta-data/iam/security-credentials":
		fmt.Fprint(w, "gpu-role")
	case "/latest/meta-data/iam/security-credentials/gpu-role":
		fmt.Fprint(w, `{"Code":"Success","Type":"AWS-HMAC","AccessKeyId":"ASIAROLE","SecretAccessKey":"role-secret","Token":"role-session","Expiration":"2026-11-27T18:00:00Z"}`)
	case "/v1/token":
		r.ParseForm()
		if got := r.PostForm.Get("subject_token_type"); got != awsTokenType {
			t.Errorf("subject_token_type = %q, want %q", got, awsTokenType)
		}
		f.checkSubject(r.PostForm.Get("subject_token"))
		fmt.Fprint(w, `{"access_token":"federated-from-aws","token_type":"Bearer","expires_in":3599}`)
	default:
		t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func (f *fakeAWSSource) checkSubject(token string) {
	t := f.t
	raw, err := url.QueryUnescape(token)
	if err != nil {
		t.Fatalf("subject_token is not URL-encoded: %v", err)
	}
	var got struct {
		URL     string `json:"url"`
		Method  string `json:"method"`
		Headers []struct {
			Key   string `json:"key"`
			Value string `json:"value"`
		} `json:"headers"`
	}
	if err := json.Unmarshal([]byte(raw), &got); err != nil {
		t.Fatalf("subject_token is not the JSON of a request: %v\n%s", err, raw)
	}
	wantURL := "https://sts." + f.region + ".amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15"
	if got.URL != wantURL || got.Method != "POST" {
		t.Errorf("subject request %s %s, want POST %s", got.Method, got.URL, wantURL)
	}
	// The AWS SDK signs the same request, at the same time, with the same keys.
	req, _ := http.NewRequest(http.MethodPost, wantURL, nil)
	req.Header.Set("X-Goog-Cloud-Target-Resource", testAudience)
	empty := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	if err := v4.NewSigner().SignHTTP(context.Background(), f.keys, req, empty, "sts", f.region, testNow); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"Authorization": req.Header.Get("Authorization"), "Host": "sts." + f.region + ".amazonaws.com",
		"X-Amz-Date": "20261127T120000Z", "X-Goog-Cloud-Target-Resource": testAudience}
	wantKeys := []string{"Authorization", "Host", "X-Amz-Date", "X-Goog-Cloud-Target-Resource"}
	if f.keys.SessionToken != "" {
		want["X-Amz-Security-Token"] = f.keys.SessionToken
		wantKeys = []string{"Authorization", "Host", "X-Amz-Date", "X-Amz-Security-Token", "X-Goog-Cloud-Target-Resource"}
	}
	var keys []string
	headers := map[string]string{}
	for _, h := range got.Headers {
		keys = append(keys, h.Key)
		headers[h.Key] = h.Value
	}
	if !reflect.DeepEqual(keys, wantKeys) || !reflect.DeepEqual(headers, want) {
		t.Errorf("subject request headers\n%v\nwant (in this order %v)\n%v", headers, wantKeys, want)
	}
}

// TestExternalAccountAWS: an AWS-sourced external account signs GetCallerIdentity with the
// environment's keys and region, asking no metadata; without them, with the EC2 instance
// role's keys and the instance's region through IMDSv2; either way the STS gets the subject
// token Google's libraries make.
func TestExternalAccountAWS(t *testing.T) {
	for _, c := range []struct {
		name  string
		env   map[string]string
		keys  aws.Credentials
		calls []string
	}{
		{"environment", map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "env-secret", "AWS_DEFAULT_REGION": "eu-west-1"},
			aws.Credentials{AccessKeyID: "AKIDENV", SecretAccessKey: "env-secret"}, []string{"POST /v1/token"}},
		{"instance role", map[string]string{}, aws.Credentials{AccessKeyID: "ASIAROLE", SecretAccessKey: "role-secret", SessionToken: "role-session"},
			[]string{"PUT /latest/api/token", "GET /latest/meta-data/iam/security-credentials", "GET /latest/meta-data/iam/security-credentials/gpu-role",
				"GET /latest/meta-data/placement/availability-zone", "POST /v1/token"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			region := "us-west-2"
			if c.env["AWS_DEFAULT_REGION"] != "" {
				region = c.env["AWS_DEFAULT_REGION"]
			}
			f := newFakeAWSSource(t, c.keys, region)
			md := f.srv.URL + "/latest"
			cfg := map[string]any{"type": "external_account", "audience": testAudience, "subject_token_type": awsTokenType, "token_url": f.srv.URL + "/v1/token",
				"credential_source": map[string]any{"environment_id": "aws1", "region_url": md + "/meta-data/placement/availability-zone",
					"url": md + "/meta-data/iam/security-credentials", "regional_cred_verification_url": defaultVerificationURL,
					"imdsv2_session_token_url": md + "/api/token"}}
			env := map[string]string{"GOOGLE_APPLICATION_CREDENTIALS": writeJSON(t, t.TempDir(), "aws.json", cfg)}
			for k, v := range c.env {
				env[k] = v
			}
			ch := &Chain{Getenv: func(k string) string { return env[k] }, Now: func() time.Time { return testNow }}
			tok, err := ch.Token(context.Background())
			if err != nil || tok != "federated-from-aws" {
				t.Fatalf("Token() = %q, %v; want federated-from-aws", tok, err)
			}
			if !reflect.DeepEqual(f.calls, c.calls) {
				t.Errorf("requests %q, want %q", f.calls, c.calls)
			}
		})
	}
}
