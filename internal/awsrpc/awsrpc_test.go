package awsrpc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
)

var noWait = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })

func creds() aws.CredentialsProvider {
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
		return aws.Credentials{AccessKeyID: "AKIDRPC", SecretAccessKey: "rpc-secret", SessionToken: "tok"}, nil
	})
}

// server answers with the statuses and bodies given, in turn (the last one repeats), and
// records each request.
func server(t *testing.T, answers ...[2]string) (*httptest.Server, *[]*http.Request, *[]string) {
	var reqs []*http.Request
	var bodies []string
	var n atomic.Int32
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs, bodies = append(reqs, r), append(bodies, string(b))
		mu.Unlock()
		a := answers[min(int(n.Add(1))-1, len(answers)-1)]
		var status int
		for _, c := range a[0] {
			status = status*10 + int(c-'0')
		}
		w.Header().Set("X-Amzn-RequestId", "rid-1")
		w.WriteHeader(status)
		io.WriteString(w, a[1])
	}))
	t.Cleanup(srv.Close)
	return srv, &reqs, &bodies
}

func TestQuerySignsAndDecodes(t *testing.T) {
	srv, reqs, bodies := server(t, [2]string{"200", `<R xmlns="x"><value>42</value></R>`})
	c := &Client{Service: "ec2", Host: "ec2", Region: "eu-west-1", BaseURL: srv.URL, Credentials: creds(),
		Now: func() time.Time { return time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC) }}
	var out struct {
		Value int `xml:"value"`
	}
	if err := c.Query(context.Background(), "EC2 Test", "DescribeThings", "2016-11-15", url.Values{"Filter.1.Name": {"a b"}}, &out); err != nil {
		t.Fatalf("Query() = %v", err)
	}
	if out.Value != 42 {
		t.Errorf("Query() decoded %d, want 42", out.Value)
	}
	r := (*reqs)[0]
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDRPC/20261120/eu-west-1/ec2/aws4_request") || strings.Contains(auth, "rpc-secret") {
		t.Errorf("Authorization = %q, want a SigV4 signature for ec2 in eu-west-1 without the secret", auth)
	}
	if r.Header.Get("X-Amz-Date") != "20261120T100000Z" || r.Header.Get("X-Amz-Security-Token") != "tok" {
		t.Errorf("X-Amz-Date %q, X-Amz-Security-Token %q", r.Header.Get("X-Amz-Date"), r.Header.Get("X-Amz-Security-Token"))
	}
	form, _ := url.ParseQuery((*bodies)[0])
	if form.Get("Action") != "DescribeThings" || form.Get("Version") != "2016-11-15" || form.Get("Filter.1.Name") != "a b" {
		t.Errorf("form = %v", form)
	}
}

func TestJSONErrorsAndRetries(t *testing.T) {
	for _, tc := range []struct {
		name     string
		answers  [][2]string
		attempts int
		calls    int
		code     string
		status   int
	}{
		{"throttled then done", [][2]string{{"400", `{"__type":"com.amazon#ThrottlingException","message":"Rate exceeded"}`}, {"200", `{}`}}, 3, 2, "", 0},
		{"server error until the attempts end", [][2]string{{"503", `{"__type":"ServiceUnavailable"}`}}, 3, 3, "ServiceUnavailable", 503},
		{"429 is retried", [][2]string{{"429", `{}`}, {"200", `{}`}}, 2, 2, "", 0},
		{"a refusal is not retried", [][2]string{{"400", `{"__type":"ValidationException","message":"no such endpoint"}`}}, 3, 1, "ValidationException", 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, reqs, _ := server(t, tc.answers...)
			c := &Client{Service: "sagemaker", Host: "api.sagemaker", Region: "us-east-1", BaseURL: srv.URL, Credentials: creds(), MaxAttempts: tc.attempts, Backoff: noWait}
			err := c.JSON(context.Background(), "SageMaker Test", "SageMaker.Test", map[string]string{"A": "b"}, nil)
			if len(*reqs) != tc.calls {
				t.Errorf("JSON() made %d requests, want %d", len(*reqs), tc.calls)
			}
			var e *Error
			switch {
			case tc.code == "" && err != nil:
				t.Errorf("JSON() = %v, want nil", err)
			case tc.code != "" && (!errors.As(err, &e) || e.Code != tc.code || e.Status != tc.status || e.RequestID != "rid-1"):
				t.Errorf("JSON() = %#v, want code %s status %d request rid-1", err, tc.code, tc.status)
			}
			if r := (*reqs)[0]; r.Header.Get("X-Amz-Target") != "SageMaker.Test" || r.Header.Get("Content-Type") != "application/x-amz-json-1.1" {
				t.Errorf("headers = %v", r.Header)
			}
		})
	}
}

func TestQueryError(t *testing.T) {
	srv, _, _ := server(t, [2]string{"400", `<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID 'i-1' does not exist</Message></Error></Errors><RequestID>r-9</RequestID></Response>`})
	c := &Client{Service: "ec2", Host: "ec2", Region: "us-east-1", BaseURL: srv.URL, Credentials: aws.AnonymousCredentials{}}
	err := c.Query(context.Background(), "EC2 StopInstances", "StopInstances", "2016-11-15", nil, &struct{}{})
	want := "EC2 StopInstances: HTTP 400 InvalidInstanceID.NotFound: The instance ID 'i-1' does not exist (request r-9)"
	if err == nil || err.Error() != want {
		t.Errorf("Query() = %v, want %s", err, want)
	}
}

func TestUnsignedAndUnreachable(t *testing.T) {
	srv, reqs, _ := server(t, [2]string{"200", `{}`})
	c := &Client{Service: "pricing", Host: "api.pricing", Region: "us-east-1", BaseURL: srv.URL, Credentials: aws.AnonymousCredentials{}}
	if err := c.JSON(context.Background(), "GetProducts", "AWSPriceListService.GetProducts", struct{}{}, nil); err != nil {
		t.Fatal(err)
	}
	if a := (*reqs)[0].Header.Get("Authorization"); a != "" {
		t.Errorf("anonymous request carries Authorization %q", a)
	}
	c = &Client{Service: "ec2", Host: "ec2", Region: "us-east-1", BaseURL: "http://127.0.0.1:1", MaxAttempts: 2, Backoff: noWait}
	var e *Error
	if err := c.Query(context.Background(), "EC2 X", "X", "1", nil, &struct{}{}); !errors.As(err, &e) || e.Status != 0 || e.Err == nil {
		t.Errorf("Query() against a closed port = %v, want an Error without a status", err)
	}
}

func TestEndpoint(t *testing.T) {
	for _, tc := range []struct{ host, region, want string }{
		{"ec2", "us-east-1", "https://ec2.us-east-1.amazonaws.com/"},
		{"api.sagemaker", "eu-west-2", "https://api.sagemaker.eu-west-2.amazonaws.com/"},
		{"ec2", "cn-north-1", "https://ec2.cn-north-1.amazonaws.com.cn/"},
	} {
		if got := (&Client{Host: tc.host, Region: tc.region}).endpoint(); got != tc.want {
			t.Errorf("endpoint(%s, %s) = %s, want %s", tc.host, tc.region, got, tc.want)
		}
	}
}

// TestDoRetriesWithFreshBody checks that Do makes a new request for each try, so that a body is
// sent whole again, and that XMLError reads S3's error answers, and a HEAD answer's bare status.
func TestDoRetriesWithFreshBody(t *testing.T) {
	srv, reqs, bodies := server(t, [2]string{"503", `<Error><Code>SlowDown</Code><Message>later</Message><RequestId>r1</RequestId></Error>`},
		[2]string{"200", "done"})
	c := &Client{Service: "s3", Region: "us-east-1", Credentials: creds(), MaxAttempts: 3, Backoff: noWait, RawPath: true}
	newReq := func() (*http.Request, error) {
		return http.NewRequest(http.MethodPut, srv.URL+"/bucket/a%20b", strings.NewReader("payload"))
	}
	res, err := c.Do(context.Background(), "S3 PutObject", newReq, "UNSIGNED-PAYLOAD", XMLError)
	if err != nil {
		t.Fatalf("Do = %v", err)
	}
	res.Body.Close()
	if len(*reqs) != 2 || (*bodies)[1] != "payload" || !strings.Contains((*reqs)[1].Header.Get("Authorization"), "Credential=AKIDRPC/") {
		t.Errorf("Do sent %d requests, bodies %q; want 2 signed, each with the whole body", len(*reqs), *bodies)
	}

	srv, _, _ = server(t, [2]string{"404", `<Error><Code>NoSuchKey</Code><Message>gone</Message><RequestId>r2</RequestId></Error>`})
	_, err = c.Do(context.Background(), "S3 GetObject", func() (*http.Request, error) { return http.NewRequest(http.MethodGet, srv.URL+"/b/k", nil) }, "UNSIGNED-PAYLOAD", XMLError)
	var e *Error
	if !errors.As(err, &e) || e.Code != "NoSuchKey" || e.RequestID != "r2" || e.Status != 404 {
		t.Errorf("Do(missing key) = %v, want NoSuchKey with request r2", err)
	}
	srv, _, _ = server(t, [2]string{"403", ""})
	_, err = c.Do(context.Background(), "S3 HeadBucket", func() (*http.Request, error) { return http.NewRequest(http.MethodHead, srv.URL+"/b", nil) }, "UNSIGNED-PAYLOAD", XMLError)
	if !errors.As(err, &e) || e.Code != "Forbidden" {
		t.Errorf("Do(HEAD refused) = %v, want the code Forbidden", err)
	}
}
