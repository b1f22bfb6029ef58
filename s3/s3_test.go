package s3_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/objectstoretest"
	"github.com/gpucost/gpucost/s3"
	"github.com/gpucost/gpucost/s3/s3test"
)

func TestFakeContract(t *testing.T) {
	endpoint, bucket := s3test.StartFake(t)
	objectstoretest.Run(t, s3test.Open(t, endpoint, bucket, "pre/fix"))
}

func TestVersityContract(t *testing.T) {
	endpoint, bucket := s3test.StartVersity(t)
	objectstoretest.Run(t, s3test.Open(t, endpoint, bucket, ""))
}

// TestPrefixIsolates checks that a store sees only its own prefix and that keys come back
// relative to it.
func TestPrefixIsolates(t *testing.T) {
	endpoint, bucket := s3test.StartFake(t)
	ctx := context.Background()
	a, b := s3test.Open(t, endpoint, bucket, "a"), s3test.Open(t, endpoint, bucket, "/ab/")
	objectstoretest.Put(ctx, t, a, "k", []byte("in a"))
	objectstoretest.Put(ctx, t, b, "k", []byte("in ab"))
	for _, c := range []struct {
		s    *s3.Store
		want string
	}{{a, "in a"}, {b, "in ab"}} {
		got, err := c.s.List(ctx, "")
		if err != nil || len(got) != 1 || got[0].Key != "k" {
			t.Errorf("%s: List(\"\") = %v, %v; want just k", c.s, got, err)
		}
		if data := objectstoretest.Get(ctx, t, c.s, "k"); string(data) != c.want {
			t.Errorf("%s: Get(k) = %q, want %q", c.s, data, c.want)
		}
	}
}

func TestOpenUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nobody listens there now
	cfg := s3test.Config("http://"+addr, "bucket", "p")
	_, err = s3.Open(context.Background(), cfg)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "s3://bucket/p") {
		t.Errorf("Open(unreachable) = %v, want an %s error naming s3://bucket/p and %s", err, gpucost.EUnavailable, addr)
	}
}

func TestOpenMissingBucket(t *testing.T) {
	endpoint, _ := s3test.StartFake(t)
	_, err := s3.Open(context.Background(), s3test.Config(endpoint, "nosuch", ""))
	if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("Open(missing bucket) = %v, want an %s error naming the bucket", err, gpucost.ENotFound)
	}
}

func TestBadKeys(t *testing.T) {
	endpoint, bucket := s3test.StartFake(t)
	s := s3test.Open(t, endpoint, bucket, "")
	for _, key := range []string{"", "/abs", "../up", "a/../../b", "a//b"} {
		if err := s.Put(context.Background(), key, strings.NewReader("x"), 1); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Put(%q) = %v, want an %s error", key, err, gpucost.EInvalid)
		}
	}
}
