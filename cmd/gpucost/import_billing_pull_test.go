package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/s3/s3test"
)

// runPullCLI runs gpucost with args against the store db, reaching S3 through environ.
func runPullCLI(t *testing.T, db string, environ map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, now: time.Now,
		getenv: func(k string) string { return environ[k] }}
	code := run(context.Background(), append([]string{"--db", db}, args...), e)
	return code, out.String(), errb.String()
}

// TestImportBillingFromS3 imports a Data Exports prefix on versitygw: the current execution,
// then nothing new, then a restatement that replaces it; a delivery overlapping a hand import
// replaces it only with --replace.
func TestImportBillingFromS3(t *testing.T) {
	endpoint, bucket := s3test.StartVersity(t)
	st := s3test.Open(t, endpoint, bucket, "exports/cur2")
	data, err := os.ReadFile("../../billing/awscur/testdata/cur2_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	deliver := func(exec string, rows int) {
		t.Helper()
		key := "data/BILLING_PERIOD=2025-06/" + exec + "/cur2-00001.csv"
		body := strings.Join(lines[:rows+1], "\n") + "\n"
		manifest := `{"executionId":"` + exec + `","dataFiles":["s3://` + bucket + `/exports/cur2/` + key + `"]}`
		for k, v := range map[string]string{key: body, "metadata/BILLING_PERIOD=2025-06/cur2-Manifest.json": manifest} {
			if err := st.Put(context.Background(), k, strings.NewReader(v), int64(len(v))); err != nil {
				t.Fatal(err)
			}
		}
	}
	environ := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey, "AWS_SECRET_ACCESS_KEY": s3test.SecretKey}
	db := filepath.Join(t.TempDir(), "gpucost.db")
	url := "s3://" + bucket + "/exports/"
	pull := func() []importedFile {
		t.Helper()
		code, out, errOut := runPullCLI(t, db, environ, "import", "billing", "--output", "json", url)
		if code != exitOK {
			t.Fatalf("import billing %s: exit %d: %s%s", url, code, out, errOut)
		}
		var files []importedFile
		if err := json.Unmarshal([]byte(out), &files); err != nil {
			t.Fatalf("import billing --output json: %v\n%s", err, out)
		}
		return files
	}
	deliver("exec-1", 12)
	if got := pull(); len(got) != 1 || got[0].Status != "imported" || got[0].Rows != 12 || !strings.Contains(got[0].File, "/exec-1/") {
		t.Fatalf("first import = %+v; want exec-1's file imported, 12 rows", got)
	}
	if got := pull(); len(got) != 1 || !strings.HasPrefix(got[0].Status, "skipped: imported before") {
		t.Errorf("second import = %+v; want the file skipped as imported before", got)
	}
	deliver("exec-2", len(lines)-1)
	got := pull()
	if len(got) != 1 || got[0].Status != "replaced import 1" || got[0].Rows != len(lines)-1 {
		t.Errorf("import after a restatement = %+v; want exec-2 replacing import 1 with %d rows", got, len(lines)-1)
	}
	// A hand import of the same bill takes the pulled one's place; the next delivery overlaps
	// it and, being from elsewhere, is refused until --replace.
	local := filepath.Join(t.TempDir(), "june.csv")
	os.WriteFile(local, []byte(strings.Join(lines[:16], "\n")+"\n"), 0o600)
	if code, out, errOut := runPullCLI(t, db, environ, "import", "billing", "--replace", local); code != exitOK {
		t.Fatalf("import billing --replace %s: exit %d: %s%s", local, code, out, errOut)
	}
	deliver("exec-3", 18)
	code, _, errOut := runPullCLI(t, db, environ, "import", "billing", url)
	if code != exitConflict || !strings.Contains(errOut, "june.csv") {
		t.Errorf("import billing %s over a hand import: exit %d, %q; want exit %d naming june.csv", url, code, errOut, exitConflict)
	}
	code, out, errOut := runPullCLI(t, db, environ, "import", "billing", "--replace", url)
	if code != exitOK || !strings.Contains(out, "replaced import") {
		t.Errorf("import billing --replace %s: exit %d, %s%s; want exec-3 replacing the hand import", url, code, out, errOut)
	}
}
