package focus

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gpucost/gpucost"
)

// Written is what an export wrote: how many rows, and their totals per currency, sorted
// (gpucost.CostTotals.Sorted).
type Written struct {
	Rows   int
	Totals []gpucost.CostTotal
}

// WriteFile writes the FOCUS file path through a temporary file beside it, so that a failed
// export never leaves half a file: write writes the whole file into w and says what it wrote.
// The file is read back with ReadFile and replaces path only when it holds as many rows and
// the same totals. write's errors are returned as they are; the others name path.
func WriteFile(path string, write func(w io.Writer) (Written, error)) (Written, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".gpucost-export-*")
	if err != nil {
		return Written{}, gpucost.Errorf(gpucost.EInvalid, "export to %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	wr, err := write(tmp)
	if err != nil {
		return Written{}, err
	}
	if err := tmp.Close(); err != nil {
		return Written{}, fmt.Errorf("export to %s: %w", path, err)
	}
	if err := checkWritten(tmp.Name(), path, wr); err != nil {
		return Written{}, err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return Written{}, gpucost.Errorf(gpucost.EInvalid, "export to %s: %w", path, err)
	}
	return wr, nil
}

// WriteLinesFile writes the cost lines lines passes to its write func as the FOCUS file path
// (WriteFile), as a Writer with opts writes them. lines returns how many lines it passed and
// their totals; its errors are returned naming path.
func WriteLinesFile(path string, opts WriterOptions, lines func(write func(*gpucost.CostLine) error) (Written, error)) (Written, error) {
	return WriteFile(path, func(f io.Writer) (Written, error) {
		w, err := NewWriter(f, opts)
		if err != nil {
			return Written{}, err
		}
		wr, err := lines(w.Write)
		if err == nil {
			err = w.Close()
		}
		if err != nil {
			return Written{}, fmt.Errorf("export to %s: %w", path, err)
		}
		return wr, nil
	})
}

// checkWritten reads the file tmp, written for out, back and compares its rows and totals with
// want's.
func checkWritten(tmp, out string, want Written) error {
	st, err := ReadFile(tmp, func(*gpucost.CostLine) error { return nil })
	if err != nil {
		return gpucost.Errorf(gpucost.EInternal, "export to %s: reading the file back: %w", out, err)
	}
	if st.Rows != want.Rows {
		return gpucost.Errorf(gpucost.EInternal, "export to %s: wrote %d rows, read back %d", out, want.Rows, st.Rows)
	}
	for _, t := range want.Totals {
		got, cur := st.Totals[t.Currency], t.Currency
		if got.BilledCost != t.BilledCost || got.EffectiveCost != t.EffectiveCost {
			return gpucost.Errorf(gpucost.EInternal, "export to %s: %s totals read back %v/%v, stored %v/%v", out, cur, got.BilledCost, got.EffectiveCost, t.BilledCost, t.EffectiveCost)
		}
	}
	return nil
}
