package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/s3/s3test"
)

// TestSchemasAPIBillSources serves two bill sources on an in-process S3, one holding a Data
// Exports delivery and one a missing bucket, and checks GET /api/v1/bill-sources against
// docs/schema/api-bill-sources.json and httpapi/openapi.json once both have been pulled: the
// pulled source's counts and the failing one's error. A role that may not read it, no token,
// and a server without --pull-bills get the documented errors.
func TestSchemasAPIBillSources(t *testing.T) {
	ctx := context.Background()
	endpoint, bucket := s3test.StartFake(t)
	exports := s3test.Open(t, endpoint, bucket, "exports/cur2")
	data, err := os.ReadFile("../../billing/awscur/testdata/cur2_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	key := "data/BILLING_PERIOD=2025-06/exec-1/cur2-00001.csv"
	manifest := `{"executionId":"exec-1","dataFiles":["s3://` + bucket + `/exports/cur2/` + key + `"]}`
	for k, v := range map[string]string{key: string(data), "metadata/BILLING_PERIOD=2025-06/cur2-Manifest.json": manifest} {
		if err := exports.Put(ctx, k, strings.NewReader(v), int64(len(v))); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey, "AWS_SECRET_ACCESS_KEY": s3test.SecretKey}
	o := serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20}
	o.pull.every = time.Hour
	o.pull.specs = []cloudsource.Spec{{Name: "cur", URL: "s3://" + bucket + "/exports/"}, {Name: "gone", URL: "s3://nosuch/exports/"}}
	s := startViewServerEnv(t, filepath.Join(t.TempDir(), "gpucost.db"), o, func(k string) string { return env[k] })

	const op = "GET /api/v1/bill-sources"
	var out []byte
	for range 300 {
		var status int
		status, out = s.do(t, "GET", "/api/v1/bill-sources", gpucost.RoleViewer, nil)
		if status != http.StatusOK {
			t.Fatalf("GET /api/v1/bill-sources = %d %s", status, out)
		}
		var r httpapi.BillSourcesResponse
		json.Unmarshal(out, &r)
		if len(r.Sources) == 2 && !r.Sources[0].LastPull.IsZero() && !r.Sources[1].LastPull.IsZero() {
			if !r.Sources[0].OK || r.Sources[0].Imported != 1 || r.Sources[1].OK || r.Sources[1].Error == "" || r.Sources[1].FailingFrom.IsZero() {
				t.Errorf("GET /api/v1/bill-sources = %s; want cur's delivery imported and gone failing, with its error", out)
			}
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(string(out), `"last_pull"`) || !strings.Contains(string(out), `"failing_since"`) {
		t.Fatalf("GET /api/v1/bill-sources = %s; no pull of both sources within 15 s", out)
	}
	checkAgainstSchema(t, op, "api-bill-sources", loadSchema(t, "api-bill-sources"), out)
	checkAgainstOpenAPI(t, op, op, http.StatusOK, out)

	ops, codes := readOpenAPI(t)
	w := &writeChecker{t: t, s: s, ops: ops, codes: codes, got: map[string]bool{}}
	w.refused(op, "/api/v1/bill-sources", nil)
	none := startViewServer(t, filepath.Join(t.TempDir(), "gpucost.db"), serveOptions{flush: time.Second, viewsEvery: time.Minute, maxBill: 1 << 20})
	w.s = none
	w.do(op, gpucost.RoleViewer, "/api/v1/bill-sources", nil, http.StatusServiceUnavailable)
}
