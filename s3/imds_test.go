package s3_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/s3"
	"github.com/gpucost/gpucost/s3/s3test"
)

// fakeIMDS serves an instance role's credentials as the EC2 metadata service does, only to
// requests with the session token it handed out; it counts the credential requests.
func fakeIMDS(t *testing.T, access, secret string, fetched *atomic.Int64) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Path == "/latest/api/token" && r.Header.Get("X-Aws-Ec2-Metadata-Token-Ttl-Seconds") != "" {
			w.Write([]byte("session-token"))
			return
		}
		if r.Header.Get("X-Aws-Ec2-Metadata-Token") != "session-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/latest/meta-data/iam/security-credentials/":
			w.Write([]byte("billing-reader"))
		case "/latest/meta-data/iam/security-credentials/billing-reader":
			fetched.Add(1)
			w.Write([]byte(`{"Code":"Success","AccessKeyId":"` + access + `","SecretAccessKey":"` + secret +
				`","Token":"","Expiration":"` + time.Now().Add(6*time.Hour).UTC().Format(time.RFC3339) + `"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestInstanceRole signs requests to versitygw, which checks them, with an instance role's
// credentials, fetched once; off EC2 the error says which credentials gpucost reads.
func TestInstanceRole(t *testing.T) {
	ctx := context.Background()
	endpoint, bucket := s3test.StartVersity(t)
	var fetched atomic.Int64
	cfg := s3test.Config(endpoint, bucket, "role")
	cfg.AccessKey, cfg.SecretKey = "", ""
	cfg.Credentials = &s3.InstanceRole{Endpoint: fakeIMDS(t, s3test.AccessKey, s3test.SecretKey, &fetched)}
	st, err := s3.Open(ctx, cfg)
	if err != nil {
		t.Fatalf("Open with an instance role = %v", err)
	}
	for range 3 {
		if _, err := st.List(ctx, ""); err != nil {
			t.Fatalf("List with an instance role = %v", err)
		}
	}
	if n := fetched.Load(); n != 1 {
		t.Errorf("the role's credentials were fetched %d times for 4 requests; want once, cached", n)
	}

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cfg.Credentials = &s3.InstanceRole{Endpoint: "http://" + addr}
	_, err = s3.Open(ctx, cfg)
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "AWS_ACCESS_KEY_ID") {
		t.Errorf("Open off EC2 = %v; want an %s error naming AWS_ACCESS_KEY_ID", err, gpucost.EInvalid)
	}
}
