package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/present"
)

// exportSources is export focus --all: every row of the imports' kept files
// (billimport.Export), of the flags' period when periodGiven, of every import otherwise. The
// file is read back and its rows and totals checked before it replaces out; with every import
// exported, its totals are checked against the stored imports' too.
func (e *env) exportSources(ctx context.Context, f costFlags, periodGiven bool, out string) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	x := billimport.Export{}
	if periodGiven {
		from, to, err := f.resolve(e.now())
		if err != nil {
			return err
		}
		x.From, x.To = from, to
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	x.Sources = db
	imps, err := db.CostImports(ctx)
	if err != nil {
		return err
	}
	if len(imps) == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "no bills are stored in %s: import bills with gpucost import billing", db.Name())
	}
	header, err := x.Header(ctx, imps)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".gpucost-export-*")
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "export to %s: %w", out, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	w, err := focus.NewRowWriter(tmp, focus.FormatOf(out), header)
	if err != nil {
		return err
	}
	var totals gpucost.CostTotals
	rows := 0
	for _, imp := range imps {
		n, err := x.Write(ctx, imp, header, w, &totals)
		if err != nil {
			return fmt.Errorf("export to %s: %w", out, err)
		}
		rows += n
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("export to %s: %w", out, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("export to %s: %w", out, err)
	}
	if !periodGiven {
		if err := checkImportTotals(out, totals.Sorted(), importTotals(imps)); err != nil {
			return err
		}
	}
	if err := checkExport(tmp.Name(), out, rows, totals.Sorted()); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "export to %s: %w", out, err)
	}
	t := present.Export(out, rows, rows, totals.Sorted())
	t.Notes = []string{fmt.Sprintf("Every row of %d imported bills%s; read back with the FOCUS reader: %d rows, the totals of the rows written.", len(imps), periodNote(x.From, x.To), rows)}
	return e.print(t)
}

// periodNote says which rows an export holds.
func periodNote(from, to time.Time) string {
	if from.IsZero() && to.IsZero() {
		return ""
	}
	return fmt.Sprintf(" charged from %s to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
}

// importTotals sums the stored imports' totals per currency.
func importTotals(imps []gpucost.CostImport) []gpucost.CostTotal {
	var t gpucost.CostTotals
	for _, imp := range imps {
		for _, c := range imp.Totals {
			t.Add(c.BilledCost, c.EffectiveCost)
		}
	}
	return t.Sorted()
}

// checkImportTotals checks that the rows written add up to the stored imports' totals.
func checkImportTotals(out string, written, stored []gpucost.CostTotal) error {
	if slices.Equal(written, stored) {
		return nil
	}
	return gpucost.Errorf(gpucost.EInternal, "export to %s: the rows written total %v, the stored imports %v; nothing was written", out, written, stored)
}

// noGPULines is the error of a GPU export whose period holds bill lines but none of GPUs: it
// says how many lines there are and that --all exports them. err is the split's ENotFound.
func noGPULines(ctx context.Context, s *costScan, err error) error {
	n := 0
	cerr := s.db.ScanCosts(ctx, gpucost.CostFilter{From: s.Period.Start, To: s.Period.End}, func(*gpucost.CostLine) error { n++; return nil })
	if cerr != nil || n == 0 {
		return err
	}
	p := s.Period
	return gpucost.Errorf(gpucost.ENotFound, "no GPU lines from %s to %s (%d bill lines are stored in the period); use --all to export every line",
		p.Start.Format(time.DateOnly), p.End.Format(time.DateOnly), n)
}
