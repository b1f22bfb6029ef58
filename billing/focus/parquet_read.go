package focus

import (
	"errors"
	"fmt"
	"io"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/pqcheck"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// ReadParquet reads a FOCUS 1.0, 1.1 or 1.2 Parquet file of the given size from r, as Read
// does a CSV file. Only the columns a CostLine keeps are read. Providers type columns
// differently and all of these are read: amounts as DECIMAL (INT32, INT64, BYTE_ARRAY or
// FIXED_LEN_BYTE_ARRAY), DOUBLE, FLOAT, integers or decimal strings; dates as TIMESTAMP (milli-,
// micro- or nanoseconds), INT96, DATE or ISO 8601 strings; Tags as a JSON string or a MAP of
// strings. Any column may be optional; nulls mean what empty values mean in CSV. Errors name the
// file, the 1-based row and the column; CostLine.Line is the row.
func ReadParquet(r io.ReaderAt, size int64, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	return ReadParquetWith(r, size, name, Options{}, emit)
}

// ReadParquetWith is ReadParquet with options.
func ReadParquetWith(r io.ReaderAt, size int64, name string, opts Options, emit func(*gpucost.CostLine) error) (st Stats, err error) {
	emitting := false
	defer func() { // parquet-go panics on some malformed files; emit's panics are not ours
		if p := recover(); p != nil {
			if emitting {
				panic(p)
			}
			err = gpucost.Errorf(gpucost.EInvalid, "%s is a corrupt Parquet file (%v); export it again", name, p)
		}
	}()
	emit0 := emit
	emit = func(l *gpucost.CostLine) error {
		emitting = true
		err := emit0(l)
		emitting = false
		return err
	}
	if err := pqcheck.Footer(r, size); err != nil {
		if tl := (*limits.TooLong)(nil); errors.As(err, &tl) {
			return Stats{}, limits.Invalid(name, tl)
		}
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "%s is not a readable Parquet file, truncated or corrupt (%w); copy or export it again", name, err)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "%s is not a readable Parquet file, truncated or corrupt (%w); copy or export it again", name, err)
	}
	top := f.Root().Columns()
	names := make([]string, len(top))
	for i, c := range top {
		names[i] = c.Name()
	}
	lay, err := newLayout(name, names)
	if err != nil {
		return Stats{}, err
	}
	lay.keepExtra(opts.Extra)
	cols, err := planColumns(name, top, lay)
	if err != nil {
		return Stats{}, err
	}
	b := newBuilder(name, lay, "parquet")
	row := 0
	bt := new(batch)
	meta := f.Metadata()
	for i, rg := range f.RowGroups() {
		if err := checkPages(r, size, name, meta, i, row, cols); err != nil {
			return b.result(), err
		}
		if err := b.readRowGroup(rg, cols, &row, bt, emit); err != nil {
			return b.result(), err
		}
	}
	return b.result(), nil
}

// checkPages checks the page headers of the columns read in row group i, which starts after row
// rows, before parquet-go reads them (see billing/internal/pqcheck).
func checkPages(r io.ReaderAt, size int64, name string, meta *format.FileMetaData, i, rows int, cols []*pqColumn) error {
	if i >= len(meta.RowGroups) {
		return gpucost.Errorf(gpucost.EInvalid, "%s: row group %d has no metadata; the file is corrupt, export it again", name, i)
	}
	chunks := meta.RowGroups[i].Columns
	for _, c := range cols {
		for _, cur := range []*cursor{&c.val, &c.key} {
			if cur.col == nil || (cur == &c.key && !c.mapKV) {
				continue
			}
			k := cur.col.Index()
			if k >= len(chunks) {
				return gpucost.Errorf(gpucost.EInvalid, "%s: row group %d lacks column %s; the file is corrupt, export it again", name, i, c.name)
			}
			err := pqcheck.Pages(r, size, &chunks[k].MetaData)
			var tl *limits.TooLong
			if errors.As(err, &tl) {
				tl.Line, tl.Row, tl.Column, tl.Name = rows+tl.Line+1, true, c.index+1, c.name
				return limits.Invalid(name, tl)
			}
			if err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "%s: row group %d column %s: %v; the file is truncated or corrupt, export it again", name, i, c.name, err)
			}
		}
	}
	return nil
}

// pqBatch is how many rows are assembled at a time: each column fills its field for all of them
// in one tight loop, then the rows are emitted in order.
const pqBatch = 256

// batch holds the rows being assembled.
type batch struct {
	lines [pqBatch]gpucost.CostLine
	set   [pqBatch]uint64
	extra [pqBatch]map[string]string
}

// readRowGroup reads the rows of one row group; row counts the rows read so far.
func (b *builder) readRowGroup(rg parquet.RowGroup, cols []*pqColumn, row *int, bt *batch, emit func(*gpucost.CostLine) error) error {
	chunks := rg.ColumnChunks()
	for _, c := range cols {
		c.open(chunks)
	}
	defer func() {
		for _, c := range cols {
			c.close()
		}
	}()
	for left := rg.NumRows(); left > 0; {
		k := int(min(left, pqBatch))
		left -= int64(k)
		for i := range k {
			l := &bt.lines[i]
			l.Line, l.Tags, l.Extra, bt.set[i] = *row+i+1, nil, nil, 0
			if bt.extra[i] != nil {
				clear(bt.extra[i])
			}
		}
		for _, c := range cols {
			if i, err := c.fill(b, bt, k); err != nil {
				return b.pqError(*row+i+1, c, err)
			}
		}
		for i := range k {
			*row++
			l := &bt.lines[i]
			missing, err := b.finishLine(l, bt.set[i])
			if err != nil {
				return err
			}
			if missing != 0 {
				return gpucost.Errorf(gpucost.EInvalid, "%s: row %d: %s is null; FOCUS requires it in every row, so export the file again",
					b.file, *row, columnOf(cols, missing))
			}
			if err := emit(l); err != nil {
				return fmt.Errorf("%s: row %d: %w", b.file, *row, err)
			}
		}
	}
	return nil
}

func (b *builder) pqError(row int, c *pqColumn, err error) error {
	var tl *limits.TooLong
	if errors.As(err, &tl) { // the Line-th value of the page that starts at row: its row if none is null
		tl.Line, tl.Row, tl.Column, tl.Name = row+tl.Line, true, c.index+1, c.name
		return limits.Invalid(b.file, tl)
	}
	var bad *badValue
	if errors.As(err, &bad) {
		return gpucost.Errorf(gpucost.EInvalid, "%s: row %d: %s: %s is not %s; fix the value and export the file again",
			b.file, row, readerr.Column(c.index+1, c.name), bad.value, hint(c.kind))
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s: row %d: %s: %w; the file is truncated or corrupt, export it again",
		b.file, row, readerr.Column(c.index+1, c.name), err)
}

// columnOf names the column of field f for messages, as readerr.Column does.
func columnOf(cols []*pqColumn, f field) string {
	for _, c := range cols {
		if c.field == f {
			return readerr.Column(c.index+1, c.name)
		}
	}
	return "column ?"
}

// badValue is a value that is not what its column holds.
type badValue struct{ value string }

func (e *badValue) Error() string { return e.value + " is not a valid value" }

// pqColumn reads one top-level column into a CostLine field.
type pqColumn struct {
	name  string
	index int // the column's position among the top-level ones
	field field
	kind  kind
	extra int    // position among the extra columns, for fExtra
	val   cursor // the values; for a MAP of tags, the map's values
	key   cursor // for a MAP of tags, its keys
	mapKV bool
	kv    []string
}

func (c *pqColumn) open(chunks []parquet.ColumnChunk) {
	c.val.open(chunks[c.val.col.Index()])
	if c.mapKV {
		c.key.open(chunks[c.key.col.Index()])
	}
}

func (c *pqColumn) close() {
	c.val.close()
	if c.mapKV {
		c.key.close()
	}
}

// fill reads the column's values of the next k rows into the batch, a page's run of values at a
// time. On error it returns the index of the row in the batch.
func (c *pqColumn) fill(b *builder, bt *batch, k int) (int, error) {
	if c.mapKV {
		for i := range k {
			t, err := c.readMap(b)
			if err != nil {
				return i, err
			}
			bt.lines[i].Tags = t
		}
		return 0, nil
	}
	for i := 0; i < k; {
		n, err := c.val.run(k - i)
		if err != nil {
			return i, err
		}
		var at int
		switch {
		case c.field == fExtra:
			c.fillExtra(b, bt, i, n)
		case c.kind == kString || c.kind == kEnum:
			c.fillStrings(bt, i, n)
		case c.kind == kTags:
			at, err = c.fillTags(b, bt, i, n)
		default:
			at, err = c.fillValues(bt, i, n)
		}
		if err != nil {
			return at, err
		}
		i += n
	}
	return 0, nil
}

// lineStride is the distance between two lines of a batch.
const lineStride = unsafe.Sizeof(gpucost.CostLine{})

// fillStrings fills rows i0 to i0+n of a text field from the current page. The field of each
// row is reached from the first row's by the size of a line, which saves finding the field anew
// for every value of a 40-column row.
func (c *pqColumn) fillStrings(bt *batch, i0, n int) {
	v := &c.val
	bit := uint64(1) << c.field
	base := unsafe.Pointer(stringOf(&bt.lines[i0], c.field))
	if v.Idx != nil {
		c.fillDictStrings(bt, i0, n, base)
		return
	}
	text := v.conv == cBytes
	for i := range n {
		p := (*string)(unsafe.Add(base, uintptr(i)*lineStride))
		j, ok := v.take()
		if !ok {
			*p = ""
			continue
		}
		s := v.strAt(j)
		if text && isNullText(s) {
			*p = ""
			continue
		}
		*p = s
		bt.set[i0+i] |= bit
	}
}

// fillDictStrings is fillStrings for a dictionary page, whose entries are converted already.
func (c *pqColumn) fillDictStrings(bt *batch, i0, n int, base unsafe.Pointer) {
	v := &c.val
	bit := uint64(1) << c.field
	dict, idx, defs, maxDef := v.dictStrings(), v.Idx, v.Defs, v.MaxDef
	set := bt.set[i0 : i0+n]
	for i := range n {
		p := (*string)(unsafe.Add(base, uintptr(i)*lineStride))
		if defs != nil && defs[v.I] != maxDef {
			v.I++
			*p = ""
			continue
		}
		s := dict[idx[v.J]]
		v.I++
		v.J++
		*p = s
		if s != "" {
			set[i] |= bit
		}
	}
}

// fillExtra fills rows i0 to i0+n of an extra column.
func (c *pqColumn) fillExtra(b *builder, bt *batch, i0, n int) {
	v := &c.val
	name := b.names[c.extra]
	text := v.conv == cBytes
	for i := i0; i < i0+n; i++ {
		j, ok := v.take()
		if !ok {
			continue
		}
		if s := v.str(j); s != "" && !(text && isNullText(s)) {
			bt.addExtra(i, name, s)
		}
	}
}

// fillTags fills rows i0 to i0+n of a Tags column of JSON text.
func (c *pqColumn) fillTags(b *builder, bt *batch, i0, n int) (int, error) {
	v := &c.val
	for i := i0; i < i0+n; i++ {
		j, ok := v.take()
		if !ok {
			continue
		}
		t, err := v.tags(j, &b.tags)
		if err != nil {
			return i, err
		}
		bt.lines[i].Tags = t
	}
	return 0, nil
}

// fillValues fills rows i0 to i0+n of an amount, time or quantity field.
func (c *pqColumn) fillValues(bt *batch, i0, n int) (int, error) {
	v := &c.val
	bit := uint64(1) << c.field
	text := v.conv == cBytes
	for i := i0; i < i0+n; i++ {
		j, ok := v.take()
		if ok && text && isNull(v.bytesAt(j)) {
			ok = false
		}
		l := &bt.lines[i]
		var err error
		switch c.kind {
		case kMoney:
			var x int64
			if ok {
				x, err = v.nanos(j)
			}
			moneyOf(l, c.field).Nanos = x
		case kTime:
			var t time.Time
			if ok {
				t, err = v.time(j)
			}
			*timeOf(l, c.field) = t
		case kFloat:
			var x float64
			if ok {
				x, err = v.float(j)
			}
			*quantityField(l, c.field) = x
		}
		if err != nil {
			return i, err
		}
		if ok {
			bt.set[i] |= bit
		}
	}
	return 0, nil
}

// addExtra sets extra column name of row i.
func (bt *batch) addExtra(i int, name, v string) {
	if bt.extra[i] == nil {
		bt.extra[i] = make(map[string]string)
	}
	bt.extra[i][name] = v
	bt.lines[i].Extra = bt.extra[i]
}

// readMap reads one row of a MAP column of tags.
func (c *pqColumn) readMap(b *builder) (gpucost.Labels, error) {
	c.kv = c.kv[:0]
	for first := true; ; first = false {
		if !first {
			more, err := c.key.continues()
			if err != nil || !more {
				return b.pairs.get(c.kv), err
			}
		}
		hasKey, kk, err := c.key.next()
		if err != nil {
			return nil, err
		}
		hasVal, vk, err := c.val.next()
		if err != nil {
			return nil, err
		}
		if !hasKey { // a null or empty map
			continue
		}
		val := ""
		if hasVal {
			val = c.val.str(vk)
		}
		c.kv = append(c.kv, c.key.str(kk), val)
	}
}
