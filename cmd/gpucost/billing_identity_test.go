package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/postgres/pgtest"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/parquet-go/parquet-go"
	pqgzip "github.com/parquet-go/parquet-go/compress/gzip"
)

// restatedSample writes the FOCUS sample as dir/a/focus.csv and, restated (its first row
// twice), as dir/b/focus.csv: two files of one bill, as a provider delivers them under one name.
func restatedSample(t *testing.T, dir string) (original, restated string) {
	t.Helper()
	data, err := os.ReadFile(focusSample)
	if err != nil {
		t.Fatal(err)
	}
	h := bytes.IndexByte(data, '\n') + 1
	row := data[h : h+bytes.IndexByte(data[h:], '\n')+1]
	original, restated = filepath.Join(dir, "a", "focus.csv"), filepath.Join(dir, "b", "focus.csv")
	for p, d := range map[string][]byte{original: data, restated: append(bytes.Clone(data), row...)} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, d, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return original, restated
}

// billedTotals returns the stored imports' BilledCost per currency, summed across imports.
func billedTotals(t *testing.T, store gpucost.CostStore) map[string]string {
	t.Helper()
	imps, err := store.CostImports(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ts gpucost.CostTotals
	for _, imp := range imps {
		for _, tot := range imp.Totals {
			ts.Add(tot.BilledCost, tot.EffectiveCost)
		}
	}
	out := map[string]string{}
	for _, tot := range ts.Sorted() {
		out[tot.Currency] = tot.BilledCost.Decimal()
	}
	return out
}

// fileBilled returns a bill file's BilledCost per currency, read by the FOCUS reader alone.
func fileBilled(t *testing.T, path string) map[string]string {
	out := map[string]string{}
	for c, tot := range sampleTotals(t, path) {
		out[c] = tot.BilledCost.Decimal()
	}
	return out
}

// TestImportBillingRaceProcesses runs gpucost import billing twice at once, as two processes on
// one SQLite file: the same file lands once and the other run is skipped (exit 0, naming the
// import), and of a bill and its restatement one lands and the other is refused (exit 5, the
// advice to replace), so the store's totals are one file's, to the cent.
func TestImportBillingRaceProcesses(t *testing.T) {
	needSample(t)
	original, restated := restatedSample(t, t.TempDir())
	for round := range 3 {
		for _, pair := range []struct {
			name string
			a, b string
		}{{"same file", original, original}, {"restated", original, restated}} {
			db := filepath.Join(t.TempDir(), "gpucost.db")
			if code, _, errOut := runCLIDB(t, db, "bills"); code != exitOK { // create the schema first
				t.Fatalf("bills: exit %d, %s", code, errOut)
			}
			type outcome struct {
				code   int
				out    string
				errOut string
			}
			results := make([]outcome, 2)
			var wg sync.WaitGroup
			for i, path := range []string{pair.a, pair.b} {
				wg.Go(func() {
					cmd := exec.Command(os.Args[0], "gpucost", "--db", db, "import", "billing", "--output", "json", path)
					var out, errOut bytes.Buffer
					cmd.Stdout, cmd.Stderr = &out, &errOut
					err := cmd.Run()
					results[i] = outcome{cmd.ProcessState.ExitCode(), out.String(), errOut.String()}
					if err != nil && cmd.ProcessState == nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			store, err := sqlite.Open(context.Background(), db)
			if err != nil {
				t.Fatal(err)
			}
			imps, _ := store.CostImports(context.Background())
			got := billedTotals(t, store)
			store.Close()
			if len(imps) != 1 {
				t.Fatalf("round %d, %s: %d imports stored, want 1: %+v", round, pair.name, len(imps), results)
			}
			landed := pair.a
			if imps[0].Checksum != mustChecksum(t, pair.a) {
				landed = pair.b
			}
			if want := fileBilled(t, landed); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("round %d, %s: stored BilledCost %v, want the file's %v", round, pair.name, got, want)
			}
			var codes []int
			var lost outcome
			for _, r := range results {
				codes = append(codes, r.code)
				if r.code != exitOK || strings.Contains(r.out, "skipped") {
					lost = r
				}
			}
			switch pair.name {
			case "same file":
				if codes[0] != exitOK || codes[1] != exitOK || !strings.Contains(lost.out, fmt.Sprintf("skipped: imported before (import %d)", imps[0].ID)) {
					t.Errorf("round %d, same file twice at once: %+v; want both exit 0, one skipped naming import %d", round, results, imps[0].ID)
				}
			case "restated":
				if lost.code != exitConflict || !strings.Contains(lost.errOut, fmt.Sprintf("as import %d", imps[0].ID)) || !strings.Contains(lost.errOut, "an admin may replace it with --replace") {
					t.Errorf("round %d, a bill and its restatement at once: %+v; want one exit %d naming import %d and --replace", round, results, exitConflict, imps[0].ID)
				}
			}
		}
	}
}

func mustChecksum(t *testing.T, path string) string {
	sum, err := billimport.Checksum(path)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestUploadAndCLIImportMeet checks that an upload and a CLI import of one bill are the same
// bill, wherever the files lie and whatever the upload is called: the CLI skips the file the
// server was sent, refuses its restatement (gzip or not), and the server never resolves the
// name as a path.
func TestUploadAndCLIImportMeet(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	original, restated := restatedSample(t, t.TempDir())
	db := filepath.Join(dir, "gpucost.db")
	store, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	e := liveEnv(db, &lockedBuffer{}, func(string) string { return "" })
	bills := &server.Bills{Store: store, Now: e.now}
	spool := filepath.Join(t.TempDir(), "bill") // where the server spools an upload
	copyFile(t, original, spool)
	imp, err := bills.ImportBill(context.Background(), spool, httpapi.BillOptions{Name: "focus.csv", Format: "auto"})
	if err != nil || imp.Status != "imported" {
		t.Fatalf("ImportBill = %+v, %v", imp, err)
	}
	files, code, errOut := importJSON(t, dir, original)
	if code != exitOK || files[0].Status != fmt.Sprintf("skipped: imported before (import %d)", imp.ImportID) {
		t.Errorf("CLI import of the uploaded file: exit %d, %+v, %s; want skipped naming import %d", code, files, errOut, imp.ImportID)
	}
	_, code, errOut = importJSON(t, dir, restated)
	if code != exitConflict || !strings.Contains(errOut, "count it twice") || !strings.Contains(errOut, fmt.Sprintf("import %d", imp.ImportID)) {
		t.Errorf("CLI import of the restated bill: exit %d, %s; want a conflict naming import %d", code, errOut, imp.ImportID)
	}
	gz := filepath.Join(t.TempDir(), "bill")
	data, _ := os.ReadFile(restated)
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(data)
	zw.Close()
	os.WriteFile(gz, zb.Bytes(), 0o600)
	_, err = bills.ImportBill(context.Background(), gz, httpapi.BillOptions{Name: "focus.csv.gz", Format: "auto"})
	if gpucost.ErrorCode(err) != gpucost.EConflict {
		t.Errorf("upload of the restated bill gzipped as focus.csv.gz = %v; want a conflict", err)
	}
	if got, want := billedTotals(t, store), fileBilled(t, original); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored BilledCost %v, want the original's %v", got, want)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestBillsListReplaceRemove lists imports, replaces one with --replace and removes it with
// gpucost bills remove, and checks the audit log holds both with the totals before and after.
func TestBillsListReplaceRemove(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	original, restated := restatedSample(t, t.TempDir())
	if _, code, errOut := importJSON(t, dir, original); code != exitOK {
		t.Fatalf("import: exit %d, %s", code, errOut)
	}
	files, code, errOut := importJSON(t, dir, "--replace", restated)
	if code != exitOK || files[0].Status != "replaced import 1" {
		t.Fatalf("import --replace: exit %d, %+v, %s", code, files, errOut)
	}
	code, out, errOut := runCLI(t, dir, "bills", "--output", "json")
	var list []billViewJSON
	if err := json.Unmarshal([]byte(out), &list); code != exitOK || err != nil || len(list) != 1 || list[0].ID != 2 || list[0].Rows != 1001 ||
		!strings.HasPrefix(list[0].Identity, "b2-") {
		t.Fatalf("bills: exit %d, %s %s; want import 2 of 1001 rows with its identity", code, out, errOut)
	}
	if code, out, errOut = runCLI(t, dir, "bills", "remove", "2"); code != exitOK || !strings.Contains(out, "removed import 2 (") {
		t.Errorf("bills remove 2: exit %d, %s %s", code, out, errOut)
	}
	if code, _, errOut = runCLI(t, dir, "bills", "remove", "2"); code != exitNotFound || !strings.Contains(errOut, "no cost import 2") {
		t.Errorf("bills remove 2 again: exit %d, %s; want not found", code, errOut)
	}
	store, err := sqlite.Open(context.Background(), filepath.Join(dir, "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if imps, _ := store.CostImports(context.Background()); len(imps) != 0 {
		t.Errorf("%d imports left after bills remove", len(imps))
	}
	entries, err := store.Audit(context.Background(), gpucost.AuditFilter{Action: "bill."})
	if err != nil || len(entries) != 2 {
		t.Fatalf("audit = %+v, %v; want a replace and a remove", entries, err)
	}
	billed := fileBilled(t, restated)["USD"]
	if r := entries[1]; r.Action != gpucost.AuditBillReplace || !strings.HasPrefix(r.Actor, "cli ") || !strings.Contains(r.Detail, "before: import 1 (") ||
		!strings.Contains(r.Detail, "after: import 2 (") {
		t.Errorf("replace entry = %+v", r)
	}
	if r := entries[0]; r.Action != gpucost.AuditBillRemove || r.Target != "import 2 ("+restated+")" || !strings.Contains(r.Detail, "1001 rows") ||
		(billed != "" && !strings.Contains(r.Detail, "USD billed ")) {
		t.Errorf("remove entry = %+v", r)
	}
}

// billViewJSON is what gpucost bills --output json prints of an import.
type billViewJSON struct {
	ID       int64
	Rows     int
	Identity string
}

// TestBillUploadReplicasRacePostgres serves one PostgreSQL database from two API servers, as
// replicas do, and sends a bill to one and its restatement to the other at once: exactly one
// lands, the other is a 409 naming it, and the stored totals are the landed file's to the cent.
func TestBillUploadReplicasRacePostgres(t *testing.T) {
	needSample(t)
	ctx := context.Background()
	url := pgtest.Start(t)
	original, restated := restatedSample(t, t.TempDir())
	var servers []*httptest.Server
	var store *postgres.DB
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		db, err := postgres.Open(ctx, url)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		if i == 0 {
			store = db
			if _, err := db.CreateToken(ctx, gpucost.Token{Name: "ci", Role: gpucost.RoleIngest}, gpucost.HashTokenSecret(secret)); err != nil {
				t.Fatal(err)
			}
		}
		e := liveEnv(url, &lockedBuffer{}, func(string) string { return "" })
		srv := &httpapi.Server{Tokens: db, Bills: &server.Bills{Store: db, Now: e.now}, TempDir: t.TempDir()}
		ts := httptest.NewServer(srv.Handler())
		t.Cleanup(ts.Close)
		servers = append(servers, ts)
	}
	upload := func(ts *httptest.Server, path string) (int, string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/bills?name=focus.csv", bytes.NewReader(data))
		req.Header.Set("Authorization", "Bearer "+secret)
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Error(err)
			return 0, ""
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(out)
	}
	for round := range 3 {
		statuses, bodies := make([]int, 2), make([]string, 2)
		var wg sync.WaitGroup
		for i, path := range []string{original, restated} {
			wg.Go(func() { statuses[i], bodies[i] = upload(servers[i], path) })
		}
		wg.Wait()
		imps, err := store.CostImports(ctx)
		if err != nil || len(imps) != 1 {
			t.Fatalf("round %d: %d imports stored (%v), want 1; answers %v %v", round, len(imps), err, statuses, bodies)
		}
		landed, lost := 0, 1
		if statuses[1] == http.StatusCreated {
			landed, lost = 1, 0
		}
		if statuses[landed] != http.StatusCreated || statuses[lost] != http.StatusConflict ||
			!strings.Contains(bodies[lost], fmt.Sprintf("as import %d", imps[0].ID)) || !strings.Contains(bodies[lost], "replace") {
			t.Errorf("round %d: answers %v %v; want one 201 and one 409 naming import %d", round, statuses, bodies, imps[0].ID)
		}
		if got, want := billedTotals(t, store), fileBilled(t, []string{original, restated}[landed]); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("round %d: stored BilledCost %v, want the landed file's %v", round, got, want)
		}
		if _, err := store.RemoveCosts(ctx, imps[0].ID); err != nil {
			t.Fatal(err)
		}
	}
}

// A bill that decompresses to far more than it was sent — a gzip bomb, or a Parquet file
// whose pages compress a few megabytes of one long ResourceId to kilobytes — is refused with
// 413 naming MaxBillRatio, before anything is imported, and leaves nothing in the spool folder.
func TestServeRefusesBillBombs(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "gpucost.db")
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	secret, _ := gpucost.NewTokenSecret()
	if _, err := store.CreateToken(ctx, gpucost.Token{Name: "agents", Role: gpucost.RoleIngest}, gpucost.HashTokenSecret(secret)); err != nil {
		t.Fatal(err)
	}
	e := liveEnv(db, &lockedBuffer{}, func(string) string { return "" })
	srv := &httpapi.Server{Tokens: store, Bills: &server.Bills{Store: store, Now: e.now, Dir: filepath.Dir(db)}, TempDir: t.TempDir()}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()

	for _, bomb := range []struct {
		name, encoding string
		body           []byte
	}{
		{"bomb.csv.gz", "gzip", gzipBomb()},
		{"bomb.parquet", "", parquetBomb(t)},
	} {
		req, _ := http.NewRequest("POST", ts.URL+"/api/v1/bills?name="+bomb.name, bytes.NewReader(bomb.body))
		req.Header.Set("Authorization", "Bearer "+secret)
		if bomb.encoding != "" {
			req.Header.Set("Content-Encoding", bomb.encoding)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), "MaxBillRatio") {
			t.Errorf("POST %s of %d bytes = %d %s; want 413 naming MaxBillRatio", bomb.name, len(bomb.body), resp.StatusCode, out)
		}
		if imps, err := store.CostImports(ctx); err != nil || len(imps) != 0 {
			t.Errorf("imports after %s = %+v, %v; want none", bomb.name, imps, err)
		}
		if left, _ := os.ReadDir(srv.TempDir); len(left) != 0 {
			t.Errorf("after %s the spool folder keeps %d entries", bomb.name, len(left))
		}
	}
}

// gzipBomb is issue 13's shape: 8 rows with 15 MiB ResourceIds, about 120 KB gzip'd.
func gzipBomb() []byte {
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	fmt.Fprintln(zw, "BilledCost,EffectiveCost,BillingCurrency,ResourceId")
	id := bytes.Repeat([]byte("i"), 15<<20)
	for range 8 {
		fmt.Fprint(zw, "1,1,USD,")
		zw.Write(id)
		fmt.Fprintln(zw)
	}
	zw.Close()
	return zb.Bytes()
}

// parquetBomb is a FOCUS-shaped Parquet file of 400 rows, each with a ResourceId of 60 KiB
// (under the readers' 64 KiB field limit), gzip-compressed: 24 MB of pages in 26 KB.
func parquetBomb(t *testing.T) []byte {
	type row struct {
		BilledCost      float64 `parquet:"BilledCost"`
		EffectiveCost   float64 `parquet:"EffectiveCost"`
		BillingCurrency string  `parquet:"BillingCurrency"`
		ResourceId      string  `parquet:"ResourceId"`
	}
	var b bytes.Buffer
	// Pages of 4 MiB (within the readers' 16 MiB) without statistics, which would keep a copy
	// of each long value outside the compressed pages.
	w := parquet.NewGenericWriter[row](&b, parquet.Compression(&pqgzip.Codec{Level: 9}),
		parquet.PageBufferSize(4<<20), parquet.DataPageStatistics(false), parquet.SkipPageBounds("ResourceId"))

	rows := make([]row, 400)
	for i := range rows {
		rows[i] = row{1, 1, "USD", fmt.Sprintf("%d-%s", i, strings.Repeat("i", 60<<10))}
	}
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
