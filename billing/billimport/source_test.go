package billimport

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/gpucost/gpucost"
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
