package billimport

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
)

// WriteFile writes every row of imps (Write) as the FOCUS file out, in the format its
// extension names, through focus.WriteFile: the file is read back and its rows and totals
// checked before it replaces out. With every row of every import exported (From and To zero),
// the rows' totals must be the stored imports' too (ImportTotals), or nothing is written.
func (x *Export) WriteFile(ctx context.Context, imps []gpucost.CostImport, out string) (focus.Written, error) {
	header, err := x.Header(ctx, imps)
	if err != nil {
		return focus.Written{}, err
	}
	return focus.WriteFile(out, func(f io.Writer) (focus.Written, error) {
		w, err := focus.NewRowWriter(f, focus.FormatOf(out), header)
		if err != nil {
			return focus.Written{}, err
		}
		var totals gpucost.CostTotals
		rows := 0
		for _, imp := range imps {
			n, err := x.Write(ctx, imp, header, w, &totals)
			if err != nil {
				return focus.Written{}, fmt.Errorf("export to %s: %w", out, err)
			}
			rows += n
		}
		if err := w.Close(); err != nil {
			return focus.Written{}, fmt.Errorf("export to %s: %w", out, err)
		}
		written := focus.Written{Rows: rows, Totals: totals.Sorted()}
		if stored := ImportTotals(imps); x.From.IsZero() && x.To.IsZero() && !slices.Equal(written.Totals, stored) {
			return focus.Written{}, gpucost.Errorf(gpucost.EInternal, "export to %s: the rows written total %v, the stored imports %v; nothing was written", out, written.Totals, stored)
		}
		return written, nil
	})
}

// ImportTotals sums the stored imports' totals per currency.
func ImportTotals(imps []gpucost.CostImport) []gpucost.CostTotal {
	var t gpucost.CostTotals
	for _, imp := range imps {
		for _, c := range imp.Totals {
			t.Add(c.BilledCost, c.EffectiveCost)
		}
	}
	return t.Sorted()
}
