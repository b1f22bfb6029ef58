package billimport

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/sqlite"
)

const (
	focusSample = "../focus/testdata/focus_sample.csv"
	curSample   = "../awscur/testdata/cur2_sample.csv"
)

// newStore opens a SQLite store in a temporary folder.
func newStore(t *testing.T) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// writeFile writes data to name in a new temporary folder and returns its path.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// focusParquet writes the FOCUS sample's lines as a FOCUS Parquet file.
func focusParquet(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := focus.NewWriter(&buf, focus.WriterOptions{Format: focus.Parquet})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := focus.ReadFile(focusSample, w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name, path, want string
	}{
		{"FOCUS CSV", focusSample, "focus"},
		{"FOCUS 1.1", "../focus/testdata/focus_1_1.csv", "focus"},
		{"FOCUS Parquet", writeFile(t, "focus.parquet", focusParquet(t)), "focus"},
		{"CUR 2.0 CSV", curSample, "aws-cur"},
		{"CUR 2.0 gzip CSV", writeFile(t, "cur.csv.gz", billtest.Gzip(t, readFile(t, curSample))), "aws-cur"},
		{"legacy CUR", "../awscur/testdata/legacy_cur.csv", "aws-cur"},
		{"GCP JSON lines", "../gcp/testdata/detailed_export.jsonl", "gcp"},
		{"GCP CSV", "../gcp/testdata/standard_export_eur.csv", "gcp"},
		{"Azure EA", "../azure/testdata/ea_amortized.csv", "azure"},
		{"Azure MCA", "../azure/testdata/mca_actual_eur.csv", "azure"},
	}
	for _, tt := range tests {
		if got, err := Detect(tt.path, tt.name); got != tt.want || err != nil {
			t.Errorf("Detect(%s) = %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, bad := range []struct{ name, data, want string }{
		{"notes.csv", "when,what\n2026-10-01,lunch\n", "--format"},
		{"export-Manifest.json", `{"dataFiles":["s3://b/p/data/x.csv.gz"]}`, "manifest"},
	} {
		_, err := Detect(writeFile(t, bad.name, []byte(bad.data)), bad.name)
		if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), bad.name) {
			t.Errorf("Detect(%s) = %v; want EInvalid naming the file and %q", bad.name, err, bad.want)
		}
	}
}

// The same file is skipped, another file of the same bill is a conflict naming the import,
// and Replace replaces it, saying what it replaced for the audit log.
func TestImportDedupe(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := Importer{Store: db, Now: func() time.Time { return time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC) }}
	data := readFile(t, focusSample)
	original := writeFile(t, "a/focus.csv", data)
	h := bytes.IndexByte(data, '\n') + 1
	row := data[h : h+bytes.IndexByte(data[h:], '\n')+1]
	restated := writeFile(t, "b/focus.csv", append(bytes.Clone(data), row...))

	first, err := im.Import(ctx, []Source{{Path: original}}, Options{})
	if err != nil || len(first) != 1 || first[0].Status != "imported" || first[0].Format != "focus" || first[0].Rows != 1000 {
		t.Fatalf("Import(focus.csv) = %+v, %v; want 1,000 FOCUS rows imported", first, err)
	}
	again, err := im.Import(ctx, []Source{{Path: original, Name: "elsewhere/focus.csv"}}, Options{})
	if err != nil || !again[0].Skipped || again[0].ImportID != first[0].ImportID || again[0].Identity != first[0].Identity {
		t.Errorf("Import(same file again) = %+v, %v; want skipped as import %d", again, err, first[0].ImportID)
	}
	_, err = im.Import(ctx, []Source{{Path: restated}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "import 1 (") || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("Import(restated bill) = %v; want a conflict naming import 1 and --replace", err)
	}
	rep, err := im.Import(ctx, []Source{{Path: restated}}, Options{Replace: true})
	if err != nil || rep[0].Status != "replaced import 1" || rep[0].Rows != 1001 || len(rep[0].Replaced) != 1 ||
		!strings.HasPrefix(rep[0].ReplaceDetail(), "before: import 1 (") || !strings.Contains(rep[0].ReplaceDetail(), "after: import 2 (") {
		t.Fatalf("Import(restated, Replace) = %+v, %v; want import 1 replaced", rep, err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 1 || imps[0].ID != 2 || imps[0].Identity != first[0].Identity {
		t.Errorf("stored imports = %+v, %v; want import 2 alone, of the same identity", imps, err)
	}
}

// What is stored is reconciled with what the reader read, per currency, to the nano-unit.
func TestImportReconciles(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := Importer{Store: db}
	for _, path := range []string{focusSample, curSample, "../azure/testdata/mca_actual_eur.csv", "../gcp/testdata/bq_query.json"} {
		got, err := im.Import(ctx, []Source{{Path: path}}, Options{})
		if err != nil {
			t.Fatalf("Import(%s): %v", path, err)
		}
		format, _ := Detect(path, path)
		st, err := formats[format].read(bytes.NewReader(readFile(t, path)), path, Options{}, func(*gpucost.CostLine) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := st.CostTotals(); !equalTotals(got[0].Totals, want) || !equalTotals(got[0].Stored.Totals, want) || got[0].Rows != st.Rows {
			t.Errorf("Import(%s) totals %v (stored %v), %d rows; want the reader's %v, %d rows", path, got[0].Totals, got[0].Stored.Totals, got[0].Rows, want, st.Rows)
		}
	}
	usd := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: "USD"} }
	source := []gpucost.CostTotal{{Currency: "USD", BilledCost: usd(1_000_000_000), EffectiveCost: usd(1)}}
	stored := []gpucost.CostTotal{{Currency: "USD", BilledCost: usd(1_000_000_001), EffectiveCost: usd(1)}}
	if err := Reconcile("x.csv", source, source); err != nil {
		t.Errorf("Reconcile(equal totals) = %v", err)
	}
	if err := Reconcile("x.csv", source, stored); gpucost.ErrorCode(err) != gpucost.EInternal || !strings.Contains(err.Error(), "nothing was stored") {
		t.Errorf("Reconcile(totals a nano-unit apart) = %v; want EInternal, nothing stored", err)
	}
}

func equalTotals(a, b []gpucost.CostTotal) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Currency != b[i].Currency || a[i].BilledCost.Nanos != b[i].BilledCost.Nanos || a[i].EffectiveCost.Nanos != b[i].EffectiveCost.Nanos {
			return false
		}
	}
	return true
}

// failingStore fails a store write after some lines, cancelling its context, as a crash or a
// full disk would.
type failingStore struct {
	*sqlite.DB
	after int
}

func (s failingStore) PutCostBatch(ctx context.Context, puts []gpucost.CostPut) ([]gpucost.CostImport, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := 0
	for i, p := range puts {
		lines := p.Lines
		puts[i].Lines = func(yield func(*gpucost.CostLine) bool) {
			for l := range lines {
				if n++; n == s.after {
					cancel()
				}
				if !yield(l) {
					return
				}
			}
		}
	}
	return s.DB.PutCostBatch(ctx, puts)
}

// A file lands whole or not at all: a bad row stores nothing, and a store write that fails
// midway, replacing a stored bill, leaves the stored bill as it was.
func TestImportAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := Importer{Store: db}
	bad := bytes.Replace(readFile(t, focusSample), []byte("\n"), []byte("\nnot,a,row\n"), 1) // line 2
	_, err := im.Import(ctx, []Source{{Path: writeFile(t, "focus.csv", bad), Name: "focus.csv"}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "focus.csv:2") {
		t.Errorf("Import(a bad row on line 2) = %v; want EInvalid naming focus.csv:2", err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 0 {
		t.Fatalf("after a bad file %d imports are stored, want none", len(imps))
	}

	data := readFile(t, focusSample)
	first, err := im.Import(ctx, []Source{{Path: writeFile(t, "a/focus.csv", data)}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := bytes.IndexByte(data, '\n') + 1
	restated := writeFile(t, "b/focus.csv", append(bytes.Clone(data), data[h:h+bytes.IndexByte(data[h:], '\n')+1]...))
	broken := Importer{Store: failingStore{db, 10}}
	if _, err := broken.Import(ctx, []Source{{Path: restated}}, Options{Replace: true}); err == nil {
		t.Fatal("Import with a store write failing after 10 lines = nil error")
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 1 || imps[0].ID != first[0].ImportID || !equalTotals(imps[0].Totals, first[0].Totals) {
		t.Errorf("after a failed replace the store holds %+v, %v; want import %d as it was", imps, err, first[0].ImportID)
	}
	lines := 0
	db.ScanCosts(ctx, gpucost.CostFilter{}, func(*gpucost.CostLine) error { lines++; return nil })
	if lines != first[0].Lines {
		t.Errorf("after a failed replace %d lines are stored, want import %d's %d", lines, first[0].ImportID, first[0].Lines)
	}
}

// exportFolder lays out an AWS Data Exports delivery as it is synced from S3: the data file
// under data/ and the manifest naming it under metadata/.
func exportFolder(t *testing.T, keys ...string) (manifest, data string) {
	t.Helper()
	root := t.TempDir()
	data = filepath.Join(root, "gpu-cur", "data", "BILLING_PERIOD=2025-06", "gpu-cur-00001.csv.gz")
	manifest = filepath.Join(root, "gpu-cur", "metadata", "BILLING_PERIOD=2025-06", "gpu-cur-Manifest.json")
	for p, b := range map[string][]byte{
		data:     billtest.Gzip(t, readFile(t, curSample)),
		manifest: []byte(`{"version":"1","exportName":"gpu-cur","dataFiles":["` + strings.Join(keys, `","`) + `"],"columns":[]}`),
	} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return manifest, data
}

// A Data Exports manifest imports the data files it names, found beside it; a data file not
// there is named, and uploads never follow manifests.
func TestImportManifest(t *testing.T) {
	ctx := context.Background()
	manifest, data := exportFolder(t, "s3://bills/cur/gpu-cur/data/BILLING_PERIOD=2025-06/gpu-cur-00001.csv.gz")
	got, err := (&Importer{Store: newStore(t)}).Import(ctx, []Source{{Path: manifest}}, Options{Manifests: true})
	if err != nil || len(got) != 1 || got[0].File != data || got[0].Format != "aws-cur" || got[0].Rows == 0 {
		t.Errorf("Import(manifest) = %+v, %v; want the data file %s imported as aws-cur", got, err, data)
	}
	_, err = (&Importer{Store: newStore(t)}).Import(ctx, []Source{{Path: manifest}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "manifest") {
		t.Errorf("Import(manifest) without Manifests = %v; want EInvalid naming the manifest", err)
	}
	manifest, _ = exportFolder(t, "s3://bills/cur/gpu-cur/data/BILLING_PERIOD=2025-06/gpu-cur-00002.csv.gz")
	_, err = (&Importer{Store: newStore(t)}).Import(ctx, []Source{{Path: manifest}}, Options{Manifests: true})
	if gpucost.ErrorCode(err) != gpucost.ENotFound || !strings.Contains(err.Error(), "gpu-cur-00002.csv.gz") {
		t.Errorf("Import(manifest of a missing file) = %v; want ENotFound naming it", err)
	}
	manifest, _ = exportFolder(t, "s3://bills/../../../../etc/passwd")
	if _, err := (&Importer{Store: newStore(t)}).Import(ctx, []Source{{Path: manifest}}, Options{Manifests: true}); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Import(manifest naming ../) = %v; want ENotFound", err)
	}
}

// A directory gives its bill files in name order, manifests and other files left out.
func TestSources(t *testing.T) {
	manifest, data := exportFolder(t, "x")
	root := filepath.Dir(filepath.Dir(filepath.Dir(filepath.Dir(manifest))))
	os.WriteFile(filepath.Join(root, "README.txt"), []byte("notes"), 0o644)
	other := filepath.Join(root, "a.csv")
	os.WriteFile(other, []byte("x"), 0o644)
	got, err := Sources(root)
	var bills []string
	skips := map[string]string{}
	for _, s := range got {
		if s.Skip == "" {
			bills = append(bills, s.Path)
		} else {
			skips[filepath.Base(s.Path)] = s.Skip
		}
	}
	if err != nil || len(bills) != 2 || bills[0] != other || bills[1] != data {
		t.Errorf("Sources(%s) = %+v, %v; want %s and %s", root, got, err, other, data)
	}
	if skips["README.txt"] != "not a bill: .txt" || !strings.Contains(skips["gpu-cur-Manifest.json"], "manifest") || len(skips) != 2 {
		t.Errorf("Sources(%s) skips %v; want README.txt (not a bill: .txt) and the manifest, with reasons", root, skips)
	}
	if _, err := Sources(filepath.Join(root, "gpu-cur", "metadata")); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("Sources(a folder of manifests) = %v; want ENotFound", err)
	}
}
