package billimport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
)

// Export gives back the rows of stored imports as FOCUS 1.2 from their kept sources
// (gpucost.BillSourceStore): gpucost export focus --all. A FOCUS CSV source is written as it is,
// every column of every row (spec columns of any feature level, x_ columns, periods as
// written); a bill of another format, or a FOCUS Parquet file, is read by its format's reader,
// which maps each row onto a CostLine, and each line is written as the FOCUS columns a
// focus.Writer writes and focus.InstanceTypeColumn. Importing the export stores the same lines
// and totals as the sources did.
type Export struct {
	Sources  gpucost.BillSourceStore
	From, To time.Time // rows whose ChargePeriodStart is in [From, To); zero times: every row
}

// Header returns the columns of the export of imps: each source's, in the order first met.
func (x *Export) Header(ctx context.Context, imps []gpucost.CostImport) ([]string, error) {
	var header []string
	seen := map[string]bool{}
	for _, imp := range imps {
		cols, err := x.columns(ctx, imp)
		if err != nil {
			return nil, err
		}
		for _, c := range cols {
			if !seen[c] {
				seen[c] = true
				header = append(header, c)
			}
		}
	}
	return header, nil
}

// columns returns the columns an import's rows are written in.
func (x *Export) columns(ctx context.Context, imp gpucost.CostImport) ([]string, error) {
	src, err := x.open(ctx, imp)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	if !src.verbatim {
		// The reader's extras (x_UsageType, x_ResourceGroupName …) vary by row: a first read
		// collects their names.
		extra := map[string]bool{}
		err := x.lines(src, imp, func(l *gpucost.CostLine) error {
			for k := range l.Extra {
				extra[k] = true
			}
			return nil
		})
		return append(focus.LineColumns(), slices.Sorted(maps.Keys(extra))...), err
	}
	rr, err := focus.NewRowReader(src, imp.Name)
	if err != nil {
		return nil, err
	}
	defer rr.Close()
	return rr.Header(), nil
}

// source is an import's kept file, decompressed.
type source struct {
	*bufio.Reader
	rc       io.Closer
	parquet  bool
	verbatim bool // a FOCUS CSV file, written as it is
}

func (s *source) Close() error { return s.rc.Close() }

func (x *Export) open(ctx context.Context, imp gpucost.CostImport) (*source, error) {
	rc, err := x.Sources.BillSource(ctx, imp.Checksum)
	if err != nil {
		return nil, fmt.Errorf("export import %d (%s): %w", imp.ID, imp.Name, err)
	}
	if _, ok := formats[imp.Format]; !ok {
		rc.Close()
		return nil, gpucost.Errorf(gpucost.EInternal, "export import %d (%s): format %q is not one gpucost reads", imp.ID, imp.Name, imp.Format)
	}
	s := &source{Reader: bufio.NewReaderSize(rc, 64<<10), rc: rc}
	head, _ := s.Peek(4)
	s.parquet = bytes.Equal(head, parquetMagic)
	s.verbatim = imp.Format == "focus" && !s.parquet
	return s, nil
}

// Write writes the rows of imp's source in the period to w, whose columns are header, adds
// their BilledCost and EffectiveCost to t and returns how many it wrote.
func (x *Export) Write(ctx context.Context, imp gpucost.CostImport, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
	src, err := x.open(ctx, imp)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	if src.verbatim {
		return x.writeRows(src, imp, header, w, t)
	}
	return x.writeLines(src, imp, header, w, t)
}

// positions returns the place in header of each of cols.
func positions(header, cols []string) []int {
	at := make(map[string]int, len(header))
	for i, c := range header {
		at[c] = i
	}
	pos := make([]int, len(cols))
	for i, c := range cols {
		pos[i] = at[c]
	}
	return pos
}

func (x *Export) in(t time.Time) bool {
	return (x.From.IsZero() || !t.Before(x.From)) && (x.To.IsZero() || t.Before(x.To))
}

// writeRows writes a FOCUS CSV source's rows as they are.
func (x *Export) writeRows(src io.Reader, imp gpucost.CostImport, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
	rr, err := focus.NewRowReader(src, imp.Name)
	if err != nil {
		return 0, err
	}
	defer rr.Close()
	pos := positions(header, rr.Header())
	out := make([][]byte, len(header))
	n := 0
	for rr.Next() {
		start, err := rr.ChargePeriodStart()
		if err != nil {
			return n, err
		}
		if !x.in(start) {
			continue
		}
		billed, effective, err := rr.Costs()
		if err != nil {
			return n, err
		}
		t.Add(billed, effective)
		clear(out)
		for i, v := range rr.Values() {
			out[pos[i]] = v
		}
		if err := w.Write(out); err != nil {
			return n, err
		}
		n++
	}
	return n, rr.Err()
}

// writeLines writes the lines the format's reader maps a source's rows onto, and their extras.
func (x *Export) writeLines(src *source, imp gpucost.CostImport, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
	pos := positions(header, focus.LineColumns())
	at := make(map[string]int, len(header))
	for i, c := range header {
		at[c] = i
	}
	out := make([][]byte, len(header))
	var vals [][]byte
	n := 0
	err := x.lines(src, imp, func(l *gpucost.CostLine) error {
		if !x.in(l.ChargePeriodStart) {
			return nil
		}
		t.Add(l.BilledCost, l.EffectiveCost)
		clear(out)
		vals = focus.LineValues(vals[:0], l)
		for i, v := range vals {
			out[pos[i]] = v
		}
		for k, v := range l.Extra {
			if i, ok := at[k]; ok && !focus.IsSpecColumn(k) {
				out[i] = []byte(v)
			}
		}
		n++
		return w.Write(out)
	})
	return n, err
}

// lines reads the source with its format's reader, keeping every extra.
func (x *Export) lines(src *source, imp gpucost.CostImport, emit emitFunc) error {
	rd := formats[imp.Format]
	if !src.parquet {
		_, err := rd.read(src, imp.Name, Options{}, emit)
		return err
	}
	if rd.parquet == nil {
		return gpucost.Errorf(gpucost.EInternal, "export import %d (%s): a Parquet file of format %s", imp.ID, imp.Name, imp.Format)
	}
	// Parquet is read from its end: the source goes to a temporary file first.
	f, err := os.CreateTemp("", "gpucost-source-*.parquet")
	if err != nil {
		return fmt.Errorf("export import %d (%s): %w", imp.ID, imp.Name, err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	size, err := io.Copy(f, src)
	if err != nil {
		return fmt.Errorf("export import %d (%s): %w", imp.ID, imp.Name, err)
	}
	_, err = rd.parquet(f, size, imp.Name, Options{}, emit)
	return err
}
