package billimport

import (
	"bufio"
	"bytes"
	"context"
	"errors"
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
// (gpucost.BillSourceStore): gpucost export focus --all. A FOCUS source is written as it is,
// every column of every row (spec columns of any feature level, x_ columns, periods as
// written; a Parquet file's values as text, focus.NewParquetRowReader); a bill of another
// format is read by its format's reader, which maps each row onto a CostLine, and each line is
// written as the FOCUS columns a focus.Writer writes, focus.InstanceTypeColumn and the
// reader's extras (x_UsageType, x_ResourceGroupName …). A source imported with --lenient
// (CostImport.Lenient) is read leniently too, and the amounts and dates the import coerced are
// written in canonical form (focus.RowReader.SetLenient). Importing the export, strictly,
// stores the same lines and totals as the sources did.
type Export struct {
	Sources  gpucost.BillSourceStore
	From, To time.Time // rows whose ChargePeriodStart is in [From, To); zero times: every row
}

// Header returns the columns of the export of imps: each source's, in the order first met.
func (x *Export) Header(ctx context.Context, imps []gpucost.CostImport) ([]string, error) {
	var header []string
	seen := map[string]bool{}
	for _, imp := range imps {
		for _, part := range parts(imp) {
			cols, err := x.columns(ctx, part)
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
	}
	return header, nil
}

// parts returns the files an import was read from, each as an import of its own file: the
// import itself, or the parts of a multi-part export (CostImport.Files), whose sources are kept
// under each part's checksum.
func parts(imp gpucost.CostImport) []gpucost.CostImport {
	if len(imp.Files) == 0 {
		return []gpucost.CostImport{imp}
	}
	out := make([]gpucost.CostImport, len(imp.Files))
	for i, f := range imp.Files {
		out[i] = imp
		out[i].Name, out[i].Checksum, out[i].Files = f.Name, f.Checksum, nil
	}
	return out
}

// columns returns the columns an import's rows are written in.
func (x *Export) columns(ctx context.Context, imp gpucost.CostImport) ([]string, error) {
	src, err := x.open(ctx, imp)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	rr, err := src.rows()
	if err != nil {
		return nil, err
	}
	if rr != nil {
		defer rr.Close()
		return rr.Header(), nil
	}
	// The reader's extras (x_UsageType, x_ResourceGroupName …) vary by row: a first read
	// collects their names.
	extra := map[string]bool{}
	err = src.lines(func(l *gpucost.CostLine) error {
		for k := range l.Extra {
			extra[k] = true
		}
		return nil
	})
	return append(focus.LineColumns(), slices.Sorted(maps.Keys(extra))...), err
}

// source is an import's kept file, decompressed: a stream, or a Parquet file in a temporary
// file, since Parquet is read from its end.
type source struct {
	imp  gpucost.CostImport
	r    *bufio.Reader
	rc   io.Closer
	file *os.File
	size int64
}

func (s *source) Close() error {
	if s.file != nil {
		s.file.Close()
		return os.Remove(s.file.Name())
	}
	return s.rc.Close()
}

func (x *Export) open(ctx context.Context, imp gpucost.CostImport) (*source, error) {
	if _, ok := formats[imp.Format]; !ok {
		return nil, gpucost.Errorf(gpucost.EInternal, "export import %d (%s): format %q is not one gpucost reads", imp.ID, imp.Name, imp.Format)
	}
	rc, err := x.Sources.BillSource(ctx, imp.Checksum)
	if err != nil {
		return nil, fmt.Errorf("export import %d (%s): %w", imp.ID, imp.Name, err)
	}
	s := &source{imp: imp, r: bufio.NewReaderSize(rc, 64<<10), rc: rc}
	if head, _ := s.r.Peek(4); !bytes.Equal(head, parquetMagic) {
		return s, nil
	}
	defer rc.Close()
	f, err := os.CreateTemp("", "gpucost-source-*.parquet")
	if err != nil {
		return nil, fmt.Errorf("export import %d (%s): %w", imp.ID, imp.Name, err)
	}
	s.file = f
	if s.size, err = io.Copy(f, s.r); err != nil {
		s.Close()
		return nil, fmt.Errorf("export import %d (%s): %w", imp.ID, imp.Name, err)
	}
	return s, nil
}

// rows returns the reader of a FOCUS source's rows as written, or nil for a source whose rows
// are written as its reader maps them: another format, or a FOCUS Parquet file with a nested
// column other than Tags.
func (s *source) rows() (*focus.RowReader, error) {
	if s.imp.Format != "focus" {
		return nil, nil
	}
	var rr *focus.RowReader
	var err error
	if s.file == nil {
		rr, err = focus.NewRowReader(s.r, s.imp.Name)
	} else if rr, err = focus.NewParquetRowReader(s.file, s.size, s.imp.Name); errors.Is(err, focus.ErrNotRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	rr.SetLenient(s.imp.Lenient)
	return rr, nil
}

// lines reads the source with its format's reader, keeping every extra, as leniently as the
// import read it.
func (s *source) lines(emit emitFunc) error {
	rd := formats[s.imp.Format]
	o := Options{Lenient: s.imp.Lenient}
	if s.file == nil {
		_, err := rd.read(s.r, s.imp.Name, o, emit)
		return err
	}
	if rd.parquet == nil {
		return gpucost.Errorf(gpucost.EInternal, "export import %d (%s): a Parquet file of format %s", s.imp.ID, s.imp.Name, s.imp.Format)
	}
	_, err := rd.parquet(s.file, s.size, s.imp.Name, o, emit)
	return err
}

// Write writes the rows of imp's source in the period to w, whose columns are header, adds
// their BilledCost and EffectiveCost to t and returns how many it wrote.
func (x *Export) Write(ctx context.Context, imp gpucost.CostImport, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
	n := 0
	for _, part := range parts(imp) {
		m, err := x.write(ctx, part, header, w, t)
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// write writes the rows of one file's source.
func (x *Export) write(ctx context.Context, imp gpucost.CostImport, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
	src, err := x.open(ctx, imp)
	if err != nil {
		return 0, err
	}
	defer src.Close()
	rr, err := src.rows()
	if err != nil {
		return 0, err
	}
	if rr != nil {
		defer rr.Close()
		return x.writeRows(rr, header, w, t)
	}
	return x.writeLines(src, header, w, t)
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

// in reports whether a row charged from t is in the period.
func (x *Export) in(t time.Time) bool {
	return (x.From.IsZero() || !t.Before(x.From)) && (x.To.IsZero() || t.Before(x.To))
}

// writeRows writes a FOCUS source's rows as they are.
func (x *Export) writeRows(rr *focus.RowReader, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
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
func (x *Export) writeLines(src *source, header []string, w *focus.RowWriter, t *gpucost.CostTotals) (int, error) {
	pos := positions(header, focus.LineColumns())
	at := make(map[string]int, len(header))
	for i, c := range header {
		at[c] = i
	}
	out := make([][]byte, len(header))
	var vals [][]byte
	n := 0
	err := src.lines(func(l *gpucost.CostLine) error {
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
			if i, ok := at[k]; ok && !focus.IsSpecColumn(k) && k != focus.InstanceTypeColumn {
				out[i] = []byte(v)
			}
		}
		n++
		return w.Write(out)
	})
	return n, err
}
