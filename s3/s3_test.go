package s3_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"io"
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

// onlyReader hides a reader's ReadAt, so that Put streams it through part buffers.
type onlyReader struct{ r io.Reader }

func (o onlyReader) Read(p []byte) (int, error) { return o.r.Read(p) }

// TestStreamedPut puts readers without ReadAt, of known and unknown size, large enough for
// multipart uploads, under keys that need escaping, to both servers; versitygw checks the
// signatures.
func TestStreamedPut(t *testing.T) {
	ctx := context.Background()
	data := make([]byte, 5*s3.PartSize/2+12345)
	rand.Read(data)
	for _, start := range []func(testing.TB) (string, string){s3test.StartFake, s3test.StartVersity} {
		endpoint, bucket := start(t)
		s := s3test.Open(t, endpoint, bucket, "stream")
		for _, c := range []struct {
			key  string
			n    int
			size int64
		}{
			{"big/known size", len(data), int64(len(data))},
			{"big/unknown+size", len(data), -1},
			{"small/ünïcode & co=1", 1000, -1},
			{"small/empty", 0, -1},
		} {
			if err := s.Put(ctx, c.key, onlyReader{bytes.NewReader(data[:c.n])}, c.size); err != nil {
				t.Fatalf("%s: Put(%q, %d) = %v", endpoint, c.key, c.size, err)
			}
			if got := objectstoretest.Get(ctx, t, s, c.key); !bytes.Equal(got, data[:c.n]) {
				t.Errorf("%s: Get(%q) = %d bytes, want the %d put", endpoint, c.key, len(got), c.n)
			}
		}
		// As with the SDK, bytes past the announced size are not sent.
		if err := s.Put(ctx, "small/cut", onlyReader{bytes.NewReader(data)}, 1000); err != nil {
			t.Fatalf("%s: Put(small/cut, 1000 of %d bytes) = %v", endpoint, len(data), err)
		}
		if got := objectstoretest.Get(ctx, t, s, "small/cut"); !bytes.Equal(got, data[:1000]) {
			t.Errorf("%s: Get(small/cut) = %d bytes, want the first 1000", endpoint, len(got))
		}
		objs, err := s.List(ctx, "small/")
		if err != nil || len(objs) != 3 || objs[2].Key != "small/ünïcode & co=1" {
			t.Errorf("%s: List(small/) = %v, %v; want the three small keys", endpoint, objs, err)
		}
		err = s.Put(ctx, "big/short", onlyReader{bytes.NewReader(data)}, int64(len(data))+1)
		if err == nil || !strings.Contains(err.Error(), "short") {
			t.Errorf("%s: Put(short reader) = %v, want a short-body error", endpoint, err)
		}
		if _, err := s.Get(ctx, "big/short"); gpucost.ErrorCode(err) != gpucost.ENotFound {
			t.Errorf("%s: Get(big/short) after a failed upload = %v, want %s", endpoint, err, gpucost.ENotFound)
		}
	}
}

// TestRefusedCredentials checks that a wrong secret is an EInvalid error naming what to check.
func TestRefusedCredentials(t *testing.T) {
	endpoint, bucket := s3test.StartVersity(t)
	cfg := s3test.Config(endpoint, bucket, "")
	cfg.SecretKey = "wrong"
	_, err := s3.Open(context.Background(), cfg)
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("Open(wrong secret) = %v, want an %s error naming AWS_SECRET_ACCESS_KEY", err, gpucost.EInvalid)
	}
}
