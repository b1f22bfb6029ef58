package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/awscur"
	"github.com/gpucost/gpucost/billing/azure"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/billing/gcp"
	"github.com/parquet-go/parquet-go"
)

// readStats is what a bill reader says about a file, whatever the format.
type readStats struct {
	Version string              // the format's version or dialect
	Totals  []gpucost.CostTotal // the source rows' sums per currency, by currency
	Unknown []string            // columns outside the format
	Kept    bool                // the Unknown columns' values are kept as extras (FOCUS x_ columns)
}

type emitFunc = func(*gpucost.CostLine) error

// billReader reads one bill format: from a stream (CSV, gzip CSV, JSON lines) and, where the
// format has it, from Parquet. keep names the columns outside the format to keep as extras;
// only FOCUS keeps any.
type billReader struct {
	read    func(r io.Reader, name string, keep []string, emit emitFunc) (readStats, error)
	parquet func(r io.ReaderAt, size int64, name string, keep []string, emit emitFunc) (readStats, error)
	// header reports whether the start of a file (its first 64 KiB, through gzip) or its Parquet
	// column names are this format's.
	header func(first []byte, columns []string) bool
}

var billReaders = map[string]billReader{
	"focus": {
		read: func(r io.Reader, name string, keep []string, emit emitFunc) (readStats, error) {
			st, err := focus.ReadWith(r, name, focus.Options{Extra: keeping(keep)}, emit)
			return focusStats(st), err
		},
		parquet: func(r io.ReaderAt, size int64, name string, keep []string, emit emitFunc) (readStats, error) {
			st, err := focus.ReadParquetWith(r, size, name, focus.Options{Extra: keeping(keep)}, emit)
			return focusStats(st), err
		},
		header: func(first []byte, columns []string) bool {
			return bytes.Contains(first, []byte("BilledCost")) || slices.Contains(columns, "BilledCost")
		},
	},
	"aws-cur": {
		read: func(r io.Reader, name string, _ []string, emit emitFunc) (readStats, error) {
			st, err := awscur.Read(r, name, emit)
			return curStats(st), err
		},
		parquet: func(r io.ReaderAt, size int64, name string, _ []string, emit emitFunc) (readStats, error) {
			st, err := awscur.ReadParquet(r, size, name, emit)
			return curStats(st), err
		},
		header: func(first []byte, columns []string) bool {
			return bytes.Contains(first, []byte("line_item_")) || bytes.Contains(first, []byte("lineItem/")) ||
				slices.ContainsFunc(columns, func(c string) bool { return strings.HasPrefix(c, "line_item_") })
		},
	},
	"azure": {
		read: func(r io.Reader, name string, _ []string, emit emitFunc) (readStats, error) {
			st, err := azure.Read(r, name, emit)
			return readStats{Version: st.Dialect, Unknown: st.Unknown, Totals: sourceTotals(st.Totals,
				func(t *azure.Totals) (gpucost.Money, gpucost.Money) { return t.BilledCost, t.EffectiveCost })}, err
		},
		header: func(first []byte, _ []string) bool { return azure.Detect(first) },
	},
	"gcp": {
		read: func(r io.Reader, name string, _ []string, emit emitFunc) (readStats, error) {
			st, err := gcp.Read(r, name, emit)
			return readStats{Version: st.Dialect + ", " + st.Format, Unknown: st.Unknown, Totals: sourceTotals(st.Totals,
				func(t *gcp.Totals) (gpucost.Money, gpucost.Money) { return t.Billed, t.Effective })}, err
		},
		header: func(first []byte, _ []string) bool { return gcp.Detect(first) },
	},
}

// detectOrder is the order formats are tried in: FOCUS first, since providers' FOCUS exports
// keep some of their own columns as x_ extras.
var detectOrder = []string{"focus", "aws-cur", "gcp", "azure"}

func billFormats() []string { return slices.Sorted(maps.Keys(billReaders)) }

// focusStats reports the columns outside the spec not read, or else those kept.
func focusStats(st focus.Stats) readStats {
	rs := readStats{Version: st.Version, Unknown: st.DroppedColumns, Totals: sourceTotals(st.Totals,
		func(t focus.Totals) (gpucost.Money, gpucost.Money) { return t.BilledCost, t.EffectiveCost })}
	if len(rs.Unknown) == 0 {
		rs.Unknown, rs.Kept = st.ExtraColumns, true
	}
	return rs
}

// keeping chooses the columns named in keep.
func keeping(keep []string) func(string) bool {
	return func(column string) bool { return slices.Contains(keep, column) }
}

func curStats(st awscur.Stats) readStats {
	return readStats{Version: st.Dialect, Unknown: st.UnknownColumns, Totals: sourceTotals(st.Totals,
		func(t awscur.Totals) (gpucost.Money, gpucost.Money) { return t.Billed, t.Effective })}
}

// sourceTotals turns a reader's sums of the source rows, by currency, into sorted totals.
func sourceTotals[T any](m map[string]T, amounts func(T) (billed, effective gpucost.Money)) []gpucost.CostTotal {
	var ts gpucost.CostTotals
	for _, t := range m {
		ts.Add(amounts(t))
	}
	return ts.Sorted()
}

var parquetMagic = []byte("PAR1")

// detectBillFormat reads the start of a file (through gzip) or its Parquet schema and names the
// format whose columns it has.
func detectBillFormat(name string) (string, error) { return detectBillFormatOf(name, name) }

// detectBillFormatOf is detectBillFormat of the file at path, called name in messages.
func detectBillFormatOf(path, name string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	defer f.Close()
	var first []byte
	var columns []string
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(4)
	switch {
	case bytes.Equal(head, parquetMagic):
		info, err := f.Stat()
		if err != nil {
			return "", err
		}
		pf, err := parquet.OpenFile(f, info.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "import %s: not a readable Parquet file: %v", name, err)
		}
		for _, field := range pf.Schema().Fields() {
			columns = append(columns, field.Name())
		}
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		zr, err := gzip.NewReader(br)
		if err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "import %s: damaged gzip header: %v", name, err)
		}
		first, _ = io.ReadAll(io.LimitReader(zr, 64<<10))
	default:
		first, _ = br.Peek(64 << 10)
	}
	for _, format := range detectOrder {
		if rd, ok := billReaders[format]; ok && rd.header(first, columns) {
			return format, nil
		}
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "import %s: the columns match no known bill format; name it with --format (%s)", name, strings.Join(billFormats(), ", "))
}

// readBill streams the file at path, called name in messages, through its format's reader into
// emit, with a progress bar by bytes.
func (e *env) readBill(path, name, format string, keep []string, add func(*gpucost.CostLine)) (readStats, error) {
	rd := billReaders[format]
	f, info, bar, err := e.openInput(path)
	if err != nil {
		return readStats{}, err
	}
	defer f.Close()
	defer bar.Finish()
	emit := func(l *gpucost.CostLine) error { add(l); return nil }
	head := make([]byte, 4)
	n, _ := f.ReadAt(head, 0)
	if bytes.Equal(head[:n], parquetMagic) {
		if rd.parquet == nil {
			return readStats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %s bills do not come as Parquet; is --format right?", name, format)
		}
		return rd.parquet(progressReaderAt{f, bar}, info.Size(), name, keep, emit)
	}
	return rd.read(io.TeeReader(f, bar), name, keep, emit)
}

// progressReaderAt counts the bytes a Parquet reader reads on a progress bar.
type progressReaderAt struct {
	r   io.ReaderAt
	bar io.Writer
}

func (p progressReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	p.bar.Write(b[:n])
	return n, err
}
