package storetest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// scanCostLines returns copies of the lines ScanCosts passes for f.
func scanCostLines(t *testing.T, db gpucost.CostStore, f gpucost.CostFilter) []gpucost.CostLine {
	t.Helper()
	var out []gpucost.CostLine
	if err := db.ScanCosts(context.Background(), f, func(l *gpucost.CostLine) error {
		out = append(out, Clone(l))
		return nil
	}); err != nil {
		t.Fatalf("ScanCosts(%+v): %v", f, err)
	}
	return out
}

// sumsOf returns the totals of lines per currency, by currency, computed apart from the store.
func sumsOf(lines []gpucost.CostLine) []gpucost.CostTotal {
	by := map[string]*gpucost.CostTotal{}
	for _, l := range lines {
		c := l.BillingCurrency()
		if by[c] == nil {
			by[c] = &gpucost.CostTotal{Currency: c, BilledCost: gpucost.Money{Currency: c}, EffectiveCost: gpucost.Money{Currency: c}}
		}
		by[c].BilledCost.Nanos += l.BilledCost.Nanos
		by[c].EffectiveCost.Nanos += l.EffectiveCost.Nanos
	}
	out := []gpucost.CostTotal{}
	for _, t := range by {
		out = append(out, *t)
	}
	slices.SortFunc(out, func(a, b gpucost.CostTotal) int { return cmp.Compare(a.Currency, b.Currency) })
	return out
}

func testPutCostsRoundTrip(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	g := NewLineGen(1, 50)
	const n = 8192 + 1234
	var want []gpucost.CostLine
	lines := func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine // one line, reused
		for range n {
			l = g.Line()
			want = append(want, Clone(&l))
			if !yield(&l) {
				return
			}
		}
	}
	at := time.Date(2026, 11, 22, 5, 0, 0, 123, time.UTC)
	in := gpucost.CostImport{Name: "bill.csv", Checksum: "c1", Format: "focus", Version: "1.2", Grain: 24 * time.Hour,
		Rows: 123456, ImportedAt: at}
	imp, err := db.PutCosts(ctx, in, lines, nil)
	if err != nil {
		t.Fatal(err)
	}
	if imp.ID == 0 || imp.Lines != n || !imp.ImportedAt.Equal(at) {
		t.Errorf("PutCosts = ID %d, %d lines, imported %s; want an ID, %d lines, %s", imp.ID, imp.Lines, imp.ImportedAt, n, at)
	}
	if sums := sumsOf(want); !reflect.DeepEqual(imp.Totals, sums) || len(imp.Totals) < 2 {
		t.Errorf("PutCosts totals %v, want %v", imp.Totals, sums)
	}
	if got, err := db.CostImports(ctx); err != nil || !reflect.DeepEqual(got, []gpucost.CostImport{imp}) {
		t.Errorf("CostImports() = %+v, %v\nwant %+v", got, err, imp)
	}
	if got, ok, err := db.CostImportByChecksum(ctx, "c1"); err != nil || !ok || !reflect.DeepEqual(got, imp) {
		t.Errorf("CostImportByChecksum(c1) = %+v, %v, %v", got, ok, err)
	}
	if _, ok, err := db.CostImportByChecksum(ctx, "other"); err != nil || ok {
		t.Errorf("CostImportByChecksum(other) = %v, %v; want false, nil", ok, err)
	}
	got := scanCostLines(t, db, gpucost.CostFilter{})
	if len(got) != n {
		t.Fatalf("ScanCosts passed %d lines, want %d", len(got), n)
	}
	for i := range got {
		if d := LineDiff(&got[i], &want[i]); d != "" {
			t.Fatalf("line %d: %s", i, d)
		}
	}
}

func matchLine(l *gpucost.CostLine, f gpucost.CostFilter) bool {
	return (f.From.IsZero() || !l.ChargePeriodStart.Before(f.From)) &&
		(f.To.IsZero() || l.ChargePeriodStart.Before(f.To)) &&
		(len(f.Providers) == 0 || slices.ContainsFunc(f.Providers, func(p string) bool { return strings.EqualFold(p, l.Provider) })) &&
		(len(f.ResourceIDs) == 0 || slices.Contains(f.ResourceIDs, l.ResourceID))
}

func testScanCostsFilters(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	a, b := BillLines(300, 30), BillLines(20, 5)
	for i, lines := range [][]gpucost.CostLine{a, b} {
		imp := gpucost.CostImport{Name: fmt.Sprint("bill", i), Checksum: fmt.Sprint("c", i), Format: "focus"}
		if _, err := db.PutCosts(ctx, imp, SeqOf(lines), nil); err != nil {
			t.Fatal(err)
		}
	}
	all := append(slices.Clone(a), b...)
	day := func(d int) time.Time { return time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, d) }
	tests := []struct {
		name string
		f    gpucost.CostFilter
	}{
		{"everything", gpucost.CostFilter{}},
		{"from", gpucost.CostFilter{From: day(300)}},
		{"to", gpucost.CostFilter{To: day(10)}},
		{"one day", gpucost.CostFilter{From: day(5), To: day(6)}},
		{"off the second", gpucost.CostFilter{From: day(5).Add(3 * time.Millisecond), To: day(6).Add(10 * time.Millisecond)}},
		{"late only", gpucost.CostFilter{From: day(290)}},
		{"after all", gpucost.CostFilter{From: day(1000)}},
		{"empty range", gpucost.CostFilter{From: day(9), To: day(9)}},
		{"provider any case", gpucost.CostFilter{Providers: []string{"aws", "MICROSOFT"}}},
		{"no such provider", gpucost.CostFilter{Providers: []string{"Oracle"}}},
		{"resources", gpucost.CostFilter{ResourceIDs: []string{"res-003", "res-029", "nope"}}},
		{"empty lists", gpucost.CostFilter{Providers: []string{}, ResourceIDs: []string{}}},
		{"all at once", gpucost.CostFilter{From: day(3), To: day(290), Providers: []string{"AWS"}, ResourceIDs: []string{"res-003", "res-004"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []gpucost.CostLine
			for i := range all {
				if matchLine(&all[i], tt.f) {
					want = append(want, all[i])
				}
			}
			got := scanCostLines(t, db, tt.f)
			if len(got) != len(want) {
				t.Fatalf("ScanCosts(%+v) passed %d lines, want %d", tt.f, len(got), len(want))
			}
			for i := range got {
				if d := LineDiff(&got[i], &want[i]); d != "" {
					t.Fatalf("ScanCosts(%+v) line %d: %s", tt.f, i, d)
				}
			}
		})
	}
}

func testPutCostsNothingStoredOnFailure(t *testing.T, open Open) {
	lines := BillLines(400, 30) // past the first chunk or batch
	stop := errors.New("the reader failed")
	tests := []struct {
		name string
		imp  gpucost.CostImport
		seq  func(cancel context.CancelCauseFunc) iter.Seq[*gpucost.CostLine]
		want error
	}{
		{"reader fails", gpucost.CostImport{}, func(cancel context.CancelCauseFunc) iter.Seq[*gpucost.CostLine] {
			return func(yield func(*gpucost.CostLine) bool) {
				for l := range SeqOf(lines[:10_000]) {
					if !yield(l) {
						return
					}
				}
				cancel(stop)
			}
		}, stop},
		{"cancelled midway", gpucost.CostImport{}, func(cancel context.CancelCauseFunc) iter.Seq[*gpucost.CostLine] {
			return func(yield func(*gpucost.CostLine) bool) {
				for i, l := range lines {
					if i == 9000 {
						cancel(nil)
					}
					if !yield(&l) {
						return
					}
				}
			}
		}, context.Canceled},
		{"totals differ", gpucost.CostImport{Totals: []gpucost.CostTotal{{Currency: "USD", BilledCost: gpucost.USD(1)}}},
			func(context.CancelCauseFunc) iter.Seq[*gpucost.CostLine] { return SeqOf(lines) }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := open(t)
			ctx := context.Background()
			old, err := db.PutCosts(ctx, gpucost.CostImport{Name: "old", Checksum: "c0"}, SeqOf(lines[:100]), nil)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			imp := tt.imp
			imp.Name, imp.Checksum = "new", "c1"
			_, err = db.PutCosts(ctx, imp, tt.seq(cancel), []int64{old.ID})
			if err == nil || tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("PutCosts = %v, want %v", err, tt.want)
			}
			checkOnlyOld(t, db, old, 100)
		})
	}
}

// checkOnlyOld checks that db holds the import old, with its lines, and nothing else.
func checkOnlyOld(t *testing.T, db gpucost.CostStore, old gpucost.CostImport, lines int) {
	t.Helper()
	imps, err := db.CostImports(context.Background())
	if err != nil || len(imps) != 1 || imps[0].ID != old.ID {
		t.Errorf("CostImports() = %+v, %v; want only %+v", imps, err, old)
	}
	if n := len(scanCostLines(t, db, gpucost.CostFilter{})); n != lines {
		t.Errorf("%d lines stored, want the old import's %d", n, lines)
	}
}

func testPutCostsPanickingReaderStoresNothing(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	lines := BillLines(400, 30)
	old, err := db.PutCosts(ctx, gpucost.CostImport{Name: "old", Checksum: "c0"}, SeqOf(lines[:100]), nil)
	if err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("PutCosts did not pass the reader's panic on")
			}
		}()
		db.PutCosts(ctx, gpucost.CostImport{Name: "new", Checksum: "c1"}, func(yield func(*gpucost.CostLine) bool) {
			for l := range SeqOf(lines[:9000]) {
				yield(l)
			}
			panic("reader bug")
		}, []int64{old.ID})
	}()
	checkOnlyOld(t, db, old, 100)
	if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "new", Checksum: "c1"}, SeqOf(lines), nil); err != nil {
		t.Errorf("PutCosts after a panic: %v", err)
	}
}

func testPutCostsConflictAndReplace(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	lines := BillLines(3, 4)
	first, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv", Checksum: "same"}, SeqOf(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := db.PutCosts(ctx, gpucost.CostImport{Name: "b.csv", Checksum: "other"}, SeqOf(lines[:2]), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.PutCosts(ctx, gpucost.CostImport{Name: "a-again.csv", Checksum: "same"}, SeqOf(lines), nil)
	if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "a.csv") {
		t.Fatalf("PutCosts of the same file = %v, want a conflict naming a.csv", err)
	}
	if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv"}, SeqOf(lines), nil); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("PutCosts without a checksum = %v, want invalid", err)
	}
	empty, err := db.PutCosts(ctx, gpucost.CostImport{Name: "empty.csv", Checksum: "empty"}, nil, nil)
	if err != nil || empty.Lines != 0 || empty.Totals == nil || len(empty.Totals) != 0 {
		t.Errorf("PutCosts of no lines = %+v, %v; want 0 lines and no totals", empty, err)
	}
	again, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a-again.csv", Checksum: "same"}, SeqOf(lines[:5]), []int64{first.ID, 999})
	if err != nil {
		t.Fatal(err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 3 || imps[0].ID != other.ID || imps[1].ID != empty.ID || imps[2].ID != again.ID {
		t.Fatalf("CostImports() = %+v, %v; want b.csv, empty.csv then a-again.csv", imps, err)
	}
	if got := scanCostLines(t, db, gpucost.CostFilter{}); len(got) != 7 || got[0].ResourceID != lines[0].ResourceID {
		t.Errorf("ScanCosts after replacing passed %d lines, want 2 of b.csv then 5 of a-again.csv", len(got))
	}
}

func testScanCostsStops(t *testing.T, open Open) {
	db := open(t)
	ctx := context.Background()
	if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a", Checksum: "a"}, SeqOf(BillLines(400, 30)), nil); err != nil {
		t.Fatal(err)
	}
	stop := errors.New("enough")
	n := 0
	err := db.ScanCosts(ctx, gpucost.CostFilter{}, func(*gpucost.CostLine) error {
		if n++; n == 10 {
			return stop
		}
		return nil
	})
	if err != stop || n != 10 {
		t.Errorf("ScanCosts = %v after %d lines, want %v after 10", err, n, stop)
	}
	ctx, cancel := context.WithCancel(ctx)
	n = 0
	err = db.ScanCosts(ctx, gpucost.CostFilter{}, func(*gpucost.CostLine) error {
		if n++; n == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || n >= 12_000 {
		t.Errorf("ScanCosts cancelled = %v after %d lines, want %v before the end", err, n, context.Canceled)
	}
}

func testPutCostsIdentity(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	lines := BillLines(3, 4)
	first, err := db.PutCosts(ctx, gpucost.CostImport{Name: "focus.csv", Checksum: "c1", Identity: "b1-k"}, SeqOf(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.PutCosts(ctx, gpucost.CostImport{Name: "restated.csv", Checksum: "c2", Identity: "b1-k"}, SeqOf(lines[:3]), nil)
	if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "same identity") ||
		!strings.Contains(err.Error(), fmt.Sprintf("import %d", first.ID)) {
		t.Fatalf("PutCosts of another file of the same bill = %v, want a conflict naming import %d", err, first.ID)
	}
	for _, sum := range []string{"c3", "c4"} { // no identity: only the checksum counts
		if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "old.csv", Checksum: sum}, SeqOf(lines[:1]), nil); err != nil {
			t.Fatalf("PutCosts without an identity, checksum %s = %v", sum, err)
		}
	}
	again, err := db.PutCosts(ctx, gpucost.CostImport{Name: "restated.csv", Checksum: "c2", Identity: "b1-k"}, SeqOf(lines[:3]), []int64{first.ID})
	if err != nil {
		t.Fatalf("PutCosts replacing import %d = %v", first.ID, err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 3 || imps[2].ID != again.ID || imps[2].Identity != "b1-k" || imps[0].Identity != "" {
		t.Errorf("CostImports() = %+v, %v; want old.csv twice without identity, then restated.csv with b1-k", imps, err)
	}
}

func testRemoveCosts(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	lines := BillLines(5, 4)
	a, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv", Checksum: "a", Identity: "b1-a", Rows: 20}, SeqOf(lines), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := db.PutCosts(ctx, gpucost.CostImport{Name: "b.csv", Checksum: "b", Identity: "b1-b"}, SeqOf(lines[:2]), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := db.RemoveCosts(ctx, a.ID)
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("RemoveCosts(%d) = %+v, %v; want %+v", a.ID, got, err, a)
	}
	if imps, err := db.CostImports(ctx); err != nil || len(imps) != 1 || imps[0].ID != b.ID {
		t.Errorf("CostImports() after RemoveCosts = %+v, %v; want b.csv only", imps, err)
	}
	if n := len(scanCostLines(t, db, gpucost.CostFilter{})); n != 2 {
		t.Errorf("ScanCosts after RemoveCosts passed %d lines, want b.csv's 2", n)
	}
	if _, err := db.RemoveCosts(ctx, a.ID); gpucost.ErrorCode(err) != gpucost.ENotFound {
		t.Errorf("RemoveCosts(%d) again = %v, want not found", a.ID, err)
	}
	// The removed bill's checksum and identity are free again.
	if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: "a.csv", Checksum: "a", Identity: "b1-a"}, SeqOf(lines), nil); err != nil {
		t.Errorf("PutCosts of a removed bill = %v", err)
	}
}

// testPutCostsRace stores other files of one bill, and the same file, from goroutines at once:
// the store lets one of each land and refuses the others as conflicts, within its transaction.
func testPutCostsRace(t *testing.T, open Open) {
	ctx := context.Background()
	db := open(t)
	lines := BillLines(50, 20)
	const racers = 6
	errs := make(chan error, racers)
	for i := range racers {
		go func() {
			sum := fmt.Sprint("restated-", i%2) // two files, each sent three times
			_, err := db.PutCosts(ctx, gpucost.CostImport{Name: "focus.csv", Checksum: sum, Identity: "b1-race"}, SeqOf(lines), nil)
			errs <- err
		}()
	}
	landed := 0
	for range racers {
		switch err := <-errs; gpucost.ErrorCode(err) {
		case "":
			landed++
		case gpucost.EConflict:
		default:
			t.Errorf("PutCosts racing = %v, want success or a conflict", err)
		}
	}
	imps, err := db.CostImports(ctx)
	if landed != 1 || err != nil || len(imps) != 1 {
		t.Fatalf("%d racers landed, CostImports() = %+v, %v; want exactly one", landed, imps, err)
	}
	if got, want := imps[0].Totals, sumsOf(lines); !reflect.DeepEqual(got, want) {
		t.Errorf("totals after the race = %v, want the bill's %v", got, want)
	}
}

// IdentityBackfill checks that a store computes the identity keys of imports stored before it
// kept them when it is opened again: put stores imports in db, forget clears their identities
// (as the migration leaves them) and reopen opens the store again. Of two imports of one bill,
// the older gets the key and the other none, so neither blocks. forget also clears their
// coverage, as migration 0020 leaves it, and the store computes that too: both imports of the
// one bill keep their pairs, and a third import of the bill is refused.
func IdentityBackfill(t *testing.T, db gpucost.CostStore, forget func(), reopen func() gpucost.CostStore) {
	ctx := context.Background()
	bill, other := BillLines(3, 4), accountLines("222", time.Time{}, 2, 5)
	for _, in := range []struct {
		name, sum string
		lines     []gpucost.CostLine
	}{{"exports/2026-10/focus.csv", "a", bill}, {"focus.csv.gz", "b", bill}, {"focus-00002.csv", "c", other}} {
		if _, err := db.PutCosts(ctx, gpucost.CostImport{Name: in.name, Checksum: in.sum, Format: "focus"}, SeqOf(in.lines), nil); err != nil {
			t.Fatal(err)
		}
	}
	forget()
	db = reopen()
	key := func(lines []gpucost.CostLine, _ string) string {
		var b gpucost.BillIdentity
		for i := range lines {
			b.Add(&lines[i])
		}
		return b.Key("focus")
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 3 {
		t.Fatalf("CostImports() = %+v, %v", imps, err)
	}
	for i, want := range []string{key(bill, "focus.csv"), "", key(other, "focus-00002.csv")} {
		if imps[i].Identity != want {
			t.Errorf("import %d (%s) identity after reopening = %q, want %q", imps[i].ID, imps[i].Name, imps[i].Identity, want)
		}
	}
	want := describe(bill)
	for _, imp := range imps[:2] {
		if !reflect.DeepEqual(imp.Coverage, want.Coverage) || !reflect.DeepEqual(imp.Providers, want.Providers) ||
			!imp.ChargeFrom.Equal(want.ChargeFrom) || !imp.ChargeTo.Equal(want.ChargeTo) {
			t.Errorf("import %d (%s) after reopening covers %v %v %s–%s, want %v %v %s–%s", imp.ID, imp.Name, imp.Providers, imp.Coverage,
				imp.ChargeFrom, imp.ChargeTo, want.Providers, want.Coverage, want.ChargeFrom, want.ChargeTo)
		}
	}
	restated := want
	restated.Name, restated.Checksum = "restated.csv", "e"
	if _, err := db.PutCosts(ctx, restated, SeqOf(bill[:1]), nil); gpucost.ErrorCode(err) != gpucost.EConflict {
		t.Errorf("PutCosts of a bill whose period a backfilled import covers = %v, want a conflict", err)
	}
	_, err = db.PutCosts(ctx, gpucost.CostImport{Name: "focus.csv", Checksum: "d", Identity: key(bill, "focus.csv")}, SeqOf(bill[:1]), nil)
	if gpucost.ErrorCode(err) != gpucost.EConflict {
		t.Errorf("PutCosts of a restated bill after the backfill = %v, want a conflict", err)
	}
}
