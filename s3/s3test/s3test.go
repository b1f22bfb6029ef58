// Package s3test starts S3 servers for tests: gofakes3 in-process, and versitygw as a real
// server process on loopback. Tests of every package that talks to S3 share them.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost/s3"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Credentials the servers started here accept.
const (
	AccessKey = "gpucost-test"
	SecretKey = "gpucost-test-secret"
	Bucket    = "gpucost"
)

// InstallVersity is the command that installs the versitygw the tests need.
const InstallVersity = "go install github.com/versity/versitygw/cmd/versitygw@v1.8.0"

// Config returns the Config that reaches bucket at endpoint with the test credentials.
func Config(endpoint, bucket, prefix string) s3.Config {
	return s3.Config{Endpoint: endpoint, Bucket: bucket, Prefix: prefix, AccessKey: AccessKey,
		SecretKey: SecretKey, PathStyle: true}
}

// Open opens a store over bucket/prefix at endpoint or fails the test.
func Open(t testing.TB, endpoint, bucket, prefix string) *s3.Store {
	t.Helper()
	s, err := s3.Open(context.Background(), Config(endpoint, bucket, prefix))
	if err != nil {
		t.Fatalf("open s3 store: %v", err)
	}
	return s
}

// StartFake starts gofakes3 in-process with an empty bucket and returns its endpoint and the
// bucket's name. It stops when the test ends.
func StartFake(t testing.TB) (endpoint, bucket string) {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(Bucket); err != nil {
		t.Fatalf("gofakes3: create bucket: %v", err)
	}
	srv := httptest.NewServer(gofakes3.New(backend, gofakes3.WithTimeSkewLimit(0)).Server())
	t.Cleanup(srv.Close)
	return srv.URL, Bucket
}

// StartVersity starts versitygw over a posix directory with an empty bucket and returns its
// endpoint and the bucket's name; it is killed when the test ends. Without versitygw the test
// fails under CI=true and is skipped otherwise, naming the install command.
func StartVersity(t testing.TB) (endpoint, bucket string) {
	t.Helper()
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, Bucket), 0o755); err != nil {
		t.Fatal(err)
	}
	endpoint, missing := ServeVersity(t, root)
	if missing != "" {
		t.Skip(missing)
	}
	return endpoint, Bucket
}

// ServeVersity starts versitygw over root, whose folders are its buckets, and returns its
// endpoint; it is killed when the test ends. Without versitygw it returns "" and why, or fails
// the test under CI=true.
func ServeVersity(t testing.TB, root string) (endpoint, missing string) {
	t.Helper()
	bin := findVersity()
	if bin == "" {
		msg := "versitygw is not installed; install it with: " + InstallVersity
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		return "", msg
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--access", AccessKey, "--secret", SecretKey, "--port", addr, "posix", root)
	log, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("start versitygw: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		log.Close()
	})
	endpoint = "http://" + addr
	if err := waitHTTP(endpoint, 20*time.Second); err != nil {
		out, _ := os.ReadFile(log.Name())
		t.Fatalf("versitygw did not start: %v\n%s", err, out)
	}
	return endpoint, ""
}

// HaveVersity reports whether versitygw is installed.
func HaveVersity() bool { return findVersity() != "" }

// findVersity returns the versitygw binary on PATH or in the Go bin directory, or "".
func findVersity() string {
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p
	}
	dirs := []string{os.Getenv("GOBIN")}
	if gp := os.Getenv("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, "go", "bin"))
	}
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, "versitygw")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p
		}
	}
	return ""
}

// freeAddr returns a loopback address with a port nobody listens on.
func freeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitHTTP waits until endpoint answers any HTTP request.
func waitHTTP(endpoint string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		resp, err := http.Get(endpoint)
		if err == nil {
			resp.Body.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer from %s after %v: %w", endpoint, limit, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
