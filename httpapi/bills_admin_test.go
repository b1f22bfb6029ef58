package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestBillReplaceAndRemoveNeedAdmin checks that an ingest token uploads new bills only: a
// replace or a removal needs the admin role, and each is recorded in the audit log with what went.
func TestBillReplaceAndRemoveNeedAdmin(t *testing.T) {
	f := newFixture(t)
	bills := &fakeBills{}
	f.srv.Bills, f.srv.Audit = bills, f.db
	ingest, admin := f.secrets[gpucost.RoleIngest], f.secrets[gpucost.RoleAdmin]
	csv := []byte("BilledCost,EffectiveCost\n1,1\n")

	status, out := f.do(t, "POST", "/api/v1/bills?name=focus.csv&replace=true", ingest, csv)
	if msg := errorMessage(out); status != http.StatusForbidden || !strings.Contains(msg, "needs role admin") || len(bills.paths) != 0 {
		t.Errorf("POST replace=true with an ingest token = %d %s; want 403 naming role admin, and the importer untouched", status, out)
	}
	status, out = f.do(t, "POST", "/api/v1/bills?name=focus.csv&replace=true", admin, csv)
	if status != http.StatusCreated || !bytes.Contains(out, []byte("replaced import 7")) {
		t.Errorf("POST replace=true with an admin token = %d %s; want 201, replaced", status, out)
	}
	for _, tc := range []struct {
		secret string
		path   string
		status int
		want   string
	}{
		{ingest, "/api/v1/bills/7", 403, "needs role admin"},
		{f.secrets[gpucost.RoleViewer], "/api/v1/bills/7", 403, "needs role admin"},
		{admin, "/api/v1/bills/x", 400, "use the import id"},
		{admin, "/api/v1/bills/8", 404, "no cost import 8"},
		{admin, "/api/v1/bills/7", 200, `"status":"removed"`},
		{admin, "/api/v1/bills/7", 404, "no cost import 7"},
	} {
		if status, out := f.do(t, "DELETE", tc.path, tc.secret, nil); status != tc.status || !strings.Contains(string(out), tc.want) {
			t.Errorf("DELETE %s = %d %s; want %d saying %s", tc.path, status, out, tc.status, tc.want)
		}
	}
	entries, err := f.db.Audit(context.Background(), gpucost.AuditFilter{Action: "bill."})
	if err != nil || len(entries) != 2 {
		t.Fatalf("audit entries = %+v, %v; want a replace and a remove", entries, err)
	}
	remove, replace := entries[0], entries[1]
	if remove.Action != gpucost.AuditBillRemove || remove.Target != "import 7 (focus.csv)" || !strings.HasPrefix(remove.Actor, "token ") ||
		!strings.Contains(remove.Detail, "12 rows, USD billed 181436.47") || !strings.Contains(remove.Detail, "after: nothing") {
		t.Errorf("remove entry = %+v; want the admin token removing import 7 with its rows and totals", remove)
	}
	if replace.Action != gpucost.AuditBillReplace || !strings.Contains(replace.Detail, "before: import 7 (focus.csv, 1248 rows") ||
		!strings.Contains(replace.Detail, "after: import 1 (focus.csv, 2 rows") {
		t.Errorf("replace entry = %+v; want import 7 before and the new import after", replace)
	}
}

// TestBillNameIsALabel checks that the name parameter never names a file on the server: the
// importer is given its base name.
func TestBillNameIsALabel(t *testing.T) {
	f := newFixture(t)
	bills := &fakeBills{}
	f.srv.Bills = bills
	for i, name := range []string{"..%2F..%2Fvar%2Flib%2Fgpucost%2Ffocus.csv", "%2Fetc%2Fpasswd", "C:%5Cexports%5Cfocus-2.csv"} {
		csv := fmt.Appendf(nil, "BilledCost,EffectiveCost\n%d,1\n", i)
		if status, out := f.do(t, "POST", "/api/v1/bills?name="+name, f.secrets[gpucost.RoleIngest], csv); status != http.StatusCreated {
			t.Fatalf("POST name=%s = %d %s", name, status, out)
		}
	}
	var got []string
	for _, o := range bills.opts {
		got = append(got, o.Name)
	}
	if want := []string{"focus.csv", "passwd", "focus-2.csv"}; !slices.Equal(got, want) {
		t.Errorf("names given to the importer = %q, want %q", got, want)
	}
}

// bomb returns a gzip FOCUS bill of rows rows whose ResourceIds are idLen bytes each: the shape
// of issue 13's bomb, 60 rows of 15 MiB in 940 KB.
func bomb(t testing.TB, rows, idLen int) []byte {
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	fmt.Fprintln(zw, "BilledCost,EffectiveCost,ResourceId")
	id := bytes.Repeat([]byte("i"), idLen)
	for range rows {
		zw.Write([]byte("1,1,"))
		zw.Write(id)
		zw.Write([]byte("\n"))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestBillGzipBomb checks that a gzip body that decompresses past MaxBillRatio times its size
// is refused, naming the limit, before the importer sees it, and that the spooled file is gone.
func TestBillGzipBomb(t *testing.T) {
	f := newFixture(t)
	bills := &fakeBills{}
	f.srv.Bills, f.srv.TempDir = bills, t.TempDir()
	body := bomb(t, 8, 15<<20) // 120 MiB in about 120 KB: 1,000 times
	status, out := f.do(t, "POST", "/api/v1/bills?name=bomb.csv.gz", f.secrets[gpucost.RoleIngest], body, "Content-Encoding", "gzip")
	if msg := errorMessage(out); status != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "MaxBillRatio") || !strings.Contains(msg, fmt.Sprintf("more than %d times", MaxBillRatio)) {
		t.Errorf("POST a gzip bomb of %d bytes = %d %s; want 413 naming MaxBillRatio", len(body), status, out)
	}
	if len(bills.paths) != 0 {
		t.Error("the bomb reached the importer")
	}
	if left, _ := os.ReadDir(f.srv.TempDir); len(left) != 0 {
		t.Errorf("the spool folder keeps %d entries after the refusal", len(left))
	}
	// A real bill's ratio passes.
	real, err := os.ReadFile(filepath.Join("..", "billing", "focus", "testdata", "focus_sample.csv"))
	if err != nil {
		t.Fatal(err)
	}
	var zb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&zb, gzip.BestCompression)
	zw.Write(real)
	zw.Close()
	if status, out := f.do(t, "POST", "/api/v1/bills?name=focus_sample.csv.gz", f.secrets[gpucost.RoleIngest], zb.Bytes()); status != http.StatusCreated {
		t.Errorf("POST the FOCUS sample gzipped = %d %s; want 201", status, out)
	}
}

func TestCheckBillSize(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Digits that gzip compresses about 2×: within the ratio, over 10 × maxBill once decoded.
	var plain bytes.Buffer
	for i := range 20000 {
		fmt.Fprintf(&plain, "%d,", i*7919%100003)
	}
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write(plain.Bytes())
	zw.Close()
	for _, tc := range []struct {
		name    string
		data    []byte
		maxBill int64
		want    int64
		err     string
	}{
		{"plain.csv", plain.Bytes(), 1 << 20, int64(plain.Len()), ""},
		{"digits.csv.gz", zb.Bytes(), 1 << 20, int64(plain.Len()), ""},
		{"digits-small-limit.csv.gz", zb.Bytes(), int64(plain.Len()) / 20, 0, "BillDecodedPerSent"},
		{"bomb.csv.gz", bomb(t, 4, 1<<20), 1 << 30, 0, "MaxBillRatio"},
		{"damaged.csv.gz", zb.Bytes()[:zb.Len()/2], 1 << 20, 0, "damaged"},
	} {
		got, err := checkBillSize(write(tc.name, tc.data), tc.maxBill, nil)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("checkBillSize(%s, %d) = %d, %v; want %d, %q", tc.name, tc.maxBill, got, err, tc.want, tc.err)
		}
	}
}

// TestBillInsufficientStorage sends a bill whose declared length is more than the spool folder
// has free: 507, naming what is needed and what is free, before a byte is written.
func TestBillInsufficientStorage(t *testing.T) {
	f := newFixture(t)
	bills := &fakeBills{}
	f.srv.Bills, f.srv.TempDir = bills, t.TempDir()
	if _, ok := freeSpace(f.srv.TempDir); !ok {
		t.Skip("free space is not known on this system")
	}
	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/bills?name=huge.csv HTTP/1.1\r\nHost: gpucost\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\nBilledCost\n",
		f.secrets[gpucost.RoleIngest], int64(1)<<50)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var eb ErrorBody
	json.NewDecoder(resp.Body).Decode(&eb)
	if msg := eb.Error.Message; resp.StatusCode != http.StatusInsufficientStorage || !strings.Contains(msg, "free; this bill needs") || !strings.Contains(msg, "1073741824 MiB for the bill") {
		t.Errorf("POST a bill of 1 PiB = %d %q; want 507 naming the space needed and free", resp.StatusCode, msg)
	}
	if left, _ := os.ReadDir(f.srv.TempDir); len(bills.paths) != 0 || len(left) != 0 {
		t.Errorf("a bill refused for room reached the importer or the spool folder")
	}
	if err := checkFree(f.srv.TempDir, "the store's folder", 1<<50); err == nil || !strings.Contains(err.Error(), "the store's folder") {
		t.Errorf("checkFree(1 PiB) = %v; want a storage error naming the folder", err)
	}
}

// BenchmarkBillGzipBomb times the refusal of issue 13's bomb, 60 rows with 15 MiB ResourceIds
// gzipped to about 940 KB, by checkBillSize: go test ./httpapi -run XXX -bench BillGzipBomb -benchmem
func BenchmarkBillGzipBomb(b *testing.B) {
	body := bomb(b, 60, 15<<20)
	path := filepath.Join(b.TempDir(), "bomb.csv.gz")
	if err := os.WriteFile(path, body, 0o600); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := checkBillSize(path, DefaultMaxBill, nil); err == nil {
			b.Fatal("the bomb passed")
		}
	}
	b.ReportMetric(float64(len(body)), "bytes-sent")
}
