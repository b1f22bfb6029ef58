package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// TestPutCostsContexts stores two days of 70,000 resources, a day after the other as an import
// gives them: more lines than one COPY batch holds and more contexts than the writer remembers
// (65,536). Every line reads back as it was; each context the writer remembered is stored once,
// and each of the 4,464 past them once a line.
func TestPutCostsContexts(t *testing.T) {
	ctx := context.Background()
	db := openDB(t)
	const resources, days = 70_000, 2
	imp := gpucost.CostImport{Name: "fleet.csv", Checksum: "fleet", Format: "focus", Grain: 24 * time.Hour}
	got, err := db.PutCosts(ctx, imp, storetest.FleetLines(resources, 0, days), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.Lines != resources*days {
		t.Fatalf("PutCosts stored %d lines, want %d", got.Lines, resources*days)
	}
	var want []gpucost.CostLine
	for l := range storetest.FleetLines(resources, 0, days) {
		want = append(want, storetest.Clone(l))
	}
	n := 0
	err = db.ScanCosts(ctx, gpucost.CostFilter{}, func(l *gpucost.CostLine) error {
		if d := storetest.LineDiff(l, &want[n]); d != "" {
			t.Fatalf("line %d: %s", n, d)
		}
		n++
		return nil
	})
	if err != nil || n != len(want) {
		t.Fatalf("ScanCosts = %d lines, %v; want %d", n, err, len(want))
	}
	var contexts int
	if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM cost_line_contexts WHERE import_id = $1`, got.ID).Scan(&contexts); err != nil {
		t.Fatal(err)
	}
	if remembered := 1 << 16; contexts != remembered+days*(resources-remembered) {
		t.Errorf("%d contexts stored, want %d", contexts, remembered+days*(resources-remembered))
	}
	if _, err := db.RemoveCosts(ctx, got.ID); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"cost_lines", "cost_line_contexts"} {
		var left int
		if err := db.Pool().QueryRow(ctx, `SELECT count(*) FROM `+table).Scan(&left); err != nil || left != 0 {
			t.Errorf("%s holds %d rows (%v) once the import is removed", table, left, err)
		}
	}
}
