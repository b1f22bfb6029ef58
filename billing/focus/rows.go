package focus

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"time"
	"unsafe"

	"github.com/klauspost/compress/gzip"
	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// InstanceTypeColumn is the column gpucost writes CostLine.InstanceType in, which FOCUS has no
// column for; the readers read it back into InstanceType, so a bill of another format
// exported as FOCUS imports as the same lines.
const InstanceTypeColumn = "x_InstanceType"

// RowReader reads the rows of a FOCUS file as they are written: every column, specified or
// not, as text, so that an export gives back what the file held (gpucost export focus --all).
// Read, by contrast, maps rows onto CostLine. NewRowReader reads CSV, NewParquetRowReader
// Parquet.
type RowReader struct {
	name   string
	s      *csvscan.Scanner // a CSV file's rows, or
	pq     *pqRows          // a Parquet file's
	zr     *gzip.Reader
	header []string
	start  int    // the ChargePeriodStart column
	amount [3]int // the BilledCost, EffectiveCost and BillingCurrency columns
	vals   [][]byte

	lenient bool       // SetLenient
	typed   []typedCol // the amount and date columns Read reads, which SetLenient rewrites
	scratch [][]byte   // a coerced value of each column, valid until the next row
}

// NewRowReader reads the header of the FOCUS CSV file r, gzip-compressed or not; name names it
// in errors.
func NewRowReader(r io.Reader, name string) (*RowReader, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	var zr *gzip.Reader
	var in io.Reader = br
	if head, _ := br.Peek(4); bytes.HasPrefix(head, []byte{0x1f, 0x8b}) {
		var err error
		if zr, err = gzip.NewReader(br); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: not a readable gzip file: %w", name, err)
		}
		in = zr
	} else if bytes.Equal(head, parquetMagic) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s is a Parquet file; read it with NewParquetRowReader", name)
	}
	s := csvscan.New(in, 64<<10)
	if !s.Next() {
		return nil, cmpErr(s.Err(), gpucost.Errorf(gpucost.EInvalid, "%s is empty: a FOCUS CSV file starts with a header", name))
	}
	var header []string
	for i := range s.Count() {
		f := bytes.TrimSpace(s.Field(i))
		if i == 0 {
			f = bytes.TrimPrefix(f, []byte("\xef\xbb\xbf"))
		}
		header = append(header, string(f))
	}
	rr, err := newRowReader(name, header, nil)
	if err != nil {
		return nil, err
	}
	rr.s, rr.zr = s, zr
	return rr, nil
}

// newRowReader is the reader of rows of pq (nil for CSV) under header; spec column names are
// spelled as the spec spells them, whatever their case in the file.
func newRowReader(name string, header []string, pq *pqRows) (*RowReader, error) {
	rr := &RowReader{name: name, pq: pq, start: -1, amount: [3]int{-1, -1, -1}}
	for i, col := range header {
		if c := lookupSpec(col); c != nil {
			col = c.name
		}
		switch col {
		case "ChargePeriodStart":
			rr.start = i
		case "BilledCost":
			rr.amount[0] = i
		case "EffectiveCost":
			rr.amount[1] = i
		case "BillingCurrency":
			rr.amount[2] = i
		}
		if c := lookupSpec(col); c != nil && (kindOf(c.field) == kMoney || kindOf(c.field) == kTime) {
			rr.typed = append(rr.typed, typedCol{i, kindOf(c.field)})
		}
		rr.header = append(rr.header, col)
	}
	if rr.start < 0 || min(rr.amount[0], rr.amount[1], rr.amount[2]) < 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s: the header lacks ChargePeriodStart, BilledCost, EffectiveCost or BillingCurrency; is it a FOCUS file?", name)
	}
	rr.vals = make([][]byte, len(rr.header))
	rr.scratch = make([][]byte, len(rr.header))
	return rr, nil
}

func cmpErr(err, def error) error {
	if err != nil {
		return err
	}
	return def
}

// Header returns the column names, in file order.
func (r *RowReader) Header() []string { return r.header }

// Next reads the next row; it returns false at the end of the file or on an error (Err).
func (r *RowReader) Next() bool {
	if r.pq != nil {
		if !r.pq.next(r.vals) {
			return false
		}
		r.coerce()
		return true
	}
	if !r.s.Next() {
		return false
	}
	for i := range r.vals {
		r.vals[i] = nil
		if i < r.s.Count() {
			r.vals[i] = r.s.Field(i)
		}
	}
	r.coerce()
	return true
}

// Values returns the values of the row read, one per column of Header, unescaped (and, read
// leniently, the amounts and dates coerced: SetLenient); they are valid until the next call to
// Next.
func (r *RowReader) Values() [][]byte { return r.vals }

// ChargePeriodStart returns the row's ChargePeriodStart.
func (r *RowReader) ChargePeriodStart() (time.Time, error) {
	v := trimSpace(r.vals[r.start])
	t, ok := parseTime(v)
	if !ok {
		return time.Time{}, r.cellError(r.start, v, hint(kTime), nil)
	}
	return t, nil
}

// Costs returns the row's BilledCost and EffectiveCost, in its BillingCurrency.
func (r *RowReader) Costs() (billed, effective gpucost.Money, err error) {
	cur := string(trimSpace(r.vals[r.amount[2]]))
	for i, m := range []*gpucost.Money{&billed, &effective} {
		v := trimSpace(r.vals[r.amount[i]])
		n, err := parseNanos(v)
		if err != nil {
			return billed, effective, r.cellError(r.amount[i], v, hint(kMoney), err)
		}
		*m = gpucost.Money{Nanos: n, Currency: cur}
	}
	return billed, effective, nil
}

// cellError is the EInvalid of the value v of column i of the row read, which is not want:
// it names the file, line (or Parquet row), column number and name, and what to do.
func (r *RowReader) cellError(i int, v []byte, want string, cause error) error {
	fix := "fix the value in the file and import it again with --replace"
	if !r.lenient {
		if _, err := lenientValue(nil, v, kindOfColumn(r.header[i])); err == nil {
			fix += ", or with --lenient, which reads it"
		}
	}
	return readerr.Cell(fmt.Sprintf("%s:%d", r.name, r.Line()), readerr.Column(i+1, r.header[i]), string(v), want, cause, fix)
}

// Line returns the line of the CSV file the row read starts on, or the Parquet row (from 1).
func (r *RowReader) Line() int {
	if r.pq != nil {
		return r.pq.row
	}
	return r.s.Line()
}

// Err returns the error that stopped Next, or nil at the end of the file.
func (r *RowReader) Err() error {
	if r.pq != nil {
		return r.pq.err
	}
	if err := r.s.Err(); err != nil {
		return csvError(r.name, err)
	}
	return nil
}

// Close releases the gzip reader, if any; it does not close the file.
func (r *RowReader) Close() error {
	if r.zr != nil {
		return r.zr.Close()
	}
	return nil
}

// RowWriter writes rows of text values under a header of column names, as CSV (gzip-compressed
// with CSVGzip) or as Parquet, where every column is an optional dictionary-encoded string
// holding the text as written (null where the text is null: empty or NULL), so that nothing a
// value says is rounded; the readers read amounts, times and quantities from such text.
type RowWriter struct {
	csv   *csv.Writer
	gz    *gzip.Writer
	pq    *parquet.Writer
	index []int
	rec   []string
	rows  []parquet.Row
	n     int
}

// NewRowWriter writes header to w and returns the writer of its rows. Close flushes what is
// buffered; it does not close w.
func NewRowWriter(w io.Writer, format Format, header []string) (*RowWriter, error) {
	rw := &RowWriter{rec: make([]string, len(header))}
	if format == Parquet {
		group := parquet.Group{}
		for _, name := range header {
			group[name] = parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary))
		}
		schema := parquet.NewSchema("focus", group)
		for _, name := range header {
			leaf, ok := schema.Lookup(name)
			if !ok {
				return nil, fmt.Errorf("focus: column %s missing from the Parquet schema", name)
			}
			rw.index = append(rw.index, leaf.ColumnIndex)
		}
		rw.pq = parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd), parquet.KeyValueMetadata("FOCUSVersion", V1_2))
		return rw, nil
	}
	if format == CSVGzip {
		rw.gz = gzip.NewWriter(w)
		w = rw.gz
	}
	rw.csv = csv.NewWriter(w)
	if err := rw.csv.Write(header); err != nil {
		return nil, fmt.Errorf("write FOCUS header: %w", err)
	}
	return rw, nil
}

// Write writes one row: a value per column of the header, nil for null.
func (w *RowWriter) Write(vals [][]byte) error {
	w.n++
	if w.pq != nil {
		row := make(parquet.Row, len(vals))
		for i, v := range vals {
			pv, def := parquet.Value{}, 0
			if !isNull(v) {
				pv, def = parquet.ByteArrayValue(bytes.Clone(v)), 1
			}
			row[w.index[i]] = pv.Level(0, def, w.index[i])
		}
		w.rows = append(w.rows, row)
		if len(w.rows) >= parquetBatch {
			return w.flush()
		}
		return nil
	}
	for i, v := range vals {
		w.rec[i] = unsafe.String(unsafe.SliceData(v), len(v)) // written before Write returns
	}
	if err := w.csv.Write(w.rec); err != nil {
		return fmt.Errorf("write FOCUS row %d: %w", w.n, err)
	}
	return nil
}

func (w *RowWriter) flush() error {
	if len(w.rows) == 0 {
		return nil
	}
	if _, err := w.pq.WriteRows(w.rows); err != nil {
		return fmt.Errorf("write FOCUS Parquet: %w", err)
	}
	w.rows = w.rows[:0]
	return nil
}

// Close flushes the file.
func (w *RowWriter) Close() error {
	if w.pq != nil {
		if err := w.flush(); err != nil {
			return err
		}
		if err := w.pq.Close(); err != nil {
			return fmt.Errorf("write FOCUS Parquet: %w", err)
		}
		return nil
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		return fmt.Errorf("write FOCUS file: %w", err)
	}
	if w.gz != nil {
		return w.gz.Close()
	}
	return nil
}

// LineColumns are the columns LineValues gives: those a Writer writes, and InstanceTypeColumn.
func LineColumns() []string {
	out := make([]string, 0, len(writtenColumns)+1)
	for _, c := range writtenColumns {
		out = append(out, c.name)
	}
	return append(out, InstanceTypeColumn)
}

// LineValues appends to dst the text of each of LineColumns for l, as a Writer writes it
// (nil for null), and returns it. It is how a bill of another format is exported row by row:
// its reader maps each row onto a CostLine, and this writes the line as FOCUS.
func LineValues(dst [][]byte, l *gpucost.CostLine) [][]byte {
	var w Writer
	for _, c := range writtenColumns {
		dst = append(dst, textBytes(w.text(l, c)))
	}
	return append(dst, textBytes(l.InstanceType))
}

func textBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}
