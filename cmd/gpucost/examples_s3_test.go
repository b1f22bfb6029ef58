package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/s3/s3test"
)

// s3Buckets are the buckets the examples name; versitygw serves each from a directory.
var s3Buckets = []string{"bucket", "my-bucket", "billing-bucket"}

// isS3Example reports whether line's command reaches S3 (names an s3:// URL): those examples
// run against versitygw on loopback through AWS_ENDPOINT_URL and the access keys, and are
// skipped where versitygw is not installed (failed under CI=true).
func isS3Example(line string) bool {
	return strings.Contains(exampleCommand(line), " s3://")
}

// startExampleS3 starts versitygw on loopback with s3Buckets, billing-bucket holding the CUR
// export under exports/ and my-bucket the demo's spot jobs and a run of llama-ft under jobs/, and returns the
// environment that reaches it; "" and no environment where versitygw is not installed.
func startExampleS3(t *testing.T, dir string, environ map[string]string) (map[string]string, string) {
	t.Helper()
	root := filepath.Join(dir, "s3")
	for _, b := range s3Buckets {
		if err := os.MkdirAll(filepath.Join(root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The Data Exports delivery: the same files as the local export, under the bucket's exports/.
	if err := os.CopyFS(filepath.Join(root, "billing-bucket", "exports"), os.DirFS("exports")); err != nil {
		t.Fatal(err)
	}
	// The jobs the reports read: the demo's spot jobs in my-bucket, a run of llama-ft added below.
	if err := os.CopyFS(filepath.Join(root, "my-bucket", "jobs"), os.DirFS("demo-jobs")); err != nil {
		t.Fatal(err)
	}
	endpoint, missing := s3test.ServeVersity(t, root)
	if missing != "" {
		return nil, missing
	}
	s3env := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey,
		"AWS_SECRET_ACCESS_KEY": s3test.SecretKey, "AWS_REGION": "us-east-1"}
	for k, v := range environ {
		s3env[k] = v
	}
	line := "gpucost run --name llama-ft --checkpoint-dir ckpt-s3 --store s3://my-bucket/jobs -- ./train.sh"
	if code, out := runExampleEnv(t, line, s3env); code != exitOK {
		t.Fatalf("%s: exit %d\n%s", line, code, out)
	}
	return s3env, ""
}
