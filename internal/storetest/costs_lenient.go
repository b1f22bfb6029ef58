package storetest

import (
	"context"
	"testing"

	"github.com/gpucost/gpucost"
)

// testPutCostsLenient checks that a store keeps whether an import was read leniently
// (CostImport.Lenient), which export focus --all reads its source by, and gives it back from
// every look-up of the import.
func testPutCostsLenient(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	lenient, err := db.PutCosts(ctx, gpucost.CostImport{Name: "spreadsheet.csv", Checksum: "l1", Lenient: true}, SeqOf(BillLines(1, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "strict.csv", Checksum: "s1"}, SeqOf(BillLines(1, 2)), nil); err != nil {
		t.Fatal(err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 2 || !imps[0].Lenient || imps[1].Lenient {
		t.Fatalf("CostImports() = %+v, %v; want spreadsheet.csv lenient, strict.csv not", imps, err)
	}
	if imp, ok, err := db.CostImportByChecksum(ctx, "l1"); err != nil || !ok || !imp.Lenient {
		t.Errorf("CostImportByChecksum(l1) = %+v, %v, %v; want the lenient import", imp, ok, err)
	}
	if imp, err := db.RemoveCosts(ctx, lenient.ID); err != nil || !imp.Lenient {
		t.Errorf("RemoveCosts(%d) = %+v, %v; want the lenient import as it was", lenient.ID, imp, err)
	}
}
