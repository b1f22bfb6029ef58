package storeopen

import (
	"bytes"
	"context"
	"io"
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/s3/s3test"
)

// getenv reads vars as the environment.
func getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestObjectsFile(t *testing.T) {
	ctx := context.Background()
	for _, url := range []string{"file://" + t.TempDir(), filepath.Join(t.TempDir(), "bare")} {
		s, err := Objects(ctx, url, getenv(nil))
		if err != nil {
			t.Fatalf("Objects(%q) = %v", url, err)
		}
		roundTrip(t, s)
	}
}

func TestObjectsS3(t *testing.T) {
	endpoint, bucket := s3test.StartFake(t)
	vars := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey, "AWS_SECRET_ACCESS_KEY": s3test.SecretKey}
	s, err := Objects(context.Background(), "s3://"+bucket+"/jobs/a", getenv(vars))
	if err != nil {
		t.Fatalf("Objects(s3://%s/jobs/a) = %v", bucket, err)
	}
	roundTrip(t, s)
	vars["AWS_ENDPOINT_URL_S3"] = endpoint // the S3-specific variable wins over a bad general one
	vars["AWS_ENDPOINT_URL"] = "http://127.0.0.1:1"
	if _, err := Objects(context.Background(), "s3://"+bucket, getenv(vars)); err != nil {
		t.Errorf("AWS_ENDPOINT_URL_S3 not used: %v", err)
	}
}

func TestObjectsBad(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	for _, c := range []struct {
		url  string
		vars map[string]string
		code string
		says string
	}{
		{"", nil, gpucost.EInvalid, "s3://BUCKET"},
		{"gs://b/p", nil, gpucost.EInvalid, "unknown scheme"},
		{"s3:///p", nil, gpucost.EInvalid, "names no bucket"},
		{"s3://b/p", map[string]string{"AWS_ACCESS_KEY_ID": "k"}, gpucost.EInvalid, "AWS_SECRET_ACCESS_KEY"},
		{"s3://b/p", map[string]string{"AWS_ENDPOINT_URL": "localhost:9000"}, gpucost.EInvalid, "needs a scheme"},
		{"s3://b/p", map[string]string{"AWS_ENDPOINT_URL": dead}, gpucost.EUnavailable, "s3://b/p"},
	} {
		_, err := Objects(context.Background(), c.url, getenv(c.vars))
		if gpucost.ErrorCode(err) != c.code || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Objects(%q, %v) = %v, want %s saying %q", c.url, c.vars, err, c.code, c.says)
		}
	}
}

func roundTrip(t *testing.T, s gpucost.ObjectStore) {
	t.Helper()
	ctx := context.Background()
	if err := s.Put(ctx, "x/y", strings.NewReader("hello"), 5); err != nil {
		t.Fatalf("Put: %v", err)
	}
	rc, err := s.Get(ctx, "x/y")
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	defer rc.Close()
	var b bytes.Buffer
	io.Copy(&b, rc)
	if b.String() != "hello" {
		t.Errorf("Get = %q, want hello", b.String())
	}
}
