package awscur

import (
	"errors"
	"fmt"
	"io"
	"math/big"
	"runtime"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/pqcheck"
)

// ReadParquet reads a CUR 2.0 Parquet file — the format AWS Data Exports writes by default, with
// product, resource_tags, cost_category and tags as MAP<STRING,STRING> columns and costs as
// DOUBLE — and calls emit for each line, in file order. Legacy CUR Parquet (snake_case columns,
// resource_tags_user_team) reads the same way. Only the columns the mapping needs are read;
// the rest of the file is never decoded.
//
// Amounts may also be DECIMAL or text, timestamps INT64 TIMESTAMP (any unit), INT96 or text.
// The emitted line is reused and shared as in Read. A truncated file fails before any line is
// emitted (its footer is missing); a damaged one fails with a gpucost.EInvalid error when the
// damage is reached, so, as with Read, a caller that stores files whole keeps what emit gives it
// pending until ReadParquet returns nil.
func ReadParquet(r io.ReaderAt, size int64, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	rd := newReader(name, emit)
	err := rd.readParquet(r, size)
	return rd.stats("parquet"), err
}

// readParquet opens the file, plans the columns and reads every row group. parquet-go panics on
// some damaged pages (slice bounds in its level decoders, found by FuzzReadParquet); such a panic
// becomes an error naming the file. A panic anywhere else is a bug and is not recovered.
func (rd *reader) readParquet(r io.ReaderAt, size int64) (err error) {
	defer func() {
		if v := recover(); v != nil {
			if !panickedIn("github.com/parquet-go/") {
				panic(v)
			}
			err = gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: damaged Parquet data (%v); export or download the file again", rd.name, v)
		}
	}()
	if err := pqcheck.Footer(r, size); err != nil {
		if tl := (*limits.TooLong)(nil); errors.As(err, &tl) {
			return limits.Invalid("read AWS CUR "+rd.name, tl)
		}
		return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: not a readable Parquet file (%v); it may be truncated, download it again", rd.name, err)
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: not a readable Parquet file (%v); it may be truncated, download it again", rd.name, err)
	}
	top := f.Root().Columns()
	names := make([]string, len(top))
	for i, c := range top {
		names[i] = c.Name()
	}
	if rd.plan, err = newPlan(names); err != nil {
		return fmt.Errorf("read AWS CUR %s: %w", rd.name, err)
	}
	pr, err := newPQRow(rd, top)
	if err != nil {
		return fmt.Errorf("read AWS CUR %s: %w", rd.name, err)
	}
	meta := f.Metadata()
	rows := int64(0) // rows of the row groups before
	for i, rg := range f.RowGroups() {
		if i >= len(meta.RowGroups) {
			return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: row group %d has no metadata; the file is damaged", rd.name, i)
		}
		for _, l := range pr.leaves() {
			cols := meta.RowGroups[i].Columns
			if l.index >= len(cols) {
				return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: row group %d lacks column %s; the file is damaged", rd.name, i, l.name)
			}
			if err := pqcheck.Pages(r, size, &cols[l.index].MetaData); err != nil {
				var tl *limits.TooLong
				if errors.As(err, &tl) {
					tl.Line, tl.Row, tl.Column, tl.Name = int(rows)+tl.Line+1, true, l.index+1, l.name
					return limits.Invalid("read AWS CUR "+rd.name, tl)
				}
				return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: row group %d column %s: %v; the file is truncated or damaged, download it again", rd.name, i, l.name, err)
			}
		}
		if err := pr.readGroup(rg); err != nil {
			return err
		}
		rows += rg.NumRows()
	}
	return nil
}

// panickedIn reports whether the function that panicked — the first frame below the runtime's
// panic machinery, called from a deferred function — belongs to a package with the given prefix.
func panickedIn(prefix string) bool {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "runtime.") {
			return strings.HasPrefix(f.Function, prefix)
		}
		if !more {
			return false
		}
	}
}

// conv says how a leaf column's values become the field's.
type conv uint8

const (
	cvText    conv = iota // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY text
	cvInt                 // INT32 or INT64
	cvDouble              // DOUBLE
	cvFloat               // FLOAT
	cvDecInt              // INT32 or INT64 DECIMAL
	cvDecBin              // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY DECIMAL, big-endian two's complement
	cvTimeInt             // INT64 TIMESTAMP; unit in pqLeaf.unit
	cvInt96               // INT96 timestamp (Impala, Spark)
	cvDate                // INT32 DATE
)

// pqLeaf is one leaf column the reader reads.
type pqLeaf struct {
	name   string
	index  int // among the row group's column chunks
	conv   conv
	scale  int           // DECIMAL scale
	unit   time.Duration // TIMESTAMP unit
	maxDef int
	cur    cursor
}

// pqMap is a MAP column: its key and value leaves, and the entries of the batch's rows.
type pqMap struct {
	field      field
	key, value *pqLeaf
	b          mapBatch
	namePos    int // where the last product had product_name among its entries
	marketPos  int // and marketoption
}

// pqRow reads the rows of one file, a batch at a time: each column fills its slice of the
// batch in a tight loop, then the rows are put together and finished one by one.
type pqRow struct {
	rd        *reader
	flat      [mProduct]*pqLeaf // string, time, quantity and amount fields
	fields    []field           // the flat fields the file has
	maps      []*pqMap
	product   *pqMap
	tagMaps   []*pqMap   // resource_tags, tags, cost_category: the order their keys win in
	tagCols   []*pqLeaf  // flattened tag and cost category columns
	tagKeys   []string   // their tag keys
	tagVals   [][]string // their values in the batch
	tags      tagSets
	row       int64 // rows read before the current batch
	b         *pqBatch
	lastTime  [numTimes]int64
	lastVal   [numTimes]time.Time
	lastText  [numTimes][]byte
	scratch   []byte
	slowNanos [64]slowNanos // amounts converted the slow way, by their bits (nanos)
}

func newPQRow(rd *reader, top []*parquet.Column) (*pqRow, error) {
	pr := &pqRow{rd: rd, b: new(pqBatch)}
	p := rd.plan
	for f := field(0); f < numFields; f++ {
		i := p.index[f]
		if i < 0 {
			continue
		}
		if f.kind() == kMap {
			m, err := mapLeaves(f, top[i])
			if err != nil {
				return nil, err
			}
			pr.maps = append(pr.maps, m)
			continue
		}
		l, err := leaf(top[i], f.kind())
		if err != nil {
			return nil, err
		}
		pr.flat[f], pr.fields = l, append(pr.fields, f)
	}
	for _, i := range p.tags {
		l, err := leaf(top[i], kString)
		if err != nil {
			return nil, err
		}
		key := p.cols[i].key
		if p.cols[i].role == roleCostCat {
			key = costCategoryKey(key)
		}
		pr.tagCols, pr.tagKeys = append(pr.tagCols, l), append(pr.tagKeys, key)
		pr.tagVals = append(pr.tagVals, make([]string, batchRows))
	}
	for _, f := range [...]field{mResourceTags, mTags, mCostCategory} {
		for _, m := range pr.maps {
			if m.field == f {
				pr.tagMaps = append(pr.tagMaps, m)
			}
		}
	}
	for _, m := range pr.maps {
		if m.field == mProduct {
			pr.product = m
		}
	}
	return pr, nil
}

// leaf plans a flat column for a field of kind k.
func leaf(c *parquet.Column, k kind) (*pqLeaf, error) {
	if !c.Leaf() || c.MaxRepetitionLevel() > 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "column %s is a group or list; want a single %s", c.Name(), wants[k])
	}
	l := &pqLeaf{name: c.Name(), index: c.Index(), maxDef: c.MaxDefinitionLevel()}
	t := c.Type()
	var lt format.LogicalTypeValue
	if p := t.LogicalType(); p != nil {
		lt = p.Value
	}
	dec, isDec := lt.(*format.DecimalType)
	if isDec {
		l.scale = int(dec.Scale)
	}
	switch t.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		l.conv = cvText
		if isDec {
			l.conv = cvDecBin
		}
	case parquet.Int32, parquet.Int64:
		l.conv = cvInt
		switch v := lt.(type) {
		case *format.DecimalType:
			l.conv = cvDecInt
		case *format.TimestampType:
			l.conv, l.unit = cvTimeInt, timeUnit(v)
		case *format.DateType:
			l.conv = cvDate
		}
		if ct := t.ConvertedType(); l.conv == cvInt && ct != nil {
			switch *ct {
			case 9: // TIMESTAMP_MILLIS
				l.conv, l.unit = cvTimeInt, time.Millisecond
			case 10: // TIMESTAMP_MICROS
				l.conv, l.unit = cvTimeInt, time.Microsecond
			}
		}
	case parquet.Double:
		l.conv = cvDouble
	case parquet.Float:
		l.conv = cvFloat
	case parquet.Int96:
		l.conv = cvInt96
	default:
		return nil, gpucost.Errorf(gpucost.EInvalid, "column %s has type %s; want %s", c.Name(), t, wants[k])
	}
	if !fits(l.conv, k) {
		return nil, gpucost.Errorf(gpucost.EInvalid, "column %s has type %s; want %s", c.Name(), t, wants[k])
	}
	return l, nil
}

// fits reports whether values of a conversion can feed a field of kind k.
func fits(cv conv, k kind) bool {
	switch k {
	case kTime:
		return cv == cvText || cv == cvTimeInt || cv == cvInt96 || cv == cvDate
	case kString:
		return cv == cvText || cv == cvInt || cv == cvDouble || cv == cvDecInt
	default: // amounts and quantities
		return cv == cvText || cv == cvInt || cv == cvDouble || cv == cvFloat || cv == cvDecInt || cv == cvDecBin
	}
}

func timeUnit(t *format.TimestampType) time.Duration {
	switch t.Unit.Value.(type) {
	case *format.MilliSeconds:
		return time.Millisecond
	case *format.NanoSeconds:
		return time.Nanosecond
	}
	return time.Microsecond
}

// mapLeaves plans a MAP<STRING,STRING> column: a group whose two leaves, key and value, repeat.
func mapLeaves(f field, c *parquet.Column) (*pqMap, error) {
	var leaves []*parquet.Column
	var walk func(*parquet.Column)
	walk = func(c *parquet.Column) {
		if c.Leaf() {
			leaves = append(leaves, c)
			return
		}
		for _, ch := range c.Columns() {
			walk(ch)
		}
	}
	walk(c)
	if len(leaves) != 2 || leaves[0].MaxRepetitionLevel() != 1 || leaves[1].MaxRepetitionLevel() != 1 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "column %s is not a MAP<STRING,STRING>", c.Name())
	}
	m := &pqMap{field: f}
	for i, lc := range leaves {
		if k := lc.Type().Kind(); k != parquet.ByteArray && k != parquet.FixedLenByteArray {
			return nil, gpucost.Errorf(gpucost.EInvalid, "column %s is a map of %s; want MAP<STRING,STRING>", c.Name(), lc.Type())
		}
		l := &pqLeaf{name: c.Name(), index: lc.Index(), maxDef: lc.MaxDefinitionLevel()}
		if i == 0 {
			m.key = l
		} else {
			m.value = l
		}
	}
	return m, nil
}

// leaves returns every leaf the reader reads.
func (pr *pqRow) leaves() []*pqLeaf {
	var ls []*pqLeaf
	for _, l := range pr.flat {
		if l != nil {
			ls = append(ls, l)
		}
	}
	for _, m := range pr.maps {
		ls = append(ls, m.key, m.value)
	}
	return append(ls, pr.tagCols...)
}

// twos reads a big-endian two's complement integer, as Parquet stores binary DECIMALs.
func twos(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(len(b)*8)))
	}
	return n
}
