package focus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/gpucost/gpucost"
)

// ErrNotRows is the error of NewParquetRowReader for a file it cannot give as text rows: a column
// that is a nested group other than a Tags MAP of strings.
var ErrNotRows = errors.New("focus: a Parquet column is a nested group")

// NewParquetRowReader reads the rows of a FOCUS Parquet file as text, every column: strings as
// they are, DECIMAL amounts as exact decimals (scale digits), timestamps, INT96 and dates as
// RFC 3339 in UTC, numbers as Go writes them, a Tags MAP as a JSON object; nulls as nil. The
// columns are those of the file's schema, in its order, spec names spelled as the spec does. A
// file with another nested column is ErrNotRows, wrapped.
func NewParquetRowReader(r io.ReaderAt, size int64, name string) (rr *RowReader, err error) {
	defer func() { // parquet-go panics on some malformed files
		if p := recover(); p != nil {
			rr, err = nil, gpucost.Errorf(gpucost.EInvalid, "%s: not a readable Parquet file: %v", name, p)
		}
	}()
	pf, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "%s: not a readable Parquet file: %v", name, err)
	}
	pq := &pqRows{name: name, groups: pf.RowGroups(), buf: make([]parquet.Row, 256)}
	var header []string
	for i, col := range pf.Root().Columns() {
		t, err := textOf(col, i)
		if err != nil {
			return nil, fmt.Errorf("%s: column %s: %w", name, col.Name(), err)
		}
		pq.cols = append(pq.cols, t)
		header = append(header, col.Name())
	}
	pq.leaf = map[int]*pqText{}
	for i := range pq.cols {
		c := &pq.cols[i]
		pq.leaf[c.leaf] = c
		if c.isMap {
			pq.leaf[c.valLeaf] = c
		}
	}
	return newRowReader(name, header, pq)
}

// pqText says how the values of one top-level column become text.
type pqText struct {
	index         int // in the header
	leaf, valLeaf int // the leaf column (a MAP's key), and a MAP's value
	isMap         bool
	entryLevel    int // the definition level of a MAP entry that is there (its key's maximum)
	kind          parquet.Kind
	scale         int   // DECIMAL digits after the point; -1 when not a decimal
	unit          int64 // TIMESTAMP nanoseconds per unit; 0 when not a timestamp
	date          bool
}

func textOf(col *parquet.Column, i int) (pqText, error) {
	t := pqText{index: i, scale: -1}
	if !col.Leaf() {
		kv := col.Columns()
		if len(kv) != 1 || len(kv[0].Columns()) != 2 || !kv[0].Columns()[0].Leaf() || !kv[0].Columns()[1].Leaf() {
			return t, ErrNotRows
		}
		t.isMap, t.leaf, t.valLeaf = true, kv[0].Columns()[0].Index(), kv[0].Columns()[1].Index()
		t.entryLevel = kv[0].Columns()[0].MaxDefinitionLevel()
		return t, nil
	}
	if col.Repeated() {
		return t, ErrNotRows
	}
	t.leaf, t.kind = col.Index(), col.Type().Kind()
	if lt := col.Type().LogicalType(); lt != nil {
		switch v := lt.Value.(type) {
		case *format.DecimalType:
			t.scale = int(v.Scale)
		case *format.TimestampType:
			t.unit = int64(time.Nanosecond)
			if v.Unit.Value != nil {
				t.unit = int64(v.Unit.Value.Duration())
			}
		case *format.DateType:
			t.date = true
		}
	}
	return t, nil
}

// text appends the text of the non-null leaf value v of the column.
func (t *pqText) text(dst []byte, v parquet.Value) []byte {
	switch v.Kind() {
	case parquet.Boolean:
		return strconv.AppendBool(dst, v.Boolean())
	case parquet.Int32, parquet.Int64:
		n := v.Int64()
		switch {
		case t.scale >= 0:
			return append(dst, decimalText(big.NewInt(n), t.scale)...)
		case t.unit > 0:
			return time.Unix(0, n*t.unit).UTC().AppendFormat(dst, time.RFC3339Nano)
		case t.date:
			return time.Unix(n*86400, 0).UTC().AppendFormat(dst, time.DateOnly)
		}
		return strconv.AppendInt(dst, n, 10)
	case parquet.Int96:
		x := v.Int96()
		nsec := int64(uint64(x[1])<<32 | uint64(x[0]))
		return time.Unix((int64(x[2])-2440588)*86400, nsec).UTC().AppendFormat(dst, time.RFC3339Nano)
	case parquet.Float, parquet.Double:
		bits := 64
		if v.Kind() == parquet.Float {
			bits = 32
		}
		return strconv.AppendFloat(dst, v.Double(), 'f', -1, bits)
	}
	if t.scale >= 0 {
		return append(dst, decimalText(twosComplement(v.ByteArray()), t.scale)...)
	}
	return append(dst, v.ByteArray()...)
}

// pqRows walks the rows of a Parquet file, a row group at a time.
type pqRows struct {
	name   string
	groups []parquet.RowGroup
	rows   parquet.Rows
	buf    []parquet.Row
	n, i   int
	eof    bool // rows is done once the batch in buf is
	row    int
	cols   []pqText
	leaf   map[int]*pqText
	err    error
}

// next fills vals with the next row's text; it returns false at the end or on an error.
func (p *pqRows) next(vals [][]byte) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			p.err, ok = gpucost.Errorf(gpucost.EInvalid, "%s: row %d: not a readable Parquet file: %v", p.name, p.row+1, r), false
		}
	}()
	for p.i == p.n {
		if !p.fill() {
			return false
		}
	}
	row := p.buf[p.i]
	p.i++
	p.row++
	clear(vals)
	// A MAP's values come in column order: its keys, then its values, paired by position.
	var keys, values map[int][]string
	for _, v := range row {
		c := p.leaf[v.Column()]
		if c == nil {
			continue
		}
		if v.IsNull() {
			if c.isMap && values != nil && v.Column() == c.valLeaf && v.DefinitionLevel() >= c.entryLevel {
				values[c.index] = append(values[c.index], "") // a key with a null value
			}
			continue
		}
		switch {
		case !c.isMap:
			vals[c.index] = c.text(nil, v)
		case v.Column() == c.leaf:
			if keys == nil {
				keys, values = map[int][]string{}, map[int][]string{}
			}
			keys[c.index] = append(keys[c.index], string(v.ByteArray()))
		default:
			values[c.index] = append(values[c.index], string(v.ByteArray()))
		}
	}
	for i, ks := range keys {
		m := make(map[string]string, len(ks))
		for j, k := range ks {
			if j < len(values[i]) {
				m[k] = values[i][j]
			}
		}
		vals[i], _ = json.Marshal(m) // maps of strings always marshal
	}
	return true
}

// fill reads the next batch of rows.
func (p *pqRows) fill() bool {
	for {
		if p.eof {
			p.rows.Close()
			p.rows, p.eof = nil, false
		}
		if p.rows == nil {
			if len(p.groups) == 0 {
				return false
			}
			p.rows, p.groups = p.groups[0].Rows(), p.groups[1:]
		}
		n, err := p.rows.ReadRows(p.buf)
		p.n, p.i = n, 0
		if err == io.EOF || (err == nil && n == 0) {
			p.eof = true
		} else if err != nil {
			p.err = gpucost.Errorf(gpucost.EInvalid, "%s: row %d: %v", p.name, p.row+1, err)
			return false
		}
		if n > 0 {
			return true
		}
	}
}
