package awscur

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/pqcheck"
)

// errPage reports page data that disagrees with its levels or dictionary.
var errPage = errors.New("page values do not match their levels")

// cursor reads one column chunk value by value, straight from the decoded pages: levels say which
// entries are null or start a new row, the page's typed data (or dictionary indexes) hold the
// present values. Byte array dictionaries are interned once per dictionary entry, so a
// dictionary-encoded string column costs an index lookup per value.
type cursor struct {
	pages   parquet.Pages
	page    parquet.Page
	maxDef  byte
	defs    []byte
	reps    []byte
	n, i    int                // levels in the page; the next one
	vi, cur int                // the next present value; the current one
	dict    parquet.Dictionary // the page's dictionary, nil for a plain page
	cdict   parquet.Dictionary // the chunk's dictionary, kept across plain pages
	gen     uint64             // counts the dictionaries seen, to tell their indexes apart
	idx     []int32
	dictStr []string
	data    encoding.Values
	bytes   []byte
	offs    []uint32
	size    int // FIXED_LEN_BYTE_ARRAY length
}

func (c *cursor) open(p parquet.Pages, maxDef int) {
	c.close()
	c.pages, c.maxDef, c.n, c.i = p, byte(maxDef), 0, 0
}

func (c *cursor) close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// next moves to the next entry and reports whether it holds a value (is not null).
func (c *cursor) next() (bool, error) {
	if c.i >= c.n {
		if err := c.load(); err != nil {
			return false, err
		}
	}
	present := c.defs == nil || c.defs[c.i] == c.maxDef
	c.i++
	if present {
		c.cur = c.vi
		c.vi++
	}
	return present, nil
}

// peekRep returns the repetition level of the next entry; ok is false at the end of the chunk.
func (c *cursor) peekRep() (rep int, ok bool, err error) {
	if c.i >= c.n {
		if err := c.load(); err == io.EOF {
			return 0, false, nil
		} else if err != nil {
			return 0, false, err
		}
	}
	if c.reps == nil {
		return 0, true, nil
	}
	return int(c.reps[c.i]), true, nil
}

// load reads the next page with entries and checks its data against its levels.
func (c *cursor) load() error {
	for {
		if c.page != nil {
			parquet.Release(c.page)
			c.page = nil
		}
		p, err := c.pages.ReadPage()
		if err != nil {
			return err
		}
		c.page = p
		c.n, c.i, c.vi = int(p.NumValues()), 0, 0
		c.defs, c.reps = p.DefinitionLevels(), p.RepetitionLevels()
		if c.maxDef == 0 {
			c.defs = nil
		}
		if (c.defs != nil && len(c.defs) != c.n) || (c.reps != nil && len(c.reps) != c.n) {
			return errPage
		}
		present := c.n
		if c.defs != nil {
			present = 0
			for _, d := range c.defs {
				if d == c.maxDef {
					present++
				}
			}
		}
		if err := c.setData(p, present); err != nil {
			return err
		}
		if c.n > 0 {
			return nil
		}
	}
}

// setData takes the page's values and checks that they cover the present entries.
func (c *cursor) setData(p parquet.Page, present int) error {
	c.data = p.Data()
	if d := p.Dictionary(); d != nil {
		if d != c.cdict {
			if v := d.Page().Data(); v.Kind() == encoding.ByteArray {
				if _, offs := v.ByteArray(); pqcheck.LongValue(offs) >= 0 {
					return &limits.TooLong{Limit: limits.MaxField}
				}
			}
			c.cdict = d
			c.gen++
			c.dictStr = append(c.dictStr[:0], make([]string, d.Len())...)
		}
		c.dict = d
		c.idx = c.data.Int32()
		if len(c.idx) < present {
			return errPage
		}
		for _, x := range c.idx[:present] {
			if x < 0 || int(x) >= len(c.dictStr) {
				return errPage
			}
		}
		return nil
	}
	c.dict = nil
	ok := true
	switch c.data.Kind() {
	case encoding.ByteArray:
		c.bytes, c.offs = c.data.ByteArray()
		ok = len(c.offs) > present || present == 0
		for i := 0; ok && i < present; i++ {
			ok = c.offs[i] <= c.offs[i+1] && int(c.offs[i+1]) <= len(c.bytes)
		}
		if ok && pqcheck.LongValue(c.offs[:min(len(c.offs), present+1)]) >= 0 {
			return &limits.TooLong{Limit: limits.MaxField}
		}
	case encoding.FixedLenByteArray:
		c.bytes, c.size = c.data.FixedLenByteArray()
		ok = c.size > 0 && len(c.bytes) >= present*c.size || present == 0
	case encoding.Int32:
		ok = len(c.data.Int32()) >= present
	case encoding.Int64:
		ok = len(c.data.Int64()) >= present
	case encoding.Int96:
		ok = len(c.data.Int96()) >= present
	case encoding.Float:
		ok = len(c.data.Float()) >= present
	case encoding.Double:
		ok = len(c.data.Double()) >= present
	default:
		ok = present == 0
	}
	if !ok {
		return errPage
	}
	return nil
}

// value returns the current value as a parquet.Value, for messages.
func (c *cursor) value() parquet.Value {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur])
	}
	switch c.data.Kind() {
	case encoding.ByteArray, encoding.FixedLenByteArray:
		return parquet.ByteArrayValue(c.bytesVal())
	case encoding.Int32:
		return parquet.Int32Value(c.data.Int32()[c.cur])
	case encoding.Int64:
		return parquet.Int64Value(c.data.Int64()[c.cur])
	case encoding.Int96:
		return parquet.Int96Value(c.data.Int96()[c.cur])
	case encoding.Float:
		return parquet.FloatValue(c.data.Float()[c.cur])
	case encoding.Double:
		return parquet.DoubleValue(c.data.Double()[c.cur])
	}
	return parquet.NullValue()
}

// bytesVal returns the current byte array value; valid until the cursor's next page.
func (c *cursor) bytesVal() []byte {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur]).ByteArray()
	}
	switch c.data.Kind() {
	case encoding.ByteArray:
		return c.bytes[c.offs[c.cur]:c.offs[c.cur+1]]
	case encoding.FixedLenByteArray:
		return c.bytes[c.cur*c.size : (c.cur+1)*c.size]
	}
	return nil
}

// str returns the current byte array value as an interned string.
func (c *cursor) str(in *interner, f field) string {
	if c.dict == nil {
		return in.field(f, c.bytesVal())
	}
	i := c.idx[c.cur]
	if s := c.dictStr[i]; s != "" {
		return s
	}
	s := in.bytes(c.dict.Index(i).ByteArray())
	c.dictStr[i] = s
	return s
}

func (c *cursor) int64Val() int64 {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur]).Int64()
	}
	if c.data.Kind() == encoding.Int32 {
		return int64(c.data.Int32()[c.cur])
	}
	return c.data.Int64()[c.cur]
}

func (c *cursor) int32Val() int32 {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur]).Int32()
	}
	return c.data.Int32()[c.cur]
}

func (c *cursor) doubleVal() float64 {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur]).Double()
	}
	return c.data.Double()[c.cur]
}

func (c *cursor) floatVal() float32 {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur]).Float()
	}
	return c.data.Float()[c.cur]
}

func (c *cursor) int96Val() deprecated.Int96 {
	if c.dict != nil {
		return c.dict.Index(c.idx[c.cur]).Int96()
	}
	return c.data.Int96()[c.cur]
}

// strings fills dst with the next values as interned strings, "" for nulls.
func (c *cursor) strings(dst []string, in *interner, f field) error {
	for r := range dst {
		if c.i >= c.n {
			if err := c.load(); err != nil {
				return err
			}
		}
		if c.defs != nil && c.defs[c.i] != c.maxDef {
			c.i++
			dst[r] = ""
			continue
		}
		c.i++
		c.cur = c.vi
		c.vi++
		if c.dict == nil {
			dst[r] = in.field(f, c.bytesVal())
			continue
		}
		x := c.idx[c.cur]
		s := c.dictStr[x]
		if s == "" {
			s = in.bytes(c.dict.Index(x).ByteArray())
			c.dictStr[x] = s
		}
		dst[r] = s
	}
	return nil
}

// doubles fills dst with the next DOUBLE values and ok with whether each is present.
func (c *cursor) doubles(dst []float64, ok []bool) error { return fill(c, dst, ok, c.doubleVal) }

// int64s fills dst with the next INT64 values and ok with whether each is present.
func (c *cursor) int64s(dst []int64, ok []bool) error { return fill(c, dst, ok, c.int64Val) }

// fill reads the next len(dst) values of c with val, marking nulls in ok with the zero value.
func fill[T any](c *cursor, dst []T, ok []bool, val func() T) error {
	var zero T
	for r := range dst {
		if c.i >= c.n {
			if err := c.load(); err != nil {
				return err
			}
		}
		if c.defs != nil && c.defs[c.i] != c.maxDef {
			c.i++
			dst[r], ok[r] = zero, false
			continue
		}
		c.i++
		c.cur = c.vi
		c.vi++
		dst[r], ok[r] = val(), true
	}
	return nil
}

// appendHandle appends the current value to a cache key: its dictionary index where the page
// has a dictionary, else its bytes.
func (c *cursor) appendHandle(b []byte) []byte {
	if c.dict != nil {
		return binary.LittleEndian.AppendUint32(append(b, 1), uint32(c.idx[c.cur]))
	}
	v := c.bytesVal()
	b = binary.AppendUvarint(append(b, 2), uint64(len(v)))
	return append(b, v...)
}

// resolve returns the bytes of a handle appendHandle wrote and the rest of buf.
func (c *cursor) resolve(buf []byte) (v, rest []byte, ok bool) {
	if len(buf) == 0 {
		return nil, nil, false
	}
	switch buf[0] {
	case 1:
		if len(buf) < 5 || c.cdict == nil {
			return nil, nil, false
		}
		x := int32(binary.LittleEndian.Uint32(buf[1:]))
		if x < 0 || int(x) >= c.cdict.Len() {
			return nil, nil, false
		}
		return c.cdict.Index(x).ByteArray(), buf[5:], true
	case 2:
		n, w := binary.Uvarint(buf[1:])
		if w <= 0 || uint64(len(buf)-1-w) < n {
			return nil, nil, false
		}
		return buf[1+w : 1+w+int(n)], buf[1+w+int(n):], true
	}
	return nil, nil, false
}

// ent is one entry of a row of a repeated column: a dictionary index, or bytes copied to an arena.
type ent struct {
	idx    int32 // a dictionary index; entBytes for bytes in the arena; entNull for a null
	off, n int32 // the bytes in the arena
}

const (
	entBytes = -1
	entNull  = -2
)

// row appends the entries of the current row of a repeated column to ents, copying the values of
// plain pages to arena.
func (c *cursor) row(ents []ent, arena []byte) ([]ent, []byte, error) {
	for first := true; ; first = false {
		if c.i >= c.n {
			if err := c.load(); err != nil {
				if err == io.EOF && !first {
					return ents, arena, nil
				}
				return nil, nil, err
			}
		}
		if !first && (c.reps == nil || c.reps[c.i] == 0) {
			return ents, arena, nil
		}
		present := c.defs == nil || c.defs[c.i] == c.maxDef
		c.i++
		switch {
		case !present:
			ents = append(ents, ent{idx: entNull})
		case c.dict != nil:
			c.cur = c.vi
			c.vi++
			ents = append(ents, ent{idx: c.idx[c.cur]})
		default:
			c.cur = c.vi
			c.vi++
			b := c.bytesVal()
			ents = append(ents, ent{idx: entBytes, off: int32(len(arena)), n: int32(len(b))})
			arena = append(arena, b...)
		}
	}
}

// entBytesOf returns the bytes of an entry row returned.
func (c *cursor) entBytesOf(e ent, arena []byte) []byte {
	if e.idx >= 0 {
		return c.cdict.Index(e.idx).ByteArray()
	}
	return arena[e.off : e.off+e.n]
}

// appendEnt appends an entry to a cache key as appendHandle does.
func appendEnt(b []byte, e ent, arena []byte) []byte {
	if e.idx >= 0 {
		return binary.LittleEndian.AppendUint32(append(b, 1), uint32(e.idx))
	}
	v := arena[e.off : e.off+e.n]
	b = binary.AppendUvarint(append(b, 2), uint64(len(v)))
	return append(b, v...)
}

// rowDict is row's fast path: when the current row of a repeated column lies within the current
// page, has no nulls and the page is dictionary-encoded, it returns the row's dictionary indexes
// (a slice of the page) and moves past the row; else it returns false and moves nowhere.
func (c *cursor) rowDict() ([]int32, bool) {
	if c.i >= c.n || c.dict == nil || c.reps == nil {
		return nil, false
	}
	j := bytes.IndexByte(c.reps[c.i+1:], 0)
	if j < 0 {
		return nil, false // the row may go on in the next page
	}
	k := j + 1
	if c.defs != nil && bytes.Count(c.defs[c.i:c.i+k], []byte{c.maxDef}) != k {
		return nil, false
	}
	idx := c.idx[c.vi : c.vi+k]
	c.i += k
	c.vi += k
	c.cur = c.vi - 1
	return idx, true
}
