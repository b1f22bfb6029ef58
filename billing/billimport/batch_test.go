package billimport

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// samples are bills of every format the billing tests read, with how a partial export of each
// is cut: the header and the first half of the rows (CSV), or the first half of the lines.
var samples = []struct {
	path   string
	header bool
}{
	{focusSample, true},
	{curSample, true},
	{"../gcp/testdata/detailed_export.jsonl", false},
	{"../azure/testdata/ea_actual.csv", true},
}

// partial returns the start of a bill: its header, if it has one, and half of its rows.
func partial(data []byte, header bool) []byte {
	lines := bytes.SplitAfter(bytes.TrimRight(data, "\n"), []byte("\n"))
	n := len(lines) / 2
	if header {
		n = 1 + (len(lines)-1)/2
	}
	out := bytes.Join(lines[:n], nil)
	if !bytes.HasSuffix(out, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// sourceTotals are the reader's own sums of the file at path, per currency.
func sourceTotals(t *testing.T, path string) []gpucost.CostTotal {
	t.Helper()
	format, err := Detect(path, path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := formats[format].read(bytes.NewReader(readFile(t, path)), path, Options{}, func(*gpucost.CostLine) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return st.CostTotals()
}

// A partial export imported under one name and the full export under another, from another
// folder, are one bill: the full one is refused naming the partial import, and --replace leaves
// the full export alone, its totals to the cent.
func TestImportPartialThenFull(t *testing.T) {
	ctx := context.Background()
	for _, s := range samples {
		t.Run(filepath.Base(s.path), func(t *testing.T) {
			db := newStore(t)
			im := Importer{Store: db}
			data := readFile(t, s.path)
			ext := filepath.Ext(s.path)
			part := writeFile(t, "rs/bill"+ext, partial(data, s.header))
			full := writeFile(t, "exports/2026-10/everything"+ext, data)
			first, err := im.Import(ctx, []Source{{Path: part}}, Options{})
			if err != nil || first[0].Status != "imported" {
				t.Fatalf("Import(partial) = %+v, %v", first, err)
			}
			got, err := im.Import(ctx, []Source{{Path: full}}, Options{})
			if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "import 1 ("+part) || !strings.Contains(err.Error(), "--replace") ||
				!strings.Contains(err.Error(), "gpucost import remove 1") || !strings.HasPrefix(got[0].Status, "refused: ") {
				t.Fatalf("Import(full) = %+v, %v; want a conflict naming import 1 (%s), --replace and gpucost import remove 1", got, err, part)
			}
			if imps, _ := db.CostImports(ctx); len(imps) != 1 {
				t.Fatalf("after the refusal %d imports are stored, want 1", len(imps))
			}
			rep, err := im.Import(ctx, []Source{{Path: full}}, Options{Replace: true})
			if err != nil || rep[0].Status != "replaced import 1" || len(rep[0].Replaced) != 1 {
				t.Fatalf("Import(full, Replace) = %+v, %v; want import 1 replaced", rep, err)
			}
			imps, err := db.CostImports(ctx)
			if err != nil || len(imps) != 1 || imps[0].Name != full || !equalTotals(imps[0].Totals, sourceTotals(t, full)) {
				t.Errorf("after the replace, imports = %+v, %v; want %s alone with its totals %v", imps, err, full, sourceTotals(t, full))
			}
			if len(imps) == 1 && (len(imps[0].Coverage) == 0 || len(imps[0].Providers) == 0 || imps[0].ChargeFrom.IsZero()) {
				t.Errorf("stored import covers %v %v from %s; want its accounts, periods and charge span", imps[0].Providers, imps[0].Coverage, imps[0].ChargeFrom)
			}
			again, err := im.Import(ctx, []Source{{Path: writeFile(t, "elsewhere/copy"+ext, data)}}, Options{})
			if err != nil || !again[0].Skipped || again[0].Status != "skipped: imported before (import 2)" {
				t.Errorf("Import(the same bytes elsewhere) = %+v, %v; want skipped as import 2", again, err)
			}
		})
	}
}

// A directory with a bad file stores nothing and lists every file, with what became of it.
func TestImportDirectoryAllOrNothing(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := Importer{Store: db}
	dir := t.TempDir()
	bad := bytes.Replace(readFile(t, focusSample), []byte("\n"), []byte("\nnot,a,row\n"), 1) // line 2
	for name, data := range map[string][]byte{
		"a-cur.csv": readFile(t, curSample), "b-focus.csv": bad, "chart.svg": []byte("<svg/>"), "notes.txt": []byte("x"),
		"metrics.prom": []byte("gpu 1\n"), "c-gcp.jsonl": readFile(t, "../gcp/testdata/detailed_export.jsonl"),
	} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sources, err := Sources(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := im.Import(ctx, sources, Options{})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "b-focus.csv:2") {
		t.Errorf("Import(dir with a bad file) = %v; want EInvalid naming b-focus.csv:2", err)
	}
	want := map[string]string{
		"a-cur.csv": "not stored: ", "b-focus.csv": "refused: ", "c-gcp.jsonl": "not stored: ",
		"chart.svg": "skipped: not a bill: .svg", "metrics.prom": "skipped: not a bill: .prom", "notes.txt": "skipped: not a bill: .txt",
	}
	if len(got) != len(want) {
		t.Errorf("Import(dir) = %d results, want one for each of the %d files", len(got), len(want))
	}
	for _, r := range got {
		if w := want[filepath.Base(r.File)]; w == "" || !strings.HasPrefix(r.Status, w) {
			t.Errorf("%s: status %q, want %q…", r.File, r.Status, w)
		}
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 0 {
		t.Errorf("after a refused batch %d imports are stored, want none", len(imps))
	}
	os.Remove(filepath.Join(dir, "b-focus.csv"))
	sources, _ = Sources(dir)
	got, err = im.Import(ctx, sources, Options{})
	if err != nil || len(got) != 5 {
		t.Fatalf("Import(dir without the bad file) = %+v, %v", got, err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 2 {
		t.Errorf("after the batch %d imports are stored, want 2", len(imps))
	}
}

// Parts of one export, by their names, are one import; two files of one period that are not
// parts of one export are refused, both.
func TestImportParts(t *testing.T) {
	ctx := context.Background()
	data := readFile(t, curSample)
	lines := bytes.SplitAfter(data, []byte("\n"))
	head, rows := lines[0], lines[1:]
	one := append(bytes.Clone(head), bytes.Join(rows[:len(rows)/2], nil)...)
	two := append(bytes.Clone(head), bytes.Join(rows[len(rows)/2:], nil)...)
	dir := t.TempDir()
	p1, p2 := filepath.Join(dir, "cur2-00001.csv"), filepath.Join(dir, "cur2-00002.csv")
	os.WriteFile(p1, one, 0o644)
	os.WriteFile(p2, two, 0o644)

	db := newStore(t)
	got, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: p1}, {Path: p2}}, Options{})
	if err != nil || len(got) != 2 || got[0].ImportID != got[1].ImportID || len(got[0].Parts) != 2 {
		t.Fatalf("Import(two parts) = %+v, %v; want one import of both", got, err)
	}
	imps, _ := db.CostImports(ctx)
	if len(imps) != 1 || len(imps[0].Files) != 2 || !equalTotals(imps[0].Totals, sourceTotals(t, curSample)) || imps[0].Rows != len(rows)-1 {
		t.Errorf("stored = %+v; want one import of the two files with the whole sample's totals %v", imps, sourceTotals(t, curSample))
	}
	again, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: p2}}, Options{})
	if err != nil || again[0].Status != "skipped: imported before (import 1)" {
		t.Errorf("Import(a part again) = %+v, %v; want skipped", again, err)
	}

	db = newStore(t)
	if _, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: p1}}, Options{}); err != nil {
		t.Fatal(err)
	}
	_, err = (&Importer{Store: db}).Import(ctx, []Source{{Path: p2}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "another part of the same export") {
		t.Errorf("Import(the second part alone) = %v; want a conflict saying to import the parts together", err)
	}
	restated := writeFile(t, "restated/cur2-00001.csv", data)
	_, err = (&Importer{Store: db}).Import(ctx, []Source{{Path: restated}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EConflict || strings.Contains(err.Error(), "another part") || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("Import(a restated part of the same name) = %v; want the usual conflict", err)
	}
	got, err = (&Importer{Store: db}).Import(ctx, []Source{{Path: p1}, {Path: p2}}, Options{Replace: true})
	if err != nil || got[0].Status != "replaced import 1" || got[1].ImportID != 2 {
		t.Errorf("Import(both parts, Replace) = %+v, %v; want import 1 replaced by both", got, err)
	}

	a, b := filepath.Join(dir, "october.csv"), filepath.Join(dir, "restated.csv")
	os.WriteFile(a, one, 0o644)
	os.WriteFile(b, data, 0o644)
	db = newStore(t)
	got, err = (&Importer{Store: db}).Import(ctx, []Source{{Path: a}, {Path: b}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "not parts of one export") ||
		!strings.HasPrefix(got[0].Status, "refused: ") || !strings.HasPrefix(got[1].Status, "refused: ") {
		t.Errorf("Import(two bills of one period) = %+v, %v; want both refused as ambiguous", got, err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 0 {
		t.Errorf("after an ambiguous batch %d imports are stored, want none", len(imps))
	}
}

// The files a manifest names are one import, called by the manifest.
func TestImportManifestParts(t *testing.T) {
	ctx := context.Background()
	manifest, data := exportFolder(t, "s3://b/gpu-cur/data/BILLING_PERIOD=2025-06/gpu-cur-00001.csv.gz", "s3://b/gpu-cur/data/BILLING_PERIOD=2025-06/other.csv")
	rows := bytes.SplitAfter(readFile(t, curSample), []byte("\n"))
	os.WriteFile(filepath.Join(filepath.Dir(data), "other.csv"), append(bytes.Clone(rows[0]), rows[1]...), 0o644)
	db := newStore(t)
	got, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: manifest}}, Options{Manifests: true})
	if err != nil || len(got) != 2 || got[0].ImportID != got[1].ImportID {
		t.Fatalf("Import(manifest of two files) = %+v, %v; want one import", got, err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 1 || imps[0].Name != manifest || len(imps[0].Files) != 2 {
		t.Errorf("stored = %+v; want one import called %s of two files", imps, manifest)
	}
}
