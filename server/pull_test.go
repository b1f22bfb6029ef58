package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/s3/s3test"
	"github.com/gpucost/gpucost/sqlite"
)

// TestPullBills runs the server with two bill sources on versitygw: a Data Exports prefix,
// pulled at start and again after a restatement, and a missing bucket, which fails every pull
// and alerts the webhook once. The sources' state is in the API, /metrics and the audit log.
func TestPullBills(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	endpoint, bucket := s3test.StartVersity(t)
	exports := s3test.Open(t, endpoint, bucket, "exports/cur2")
	data, err := os.ReadFile("../billing/awscur/testdata/cur2_sample.csv")
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
			if err := exports.Put(ctx, k, strings.NewReader(v), int64(len(v))); err != nil {
				t.Fatal(err)
			}
		}
	}
	deliver("exec-1", 10)

	var alerts atomic.Int64
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p notify.WebhookPayload
		json.NewDecoder(r.Body).Decode(&p)
		if p.Kind == "bill-source.failing" {
			alerts.Add(1)
		}
	}))
	defer hook.Close()

	dir := t.TempDir()
	st, err := sqlite.Open(ctx, filepath.Join(dir, "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateToken(ctx, gpucost.Token{Name: "viewer", Role: gpucost.RoleViewer}, gpucost.HashTokenSecret(secret)); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey, "AWS_SECRET_ACCESS_KEY": s3test.SecretKey}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, st, ln, Options{Flush: time.Second, StoreDir: dir, Log: slog.New(slog.DiscardHandler),
			Targets:     map[string]notify.Target{"hook": &notify.Webhook{URL: hook.URL, Secret: "s"}},
			CheckEvery:  time.Hour,
			BillSources: []cloudsource.Spec{{Name: "cur", URL: "s3://" + bucket + "/exports/"}, {Name: "gone", URL: "s3://nosuch/exports/"}},
			OpenBillSource: func(ctx context.Context, url string) (*cloudsource.Source, error) {
				return cloudsource.Open(ctx, url, func(k string) string { return env[k] })
			},
			PullEvery: 100 * time.Millisecond, PullDir: t.TempDir()})
	}()
	base := "http://" + ln.Addr().String()
	get := func(path string) string {
		t.Helper()
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET %s = %d %s", path, res.StatusCode, body)
		}
		return string(body)
	}
	sources := func() map[string]httpapi.BillSourceStatus {
		var r httpapi.BillSourcesResponse
		if err := json.Unmarshal([]byte(get("/api/v1/bill-sources")), &r); err != nil {
			t.Fatal(err)
		}
		out := map[string]httpapi.BillSourceStatus{}
		for _, s := range r.Sources {
			out[s.Name] = s
		}
		return out
	}
	waitFor := func(what string, ok func(map[string]httpapi.BillSourceStatus) bool) map[string]httpapi.BillSourceStatus {
		t.Helper()
		for range 300 {
			if _, err := http.Get(base + "/readyz"); err == nil {
				if s := sources(); ok(s) {
					return s
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("no %s within 15 s: %+v", what, sources())
		return nil
	}

	// Each status is the last pull's: the import shows in the store, then a pull finding it unchanged.
	storedRows := func() int {
		imps, err := st.CostImports(ctx)
		if err != nil || len(imps) != 1 {
			return 0
		}
		return imps[0].Rows
	}
	s := waitFor("first pull", func(s map[string]httpapi.BillSourceStatus) bool {
		return storedRows() == 10 && s["cur"].Unchanged == 1 && s["gone"].Errors >= 3
	})
	if !s["cur"].OK || s["cur"].LastSuccess.IsZero() || s["gone"].OK || !strings.Contains(s["gone"].Error, "nosuch") || !s["gone"].Alerted {
		t.Errorf("after the first pulls: %+v; want cur pulled, gone failing with its bucket named and alerted", s)
	}
	deliver("exec-2", len(lines)-1)
	waitFor("pull after the restatement", func(s map[string]httpapi.BillSourceStatus) bool {
		// The audit entry too: it is written after the import, and the status before the
		// restatement's pull already reads unchanged.
		entries, err := st.Audit(ctx, gpucost.AuditFilter{})
		return storedRows() == len(lines)-1 && s["cur"].Unchanged == 1 && err == nil && len(entries) > 0
	})
	if n := alerts.Load(); n != 1 {
		t.Errorf("the failing source alerted %d times; want once", n)
	}
	imps, err := st.CostImports(ctx)
	if err != nil || len(imps) != 1 || imps[0].Rows != len(lines)-1 {
		t.Errorf("stored imports %+v, %v; want exec-2's one import of %d rows", imps, err, len(lines)-1)
	}
	entries, err := st.Audit(ctx, gpucost.AuditFilter{})
	if err != nil || len(entries) != 1 || entries[0].Action != gpucost.AuditBillReplace || !strings.Contains(entries[0].Detail, "pulled from s3://") {
		t.Errorf("audit = %+v, %v; want the restatement's replacement, pulled from its source", entries, err)
	}
	metrics := get("/metrics")
	for _, want := range []string{`gpucost_bill_pull_last_success_timestamp_seconds{source="cur"} 1`, `gpucost_bill_pull_last_success_timestamp_seconds{source="gone"} 0`,
		`gpucost_bill_pull_errors_total{source="cur"} 0`, `gpucost_bill_pull_errors_total{source="gone"} `} {
		if !strings.Contains(metrics, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
}
