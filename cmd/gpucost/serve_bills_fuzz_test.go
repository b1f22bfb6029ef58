package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/server"
)

// maxFuzzBill is the largest bill FuzzBillUpload sends. The bills that find bugs are a header
// and a few rows; larger inputs only slow each run (64 KiB is about 90 rows of
// billing/focus/testdata/focus_sample.csv) and grow the fuzz worker's memory.
const maxFuzzBill = 64 << 10

// Memory allowed one bill upload, as runtime.MemStats.TotalAlloc grows while the server takes
// it: a fixed allowance for the request, the spooled file and the import transaction, and a
// multiple of the bill's size before gzip. Measured on FOCUS bills cut from
// billing/focus/testdata/focus_sample.csv, plain and gzipped: 1.1 MiB for 4 KB, 1.7 MiB for
// 64 KB, 8.4 MiB for 755 KB, so about 1 MiB plus 10 bytes a byte; 10,000 fuzzed uploads peaked
// at 1.6 MiB. The bound leaves three to four times that, for allocations that differ between
// Go versions and formats, and still fails a reader that copies its input many times over.
const (
	billAllocFixed   = 4 << 20
	billAllocPerByte = 32
)

// billFuzzNames are the names uploads use: a few, so that a worker's store keeps at most a few
// bills however long it runs, and uploads meet earlier ones under the same name.
var billFuzzNames = []string{"a.csv", "b.csv.gz", "c.parquet", "d.json"}

// billServer is gpucost serve's API with the real bill importer over a SQLite store, called in
// process: one per fuzz worker, shared by its inputs.
type billServer struct {
	h      http.Handler
	db     storeDB
	secret string
	stored []gpucost.CostImport // the imports after the last upload: only uploads change them
}

func newBillServer(f *testing.F) *billServer {
	f.Helper()
	db := filepath.Join(f.TempDir(), "gpucost.db")
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(string) string { return "" },
		now: func() time.Time { return demoNow }, dbPath: db, output: "table"}
	if code := run(context.Background(), []string{"--db", db, "token", "create", "--name", "up", "--role", "ingest"}, e); code != exitOK {
		f.Fatalf("token create: exit %d: %s", code, errb.String())
	}
	s := &billServer{secret: strings.TrimSpace(out.String())}
	store, err := e.openDB(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	s.db = store
	e.stderr = io.Discard
	srv := &httpapi.Server{Tokens: store, Log: slog.New(slog.DiscardHandler), Now: e.now, TempDir: f.TempDir(),
		Bills: &server.Bills{Store: store, Now: e.now}, MaxBill: maxFuzzBill + 1<<10}
	s.h = srv.Handler()
	s.stored, err = store.CostImports(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// post uploads body as name in format, gzipped when zip is 1 (with Content-Encoding) or 2
// (without), and returns the status, the response and the bytes the server allocated.
func (s *billServer) post(body []byte, name, format string, zip uint8, replace bool) (int, []byte, uint64) {
	q := url.Values{"name": {name}}
	if format != "" {
		q.Set("format", format)
	}
	if replace {
		q.Set("replace", "true")
	}
	sent := body
	if zip%3 != 0 {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(body)
		zw.Close()
		sent = b.Bytes()
	}
	req := httptest.NewRequest("POST", "/api/v1/bills?"+q.Encode(), bytes.NewReader(sent))
	req.Header.Set("Authorization", "Bearer "+s.secret)
	if zip%3 == 1 {
		req.Header.Set("Content-Encoding", "gzip")
	}
	w := httptest.NewRecorder()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s.h.ServeHTTP(w, req)
	runtime.ReadMemStats(&after)
	return w.Code, w.Body.Bytes(), after.TotalAlloc - before.TotalAlloc
}

// imports returns the stored imports.
func (s *billServer) imports(t *testing.T) []gpucost.CostImport {
	t.Helper()
	imps, err := s.db.CostImports(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return imps
}

// billFormatParam is the format parameter index i picks: auto, none, each format, and one the
// server does not know.
func billFormatParam(i uint8) string {
	all := append([]string{"auto", ""}, billimport.Formats()...)
	all = append(all, "lotus-123")
	return all[int(i)%len(all)]
}

// FuzzBillUpload posts arbitrary bodies, plain or gzipped, under a few names and any format to
// POST /api/v1/bills on a real server with the real importer and SQLite store. Never a 5xx nor
// a panic; a 2xx answers the totals the store now holds for its import; a 4xx leaves the store
// as it was; and the server allocates no more than billAllocFixed plus billAllocPerByte a byte
// of the bill.
func FuzzBillUpload(f *testing.F) {
	for i, path := range []string{"../../billing/focus/testdata/focus_1_2.csv", "../../billing/awscur/testdata/legacy_cur.csv",
		"../../billing/azure/testdata/payg_usage_gbp.csv"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint8(0), uint8(0), uint8(i), false)
		f.Add(b, uint8(1), uint8(1), uint8(i), false)
		f.Add(b, uint8(0), uint8(2), uint8(i), true)
		f.Add(b[:bytes.IndexByte(b, '\n')+1], uint8(2+i), uint8(0), uint8(3), true)
	}
	f.Add([]byte("BilledCost,EffectiveCost\n1,1\n"), uint8(0), uint8(2), uint8(3), true)
	f.Add([]byte{}, uint8(0), uint8(0), uint8(0), false)
	s := newBillServer(f)
	f.Fuzz(func(t *testing.T, body []byte, format, zip, name uint8, replace bool) {
		if len(body) > maxFuzzBill {
			t.Skip("larger than maxFuzzBill")
		}
		before := s.stored
		fp := billFormatParam(format)
		n := billFuzzNames[int(name)%len(billFuzzNames)]
		status, out, alloc := s.post(body, n, fp, zip, replace)
		call := fmt.Sprintf("POST %s format=%q zip=%d replace=%v (%d bytes)", n, fp, zip%3, replace, len(body))
		if limit := uint64(billAllocFixed + billAllocPerByte*len(body)); alloc > limit {
			t.Errorf("%s allocated %d bytes; want at most %d", call, alloc, limit)
		}
		after := s.imports(t)
		s.stored = after
		switch {
		case status >= 500:
			t.Fatalf("%s = %d %s; want no server error for any body", call, status, out)
		case status >= 400:
			if !reflect.DeepEqual(before, after) {
				t.Fatalf("%s = %d %s changed the store:\n before %+v\n after  %+v", call, status, out, before, after)
			}
		case status >= 200:
			checkUploaded(t, call, out, after)
		default:
			t.Fatalf("%s = %d %s", call, status, out)
		}
	})
}

// uploadAnswer is the part of a 2xx answer of POST /api/v1/bills that the store must match.
type uploadAnswer struct {
	ImportID int64             `json:"import_id"`
	Rows     int               `json:"rows"`
	Lines    int               `json:"lines_stored"`
	Totals   []json.RawMessage `json:"totals"`
}

// checkUploaded checks that a 2xx upload's answer is what the store holds for its import.
func checkUploaded(t *testing.T, call string, out []byte, stored []gpucost.CostImport) {
	t.Helper()
	var imp uploadAnswer
	if err := json.Unmarshal(out, &imp); err != nil {
		t.Fatalf("%s answered %s: %v", call, out, err)
	}
	for _, st := range stored {
		if st.ID != imp.ImportID {
			continue
		}
		if st.Rows != imp.Rows || st.Lines != imp.Lines || !sameTotals(t, st.Totals, imp.Totals) {
			t.Fatalf("%s answered %s; the store holds rows %d, lines %d, totals %+v", call, out, st.Rows, st.Lines, st.Totals)
		}
		return
	}
	t.Fatalf("%s answered %s; the store has no import %d: %+v", call, out, imp.ImportID, stored)
}

// sameTotals reports whether the stored totals, written as the API writes them, are the
// answered ones, in any order.
func sameTotals(t *testing.T, stored []gpucost.CostTotal, answered []json.RawMessage) bool {
	t.Helper()
	if len(stored) != len(answered) {
		return false
	}
	want := map[string]bool{}
	for _, a := range answered {
		var c bytes.Buffer
		if err := json.Compact(&c, a); err != nil {
			t.Fatal(err)
		}
		want[c.String()] = true
	}
	for _, st := range stored {
		b, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		if !want[string(b)] {
			return false
		}
	}
	return true
}
