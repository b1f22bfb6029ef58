package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/sqlite"
)

// TestImportPartialThenFull is issue 15 as a new user met it: a partial export of the FOCUS
// sample imported as rs/bill.csv, then the full export as bill.csv from elsewhere. The full one
// is refused naming the partial import; --replace leaves the full file alone, its BilledCost to
// the cent; gpucost import list and GET /api/v1/imports agree; gpucost import remove is audited.
func TestImportPartialThenFull(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "gpucost.db")
	data, err := os.ReadFile(focusSample)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	part, full := filepath.Join(dir, "rs", "bill.csv"), filepath.Join(dir, "bill.csv")
	os.MkdirAll(filepath.Dir(part), 0o755)
	os.WriteFile(part, bytes.Join(lines[:501], nil), 0o644)
	os.WriteFile(full, data, 0o644)

	if code, _, errOut := runCLIDB(t, db, "import", "billing", part); code != exitOK {
		t.Fatalf("import billing %s: exit %d, %s", part, code, errOut)
	}
	code, _, errOut := runCLIDB(t, db, "import", "billing", full)
	if code != exitConflict || !strings.Contains(errOut, "as import 1 ("+part+")") || !strings.Contains(errOut, "--replace") ||
		!strings.Contains(errOut, "gpucost import remove 1") {
		t.Fatalf("import billing of the full export: exit %d, %s; want %d naming import 1 (%s), --replace and gpucost import remove 1", code, errOut, exitConflict, part)
	}
	if code, out, errOut := runCLIDB(t, db, "import", "billing", "--replace", full); code != exitOK || !strings.Contains(out, "replaced import 1") {
		t.Fatalf("import billing --replace: exit %d, %s %s", code, out, errOut)
	}
	code, listed, errOut := runCLIDB(t, db, "import", "list", "--output", "json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(listed), &list); code != exitOK || err != nil || len(list) != 1 {
		t.Fatalf("import list: exit %d, %s %s %v; want one import", code, listed, errOut, err)
	}
	totals := list[0]["totals"].([]any)[0].(map[string]any)
	if want := fileBilled(t, full)["USD"]; totals["billed_cost"] != want || list[0]["file"] != full || list[0]["sha256"] != mustChecksum(t, full) {
		t.Errorf("import list = %v; want %s alone, billed USD %s, its SHA-256", list[0], full, want)
	}
	if periods := list[0]["billing_periods"].([]any); len(periods) == 0 || periods[0] != "2024-09" {
		t.Errorf("import list billing_periods = %v, want 2024-09 first", periods)
	}
	if code, out, _ := runCLIDB(t, db, "import", "list"); code != exitOK || !strings.Contains(out, "1234567890123") || !strings.Contains(out, mustChecksum(t, full)[:12]) {
		t.Errorf("import list (table): exit %d\n%s; want the accounts and the short SHA-256", code, out)
	}

	if got := getImports(t, db); !reflect.DeepEqual(got, list) {
		t.Errorf("GET /api/v1/imports = %v\nwant what gpucost import list prints: %v", got, list)
	}

	if code, out, errOut := runCLIDB(t, db, "import", "remove", "2"); code != exitOK || !strings.Contains(out, "removed import 2 (") {
		t.Fatalf("import remove 2: exit %d, %s %s", code, out, errOut)
	}
	store, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	entries, err := store.Audit(context.Background(), gpucost.AuditFilter{Action: "bill."})
	if err != nil || len(entries) != 2 || entries[0].Action != gpucost.AuditBillRemove || entries[0].Target != "import 2 ("+full+")" ||
		entries[1].Action != gpucost.AuditBillReplace {
		t.Errorf("audit = %+v, %v; want the replace and the remove of import 2", entries, err)
	}
	if imps, _ := store.CostImports(context.Background()); len(imps) != 0 {
		t.Errorf("%d imports left after import remove", len(imps))
	}
}

// getImports serves the store at db and returns what GET /api/v1/imports lists.
func getImports(t *testing.T, db string) []map[string]any {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	secret, _ := gpucost.NewTokenSecret()
	if _, err := store.CreateToken(ctx, gpucost.Token{Name: "viewer", Role: gpucost.RoleViewer}, gpucost.HashTokenSecret(secret)); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer((&httpapi.Server{Tokens: store, Imports: store}).Handler())
	defer ts.Close()
	req, _ := http.NewRequest("GET", ts.URL+"/api/v1/imports", nil)
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var got struct{ Imports []map[string]any }
	if err := json.Unmarshal(body, &got); resp.StatusCode != http.StatusOK || err != nil {
		t.Fatalf("GET /api/v1/imports = %d %s, %v", resp.StatusCode, body, err)
	}
	return got.Imports
}

// A directory with one bad file stores nothing, exits non-zero and lists every file with what
// became of it, files that are no bill included.
func TestImportBillingDirectoryAllOrNothing(t *testing.T) {
	needSample(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "gpucost.db")
	bills := filepath.Join(dir, "bills")
	os.MkdirAll(bills, 0o755)
	data, _ := os.ReadFile(focusSample)
	bad := bytes.Replace(data, []byte("\n"), []byte("\nnot,a,row\n"), 1) // line 2
	for name, b := range map[string][]byte{"a.csv": bad, "b-cur.csv": mustRead(t, "../../billing/awscur/testdata/cur2_sample.csv"),
		"chart.svg": []byte("<svg/>"), "notes.txt": []byte("x"), "gpu.prom": []byte("gpu 1\n")} {
		os.WriteFile(filepath.Join(bills, name), b, 0o644)
	}
	code, out, errOut := runCLIDB(t, db, "import", "billing", "--output", "json", bills)
	var files []importedFile
	if err := json.Unmarshal([]byte(out), &files); code != exitInvalid || err != nil || !strings.Contains(errOut, "a.csv:2") {
		t.Fatalf("import billing DIR with a bad file: exit %d, %s %s, %v; want %d naming a.csv:2 and the list", code, out, errOut, err, exitInvalid)
	}
	want := map[string]string{"a.csv": "refused: ", "b-cur.csv": "not stored: ", "chart.svg": "skipped: not a bill: .svg",
		"notes.txt": "skipped: not a bill: .txt", "gpu.prom": "skipped: not a bill: .prom"}
	if len(files) != len(want) {
		t.Errorf("import billing DIR listed %d files, want %d: %+v", len(files), len(want), files)
	}
	for _, f := range files {
		if w := want[filepath.Base(f.File)]; w == "" || !strings.HasPrefix(f.Status, w) {
			t.Errorf("%s: status %q, want %q…", f.File, f.Status, w)
		}
	}
	if code, out, _ := runCLIDB(t, db, "import", "list", "--output", "json"); code != exitOK || strings.TrimSpace(out) != "[]" {
		t.Errorf("import list after a refused directory: exit %d, %s; want no imports", code, out)
	}
	os.Remove(filepath.Join(bills, "a.csv"))
	if code, out, errOut := runCLIDB(t, db, "import", "billing", bills); code != exitOK || !strings.Contains(out, "imported (import 1)") ||
		!strings.Contains(out, "skipped: not a bill: .svg") {
		t.Errorf("import billing DIR: exit %d\n%s%s", code, out, errOut)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
