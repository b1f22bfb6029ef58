package storetest

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// RunCostBatches runs the cases of gpucost.CostStore's coverage and PutCostBatch.
func RunCostBatches(t *testing.T, open Open) {
	t.Run("CoverageRoundTrip", func(t *testing.T) { testCoverageRoundTrip(t, open) })
	t.Run("OverlapConflictAndReplace", func(t *testing.T) { testOverlapConflictAndReplace(t, open) })
	t.Run("BatchAllOrNothing", func(t *testing.T) { testBatchAllOrNothing(t, open) })
}

// describe returns the import of lines as billimport makes it: its coverage, and a checksum.
func describe(lines []gpucost.CostLine) gpucost.CostImport {
	var b gpucost.BillIdentity
	for i := range lines {
		b.Add(&lines[i])
	}
	imp := gpucost.CostImport{Format: "focus"}
	b.Describe(&imp, "focus")
	return imp
}

// accountLines are BillLines billed to account in the billing period starting at period.
func accountLines(account string, period time.Time, days, resources int) []gpucost.CostLine {
	lines := BillLines(days, resources)
	for i := range lines {
		lines[i].BillingAccountID, lines[i].BillingPeriodStart = account, period
	}
	return lines
}

var oct, nov = time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC)

func testCoverageRoundTrip(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	lines := append(accountLines("111", oct, 2, 3), accountLines("222", nov, 1, 2)...)
	in := describe(lines)
	in.Name, in.Checksum = "export", "sum-of-parts"
	in.Files = []gpucost.ImportFile{{Name: "d/export-00001.csv", Checksum: "p1"}, {Name: "d/export-00002.csv", Checksum: "p2"}}
	got, err := db.PutCosts(ctx, in, SeqOf(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 1 {
		t.Fatalf("CostImports() = %+v, %v", imps, err)
	}
	for _, imp := range []gpucost.CostImport{got, imps[0]} {
		if !reflect.DeepEqual(imp.Coverage, in.Coverage) || !reflect.DeepEqual(imp.Providers, in.Providers) ||
			!reflect.DeepEqual(imp.Files, in.Files) || !imp.ChargeFrom.Equal(in.ChargeFrom) || !imp.ChargeTo.Equal(in.ChargeTo) {
			t.Errorf("import = %v %v %v %s–%s, want %v %v %v %s–%s", imp.Providers, imp.Coverage, imp.Files, imp.ChargeFrom, imp.ChargeTo,
				in.Providers, in.Coverage, in.Files, in.ChargeFrom, in.ChargeTo)
		}
	}
	if want := []gpucost.BillCoverage{{Account: "111", Period: oct}, {Account: "222", Period: nov}}; !reflect.DeepEqual(imps[0].Coverage, want) {
		t.Errorf("Coverage = %v, want %v", imps[0].Coverage, want)
	}
	if !imps[0].HasFile("p2") || imps[0].HasFile("p3") {
		t.Errorf("HasFile(p2), HasFile(p3) = %v, %v; want true, false", imps[0].HasFile("p2"), imps[0].HasFile("p3"))
	}
	removed, err := db.RemoveCosts(ctx, got.ID)
	if err != nil || !reflect.DeepEqual(removed.Coverage, in.Coverage) {
		t.Fatalf("RemoveCosts = %v %v, want its coverage", removed.Coverage, err)
	}
	if _, err := db.PutCosts(ctx, in, SeqOf(lines), nil); err != nil {
		t.Errorf("PutCosts of the bill removed = %v, want it stored", err)
	}
}

func testOverlapConflictAndReplace(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	put := func(name, sum string, lines []gpucost.CostLine, replace ...int64) (gpucost.CostImport, error) {
		imp := describe(lines)
		imp.Name, imp.Checksum = name, sum
		return db.PutCosts(ctx, imp, SeqOf(lines), replace)
	}
	a, err := put("rs/bill.csv", "a", accountLines("111", oct, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	b, err := put("other-account.csv", "b", accountLines("222", oct, 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := put("nov.csv", "n", accountLines("111", nov, 1, 2)); err != nil {
		t.Errorf("PutCosts of another period = %v, want it stored", err)
	}
	full := append(accountLines("111", oct, 3, 4), accountLines("222", oct, 3, 4)...)
	_, err = put("bill.csv", "full", full)
	if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "import 1 (rs/bill.csv") || !strings.Contains(err.Error(), "111's period 2025-10") {
		t.Fatalf("PutCosts of the full export = %v, want a conflict naming import 1 (rs/bill.csv), account 111 and 2025-10", err)
	}
	if _, err := put("bill.csv", "full", full, a.ID); gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "other-account.csv") {
		t.Fatalf("PutCosts replacing only import %d = %v, want a conflict naming import %d", a.ID, err, b.ID)
	}
	got, err := put("bill.csv", "full", full, a.ID, b.ID)
	if err != nil {
		t.Fatalf("PutCosts replacing both = %v", err)
	}
	imps, _ := db.CostImports(ctx)
	if len(imps) != 2 || imps[1].ID != got.ID || !reflect.DeepEqual(imps[1].Totals, sumsOf(full)) {
		t.Errorf("after replacing, imports = %+v; want nov.csv and bill.csv with the full totals %v", imps, sumsOf(full))
	}
}

func testBatchAllOrNothing(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	first := describe(accountLines("111", oct, 1, 2))
	first.Name, first.Checksum = "first.csv", "f"
	old, err := db.PutCosts(ctx, first, SeqOf(accountLines("111", oct, 1, 2)), nil)
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name, sum, account string, period time.Time) gpucost.CostPut {
		lines := accountLines(account, period, 2, 2)
		imp := describe(lines)
		imp.Name, imp.Checksum = name, sum
		return gpucost.CostPut{Import: imp, Lines: SeqOf(lines)}
	}
	boom := errors.New("disk gone")
	for _, tc := range []struct {
		name string
		puts []gpucost.CostPut
		code string
	}{
		{"the second overlaps the first of the batch", []gpucost.CostPut{mk("a.csv", "a", "222", nov), mk("b.csv", "b", "222", nov)}, gpucost.EConflict},
		{"the last overlaps a stored import", []gpucost.CostPut{mk("a.csv", "a", "222", nov), mk("c.csv", "c", "111", oct)}, gpucost.EConflict},
		{"the middle one's lines fail", []gpucost.CostPut{mk("a.csv", "a", "222", nov), {Import: gpucost.CostImport{Name: "bad.csv", Checksum: "x"},
			Lines: func(yield func(*gpucost.CostLine) bool) { panic(boom) }}, mk("d.csv", "d", "333", nov)}, ""},
		{"a replacing one, then a file stored already", []gpucost.CostPut{{Import: mk("e.csv", "e", "111", oct).Import, Lines: mk("e.csv", "e", "111", oct).Lines,
			Replace: []int64{old.ID}}, mk("again.csv", "e", "444", nov)}, gpucost.EConflict},
	} {
		func() {
			defer func() { recover() }()
			_, err := db.PutCostBatch(ctx, tc.puts)
			if tc.code != "" && gpucost.ErrorCode(err) != tc.code {
				t.Errorf("%s: PutCostBatch = %v, want %s", tc.name, err, tc.code)
			}
		}()
		imps, err := db.CostImports(ctx)
		if err != nil || len(imps) != 1 || imps[0].ID != old.ID {
			t.Errorf("%s: after the batch failed, CostImports() = %+v, %v; want only import %d", tc.name, imps, err, old.ID)
		}
	}
	out, err := db.PutCostBatch(ctx, []gpucost.CostPut{mk("a.csv", "a", "222", nov), mk("d.csv", "d", "333", nov)})
	if err != nil || len(out) != 2 || out[0].ID == 0 || out[1].ID <= out[0].ID || out[1].Lines != 4 {
		t.Fatalf("PutCostBatch of two = %+v, %v", out, err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 3 {
		t.Errorf("after the batch, %d imports, want 3", len(imps))
	}
}
