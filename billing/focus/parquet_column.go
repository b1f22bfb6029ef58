package focus

import (
	"errors"
	"io"
	"math"
	"math/big"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/pqpage"
)

// conv is how a column's physical values become a field's values.
type conv uint8

const (
	cBytes        conv = iota // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY text
	cInt                      // INT32 or INT64 integers
	cDecimal                  // INT32 or INT64 DECIMAL(scale)
	cDecimalBytes             // BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY DECIMAL(scale)
	cDouble                   // DOUBLE or FLOAT
	cTimestamp                // INT64 TIMESTAMP(unit)
	cDate                     // INT32 DATE
	cInt96                    // INT96 timestamps (Impala, Spark, Hive)
)

// planColumns decides how each column the layout uses is read, and refuses types that cannot
// hold the column's values. Extra columns of a type that holds no single value (groups, lists,
// booleans) are read past and dropped from lay.extra.
func planColumns(file string, top []*parquet.Column, lay *layout) ([]*pqColumn, error) {
	var cols []*pqColumn
	var extras []string
	for i, col := range top {
		f := lay.fields[i]
		if f == fNone {
			continue
		}
		c := &pqColumn{name: col.Name(), index: i, field: f, kind: kindOf(f)}
		c.val.strs.enum = c.kind == kEnum
		err := c.plan(col)
		if f == fExtra {
			if err != nil {
				continue
			}
			c.kind, c.extra = kString, len(extras)
			extras = append(extras, c.name)
		}
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: column %s: %v; export the file again with a standard FOCUS schema", file, c.name, err)
		}
		cols = append(cols, c)
	}
	lay.extra = extras
	return cols, nil
}

func (c *pqColumn) plan(col *parquet.Column) error {
	if !col.Leaf() {
		kv := col.Columns()
		if c.field != fTags || len(kv) != 1 || !kv[0].Repeated() || len(kv[0].Columns()) != 2 ||
			!kv[0].Columns()[0].Leaf() || !kv[0].Columns()[1].Leaf() {
			return errors.New("a nested group: FOCUS columns hold single values, and Tags a JSON string or a MAP")
		}
		c.mapKV = true
		c.key.col, c.val.col = kv[0].Columns()[0], kv[0].Columns()[1]
		for _, cur := range []*cursor{&c.key, &c.val} {
			if cur.phys = cur.col.Type().Kind(); cur.phys != parquet.ByteArray {
				return errors.New("a MAP whose keys or values are not strings")
			}
		}
		return nil
	}
	if col.Repeated() {
		return errors.New("a repeated column: FOCUS columns hold single values")
	}
	c.val.col = col
	c.val.phys = col.Type().Kind()
	k := c.kind
	if c.field == fExtra {
		k = kSkip
	}
	var ok bool
	if c.val.conv, ok = choose(k, c.val.phys, col.Type().LogicalType(), &c.val); !ok {
		return errors.New("Parquet type " + col.Type().String() + " cannot hold " + kindName(c.kind))
	}
	return nil
}

// choose picks the conversion for a field of kind k from physical kind p with logical type lt,
// and sets the decimal scale or time unit on cur.
func choose(k kind, p parquet.Kind, lt *format.LogicalType, cur *cursor) (conv, bool) {
	var logical any
	if lt != nil {
		logical = lt.Value
	}
	dec, isDec := logical.(*format.DecimalType)
	if isDec {
		cur.scale = int(dec.Scale)
	}
	isInt := p == parquet.Int32 || p == parquet.Int64
	isBytes := p == parquet.ByteArray || p == parquet.FixedLenByteArray
	isFloat := p == parquet.Double || p == parquet.Float
	switch k {
	case kSkip: // an extra column: any single value, as text
		if c, ok := choose(kTime, p, lt, cur); ok && c != cBytes {
			return c, true
		}
		switch {
		case isInt && isDec:
			return cDecimal, true
		case isBytes && isDec:
			return cDecimalBytes, true
		case isFloat:
			return cDouble, true
		}
		return choose(kString, p, nil, cur)
	case kString, kEnum:
		switch {
		case isBytes && !isDec:
			return cBytes, true
		case isInt && !isDec:
			return cInt, true
		}
	case kMoney, kFloat:
		switch {
		case isFloat:
			return cDouble, true
		case isInt && isDec:
			return cDecimal, true
		case isInt:
			return cInt, true
		case isBytes && isDec:
			return cDecimalBytes, true
		case p == parquet.ByteArray:
			return cBytes, true
		}
	case kTime:
		if ts, ok := logical.(*format.TimestampType); ok && p == parquet.Int64 && ts.Unit.Value != nil {
			cur.unit = int64(ts.Unit.Value.Duration())
			return cTimestamp, true
		}
		if _, ok := logical.(*format.DateType); ok && p == parquet.Int32 {
			return cDate, true
		}
		switch p {
		case parquet.Int96:
			return cInt96, true
		case parquet.ByteArray:
			return cBytes, true
		}
	case kTags:
		return cBytes, p == parquet.ByteArray
	}
	return 0, false
}

func kindName(k kind) string {
	switch k {
	case kMoney:
		return "an amount of money"
	case kTime:
		return "a date and time"
	case kFloat:
		return "a quantity"
	case kTags:
		return "tags"
	}
	return "text"
}

// cursor walks the values of one leaf column through its pages (billing/internal/pqpage).
// Values of dictionary-encoded pages are reached through the page's indexes, and text is
// converted once per dictionary entry.
type cursor struct {
	pqpage.Cursor
	col   *parquet.Column
	phys  parquet.Kind
	conv  conv
	scale int
	unit  int64 // nanoseconds per TIMESTAMP unit

	dictStr    []string         // each entry of ChunkDict as text, for a text column
	strGen     uint64           // the Gen dictStr is of
	dictTags   []gpucost.Labels // each entry's tags, for a Tags column
	dictTagged []bool           // whether dictTags has the entry
	tagGen     uint64           // the Gen dictTags is of

	strs  strCache
	times timeCache
	tmp   []byte
}

func (c *cursor) open(chunk parquet.ColumnChunk) { c.Open(chunk.Pages(), c.col.MaxDefinitionLevel()) }

func (c *cursor) close() { c.Close() }

var errShort = errors.New("the column has fewer values than the row group has rows")

// short turns the end of a column chunk into errShort: a row group's columns have a value for
// every row.
func short(err error) error {
	if errors.Is(err, io.EOF) {
		return errShort
	}
	return err
}

// next moves to the next level slot. It reports whether it holds a value and, if so, the value's
// index in the value arrays.
func (c *cursor) next() (bool, int, error) {
	ok, err := c.Next()
	if err != nil {
		return false, 0, short(err)
	}
	return ok, c.K, nil
}

// run makes sure a page with slots left is loaded and returns how many of them, up to max.
func (c *cursor) run(max int) (int, error) {
	n, err := c.Run(max)
	if err != nil {
		return 0, short(err)
	}
	return n, nil
}

// take moves to the next slot of the loaded page. It reports whether it holds a value and, if
// so, the value's index in the value arrays.
func (c *cursor) take() (int, bool) { return c.Take() }

// continues reports whether the next slot belongs to the same row (a repeated column).
func (c *cursor) continues() (bool, error) {
	rep, ok, err := c.PeekRep()
	return ok && rep > 0, err
}

func (c *cursor) bytesAt(k int) []byte { return c.Bytes(k) }

func (c *cursor) intAt(k int) int64 { return c.Int(k) }

func (c *cursor) floatAt(k int) float64 { return c.Float(k) }

// str returns value k as text. Values of a dictionary page are converted once per entry.
func (c *cursor) str(k int) string {
	if c.Idx != nil {
		return c.dictStrings()[k]
	}
	return c.strAt(k)
}

// dictStrings returns every entry of the page's dictionary as text, converted once per
// dictionary. NULL text (in any case) becomes the empty string, which the readers take as null.
func (c *cursor) dictStrings() []string {
	if c.strGen == c.Gen && c.dictStr != nil {
		return c.dictStr
	}
	c.dictStr, c.strGen = make([]string, c.ChunkDict.Len()), c.Gen
	for k := range c.dictStr {
		s := c.strAt(k)
		if c.conv == cBytes && isNullText(s) {
			s = ""
		}
		c.dictStr[k] = s
	}
	return c.dictStr
}

// strAt returns value k as text: strings as they are, numbers and times formatted (the latter
// for extra columns, which may be of any type).
func (c *cursor) strAt(k int) string {
	switch c.conv {
	case cBytes:
		return c.strs.get(c.bytesAt(k))
	case cInt:
		c.tmp = strconv.AppendInt(c.tmp[:0], c.intAt(k), 10)
	case cDouble:
		c.tmp = strconv.AppendFloat(c.tmp[:0], c.floatAt(k), 'g', -1, 64)
	case cDecimal:
		c.tmp = append(c.tmp[:0], decimalText(big.NewInt(c.intAt(k)), c.scale)...)
	case cDecimalBytes:
		c.tmp = append(c.tmp[:0], decimalText(twosComplement(c.bytesAt(k)), c.scale)...)
	default:
		t, _ := c.time(k)
		c.tmp = t.AppendFormat(c.tmp[:0], time.RFC3339Nano)
	}
	return c.strs.get(c.tmp)
}

// tags returns value k of a Tags column of JSON text, parsed once per dictionary entry. Null
// text gives nil.
func (c *cursor) tags(k int, cache *tagCache) (gpucost.Labels, error) {
	if c.Idx != nil && c.tagGen == c.Gen && c.dictTags != nil && c.dictTagged[k] {
		return c.dictTags[k], nil
	}
	b := c.bytesAt(k)
	if isNull(b) {
		return nil, nil
	}
	t, err := cache.get(b)
	if err != nil {
		return nil, &badValue{describe(b)}
	}
	if c.Idx != nil {
		if c.dictTags == nil || c.tagGen != c.Gen {
			n := c.ChunkDict.Len()
			c.dictTags, c.dictTagged, c.tagGen = make([]gpucost.Labels, n), make([]bool, n), c.Gen
		}
		c.dictTags[k], c.dictTagged[k] = t, true
	}
	return t, nil
}

// nanos returns value k as an amount in nano-units.
func (c *cursor) nanos(k int) (int64, error) {
	switch c.conv {
	case cDouble:
		f := c.floatAt(k)
		n, err := nanosFromFloat(f)
		if err != nil {
			return 0, &badValue{strconv.FormatFloat(f, 'g', -1, 64)}
		}
		return n, nil
	case cInt, cDecimal:
		u, scale := c.intAt(k), 0
		if c.conv == cDecimal {
			scale = c.scale
		}
		if n, ok := scaleToNanos(u, scale); ok {
			return n, nil
		}
		return 0, &badValue{decimalText(big.NewInt(u), scale)}
	case cDecimalBytes:
		u := twosComplement(c.bytesAt(k))
		if u.IsInt64() {
			if n, ok := scaleToNanos(u.Int64(), c.scale); ok {
				return n, nil
			}
		}
		return 0, &badValue{decimalText(u, c.scale)}
	}
	b := trimSpace(c.bytesAt(k))
	n, err := parseNanos(b)
	if err != nil {
		return 0, &badValue{describe(b)}
	}
	return n, nil
}

// scaleToNanos converts an unscaled decimal u×10^-scale to nano-units, rounding half to even.
func scaleToNanos(u int64, scale int) (int64, bool) {
	switch {
	case scale == 9:
		return u, true
	case scale < 9:
		if scale < 9-18 {
			return 0, u == 0
		}
		m := int64(math.Pow10(9 - scale))
		if u > math.MaxInt64/m || u < math.MinInt64/m {
			return 0, false
		}
		return u * m, true
	}
	if scale-9 > 19 {
		return 0, true
	}
	d := uint64(1)
	for range scale - 9 {
		d *= 10
	}
	neg := u < 0
	mag := uint64(u)
	if neg {
		mag = -mag
	}
	q, r := mag/d, mag%d
	switch half := d - r; {
	case r > half, r == half && q&1 == 1:
		q++
	}
	n := int64(q)
	if neg {
		n = -n
	}
	return n, true
}

// twosComplement reads a big-endian two's complement integer, as DECIMAL bytes are stored.
func twosComplement(b []byte) *big.Int {
	u := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		u.Sub(u, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return u
}

func decimalText(u *big.Int, scale int) string {
	r := new(big.Rat).SetFrac(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(scale, 0))), nil))
	return r.FloatString(max(scale, 0))
}

// time returns value k as a time.
func (c *cursor) time(k int) (time.Time, error) {
	switch c.conv {
	case cTimestamp:
		v := c.intAt(k)
		switch c.unit {
		case int64(time.Millisecond):
			return time.UnixMilli(v).UTC(), nil
		case int64(time.Microsecond):
			return time.UnixMicro(v).UTC(), nil
		}
		return time.Unix(0, v).UTC(), nil
	case cDate:
		return time.Unix(int64(c.I32[k])*86400, 0).UTC(), nil
	case cInt96:
		v := c.I96[k]
		nsec := int64(uint64(v[1])<<32 | uint64(v[0]))
		days := int64(v[2]) - 2440588 // Julian day of 1970-01-01
		return time.Unix(days*86400, nsec).UTC(), nil
	}
	b := trimSpace(c.bytesAt(k))
	t, ok := c.times.get(b)
	if !ok {
		return time.Time{}, &badValue{describe(b)}
	}
	return t, nil
}

// float returns value k as a quantity.
func (c *cursor) float(k int) (float64, error) {
	switch c.conv {
	case cDouble:
		return c.floatAt(k), nil
	case cInt:
		return float64(c.intAt(k)), nil
	case cDecimal:
		return float64(c.intAt(k)) / math.Pow10(c.scale), nil
	case cDecimalBytes:
		x, _ := new(big.Rat).SetFrac(twosComplement(c.bytesAt(k)), pow10(c.scale)).Float64()
		return x, nil
	}
	b := trimSpace(c.bytesAt(k))
	x, ok := parseFloat(b)
	if !ok {
		return 0, &badValue{describe(b)}
	}
	return x, nil
}

func pow10(n int) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(n, 0))), nil)
}
