package billimport

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
)

// TestExportWriteFile checks that an export of every import writes every stored row with the
// stored totals, and that it writes nothing when the rows do not add up to the stored imports,
// unless a period chooses the rows.
func TestExportWriteFile(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	if _, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: focusSample}, {Path: curSample}}, Options{}); err != nil {
		t.Fatal(err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil || len(imps) != 2 {
		t.Fatalf("CostImports = %d imports, %v; want 2", len(imps), err)
	}
	rows := 0
	for _, imp := range imps {
		rows += imp.Rows
	}
	out := filepath.Join(t.TempDir(), "bill.csv")
	x := &Export{Sources: db}
	got, err := x.WriteFile(ctx, imps, out)
	if err != nil || got.Rows != rows || !slices.Equal(got.Totals, ImportTotals(imps)) {
		t.Fatalf("WriteFile(every import) = %+v, %v; want %d rows totalling %v", got, err, rows, ImportTotals(imps))
	}
	st, err := focus.ReadFile(out, func(*gpucost.CostLine) error { return nil })
	if err != nil || st.Rows != rows {
		t.Errorf("reading %s back = %d rows, %v; want %d", out, st.Rows, err, rows)
	}

	// Stored totals that the rows do not match: nothing is written.
	wrong := slices.Clone(imps)
	wrong[0].Totals = slices.Clone(wrong[0].Totals)
	wrong[0].Totals[0].BilledCost = wrong[0].Totals[0].BilledCost.Add(mustMoney(t, "1", wrong[0].Totals[0].Currency))
	other := filepath.Join(t.TempDir(), "other.csv")
	if _, err := x.WriteFile(ctx, wrong, other); gpucost.ErrorCode(err) != gpucost.EInternal || !strings.Contains(err.Error(), "nothing was written") {
		t.Errorf("WriteFile(imports whose totals differ) = %v, want %s: nothing was written", err, gpucost.EInternal)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Errorf("WriteFile(imports whose totals differ) left %s: %v", other, err)
	}

	// A period chooses rows: the stored imports' totals are not the rows'.
	p := &Export{Sources: db, From: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)}
	if got, err := p.WriteFile(ctx, wrong, other); err != nil || got.Rows != rows {
		t.Errorf("WriteFile(a period, imports whose totals differ) = %+v, %v; want %d rows", got, err, rows)
	}
}

func mustMoney(t *testing.T, v, currency string) gpucost.Money {
	t.Helper()
	m, err := gpucost.ParseMoney(v, currency)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
