package billimport

import (
	"bufio"
	"bytes"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/klauspost/compress/gzip"
	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/awscur"
	"github.com/gpucost/gpucost/billing/azure"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/billing/gcp"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Stats is what a reader says about a file, whatever the format: the stats and totals every
// reader reports (each reader's own Stats embeds it).
type Stats = totals.Stats

// Sums are a reader's exact sums over one currency's lines.
type Sums = totals.Sums

type emitFunc = func(*gpucost.CostLine) error

// format reads one bill format: from a stream (CSV, gzip CSV, JSON lines) and, where the format
// has it, from Parquet. o.Keep names the columns outside the format to keep as extras, and
// o.Lenient asks for lenient values; only FOCUS does either.
type format struct {
	read    func(r io.Reader, name string, o Options, emit emitFunc) (Stats, error)
	parquet func(r io.ReaderAt, size int64, name string, o Options, emit emitFunc) (Stats, error)
	// header reports whether the start of a file (its first 64 KiB, through gzip) or its Parquet
	// column names are this format's.
	header func(first []byte, columns []string) bool
	// lenient says o.Lenient changes what read reads: the import is then recorded as lenient
	// (CostImport.Lenient), and export focus --all reads its source the same way.
	lenient bool
	// split says read may read a part of a CSV file — its header followed by some of its rows —
	// as a file of its own, each row read the same whatever rows come before it: large files
	// are then read in parts side by side (split.go).
	split bool
}

// formats is the reader registry: every format gpucost imports, by the name --format takes.
var formats = map[string]format{
	"focus": {
		read: func(r io.Reader, name string, o Options, emit emitFunc) (Stats, error) {
			st, err := focus.ReadWith(r, name, focus.Options{Extra: keeping(o.Keep), Lenient: o.Lenient}, emit)
			return st.Stats, err
		},
		parquet: func(r io.ReaderAt, size int64, name string, o Options, emit emitFunc) (Stats, error) {
			st, err := focus.ReadParquetWith(r, size, name, focus.Options{Extra: keeping(o.Keep)}, emit)
			return st.Stats, err
		},
		header: func(first []byte, columns []string) bool {
			return bytes.Contains(first, []byte("BilledCost")) || slices.Contains(columns, "BilledCost")
		},
		lenient: true,
		split:   true,
	},
	"aws-cur": {
		read: func(r io.Reader, name string, _ Options, emit emitFunc) (Stats, error) {
			return awscur.Read(r, name, emit)
		},
		parquet: func(r io.ReaderAt, size int64, name string, _ Options, emit emitFunc) (Stats, error) {
			return awscur.ReadParquet(r, size, name, emit)
		},
		header: func(first []byte, columns []string) bool {
			return bytes.Contains(first, []byte("line_item_")) || bytes.Contains(first, []byte("lineItem/")) ||
				slices.ContainsFunc(columns, func(c string) bool { return strings.HasPrefix(c, "line_item_") })
		},
		split: true,
	},
	"azure": {
		read: func(r io.Reader, name string, _ Options, emit emitFunc) (Stats, error) {
			st, err := azure.Read(r, name, emit)
			return st.Stats, err
		},
		header: func(first []byte, _ []string) bool { return azure.Detect(first) },
	},
	"gcp": {
		read: func(r io.Reader, name string, _ Options, emit emitFunc) (Stats, error) {
			st, err := gcp.Read(r, name, emit)
			return st.Stats, err
		},
		header: func(first []byte, _ []string) bool { return gcp.Detect(first) },
	},
}

// detectOrder is the order formats are tried in: FOCUS first, since providers' FOCUS exports
// keep some of their own columns as x_ extras.
var detectOrder = []string{"focus", "aws-cur", "gcp", "azure"}

// Formats returns the names of the formats gpucost imports, sorted: what --format and the
// upload's format parameter take besides auto.
func Formats() []string { return slices.Sorted(maps.Keys(formats)) }

// IsFormat reports whether name is a format of Formats or auto.
func IsFormat(name string) bool {
	_, ok := formats[name]
	return ok || name == "auto"
}

// keeping chooses the columns named in keep.
func keeping(keep []string) func(string) bool {
	return func(column string) bool { return slices.Contains(keep, column) }
}

var parquetMagic = []byte("PAR1")

// Detect reads the start of the file at path (through gzip) or its Parquet schema and names the
// format whose columns it has; name names the file in messages.
func Detect(path, name string) (string, error) {
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
			return "", gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
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
	return detect(name, first, columns)
}

// detect names the format whose columns first (a file's start) or columns (a Parquet schema)
// hold.
func detect(name string, first []byte, columns []string) (string, error) {
	for _, f := range detectOrder {
		if formats[f].header(first, columns) {
			return f, nil
		}
	}
	if isManifest(first) {
		return "", gpucost.Errorf(gpucost.EInvalid, "import %s: this is an export's manifest, which names the bill's data files; import the manifest where its data files lie beside it (the export folder as delivered), or the data files themselves", name)
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "import %s: the columns match no known bill format; name it with --format (%s)", name, strings.Join(Formats(), ", "))
}
