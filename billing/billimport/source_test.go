package billimport

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
)

// TestImportKeepsSource checks that an import keeps its file under its checksum, that a replace
// by the same file keeps it, that a replace by another file of the bill keeps only the new one,
// and that Options.NoSource keeps none.
func TestImportKeepsSource(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := &Importer{Store: db}
	source := func(sum string) ([]byte, error) {
		rc, err := db.BillSource(ctx, sum)
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		return io.ReadAll(rc)
	}
	data := readFile(t, focusSample)
	path := writeFile(t, "bill.csv", data)
	res, err := im.Import(ctx, []Source{{Path: path}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sum := res[0].Checksum
	if got, err := source(sum); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("BillSource after import = %d bytes, %v; want the file's %d", len(got), err, len(data))
	}
	if _, err := im.Import(ctx, []Source{{Path: path}}, Options{Replace: true}); err != nil {
		t.Fatal(err)
	}
	if got, err := source(sum); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("BillSource after a replace by the same file = %d bytes, %v; want the file", len(got), err)
	}
	// The restated bill: the same name, one row's amount changed.
	restated := bytes.Replace(data, []byte("0.00000080000"), []byte("0.00000090000"), 1)
	res2, err := im.Import(ctx, []Source{{Path: writeFile(t, "bill.csv", restated)}}, Options{Replace: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := source(sum); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("BillSource of the replaced file = %v, want not found", err)
	}
	if got, err := source(res2[0].Checksum); err != nil || !bytes.Equal(got, restated) {
		t.Errorf("BillSource of the restated file = %d bytes, %v; want it", len(got), err)
	}
	res3, err := im.Import(ctx, []Source{{Path: curSample}}, Options{NoSource: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := source(res3[0].Checksum); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("BillSource of a file imported with NoSource = %v, want not found", err)
	}
}

// TestImportKeepsPartSources checks that the parts of one export keep their files under their
// own checksums, that the export gives every row of both back, and that removing the import
// drops both.
func TestImportKeepsPartSources(t *testing.T) {
	ctx := context.Background()
	data := readFile(t, curSample)
	lines := bytes.SplitAfter(data, []byte("\n"))
	head, rows := lines[0], lines[1:]
	dir := t.TempDir()
	one, two := filepath.Join(dir, "cur2-00001.csv"), filepath.Join(dir, "cur2-00002.csv")
	os.WriteFile(one, append(bytes.Clone(head), bytes.Join(rows[:len(rows)/2], nil)...), 0o644)
	os.WriteFile(two, append(bytes.Clone(head), bytes.Join(rows[len(rows)/2:], nil)...), 0o644)
	db := newStore(t)
	res, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: one}, {Path: two}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if _, err := db.BillSource(ctx, r.Checksum); err != nil {
			t.Fatalf("BillSource of part %s = %v; want it kept", r.File, err)
		}
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 1 {
		t.Fatalf("CostImports = %v, %v; want one import of the parts", imps, err)
	}
	x := &Export{Sources: db}
	header, err := x.Header(ctx, imps)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	w, err := focus.NewRowWriter(&out, focus.CSV, header)
	if err != nil {
		t.Fatal(err)
	}
	var totals gpucost.CostTotals
	n, err := x.Write(ctx, imps[0], header, w, &totals)
	if err == nil {
		err = w.Close()
	}
	if err != nil || n != imps[0].Rows || !equalTotals(totals.Sorted(), imps[0].Totals) {
		t.Errorf("Export of the parts = %d rows, totals %v, %v; want %d rows, %v", n, totals.Sorted(), err, imps[0].Rows, imps[0].Totals)
	}
	if _, err := db.RemoveCosts(ctx, imps[0].ID); err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if _, err := db.BillSource(ctx, r.Checksum); gpucost.ErrorCode(err) != gpucost.ENotFound {
			t.Errorf("BillSource of part %s after the import's removal = %v; want not found", r.File, err)
		}
	}
}
