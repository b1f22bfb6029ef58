// Package pqpage walks the values of a Parquet column chunk straight from its decoded pages, for
// the bill readers' Parquet paths (billing/focus, billing/awscur): the definition levels say
// which slots are null, the repetition levels where a row of a repeated column starts, and the
// page's typed values — or its dictionary's, reached through the page's indexes — hold the
// present values. Reading them in place costs no parquet.Value per value, and converting text
// once per dictionary entry (Cursor.Gen tells a reader when the dictionary changed) costs an
// index look-up per value.
//
// Every page is checked against its levels before a value is read: the data must cover the
// present slots and the dictionary indexes must lie within the dictionary, so a damaged file
// fails with ErrPage instead of reading past a slice; a value longer than limits.MaxField is a
// *limits.TooLong. The page headers were checked before parquet-go read them
// (billing/internal/pqcheck).
package pqpage

import (
	"bytes"
	"errors"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/pqcheck"
)

// ErrPage reports page data that disagrees with its levels or its dictionary.
var ErrPage = errors.New("page values do not match their levels")

// Cursor walks one column chunk, slot by slot. Next (or Run and then Take, a page at a time)
// moves to the next slot and says whether it holds a value; K (Take's result) is then the
// value's index in the value arrays, which hold the page's values for a plain page and the dictionary's for a
// dictionary-encoded one (K is then the dictionary index). The arrays are valid until the next
// page is loaded.
type Cursor struct {
	MaxDef     byte   // the column's maximum definition level: a slot at it holds a value
	Defs, Reps []byte // the page's levels; Defs is nil for a required column, Reps for a flat one
	N, I       int    // the level slots in the page; the next one
	J          int    // the next present value of the page
	K          int    // the value the last Next moved to, an index of the value arrays

	Idx       []int32            // the dictionary indexes of the page's present values; nil for a plain page
	Dict      parquet.Dictionary // the page's dictionary; nil for a plain page
	ChunkDict parquet.Dictionary // the chunk's last dictionary, kept across plain pages
	Gen       uint64             // counts the dictionaries seen: caches per dictionary entry check it

	// The value arrays, by the values' encoding kind: of the page, or of its dictionary.
	Kind  encoding.Kind
	BA    []byte   // BYTE_ARRAY values, value k being BA[Off[k]:Off[k+1]]
	Off   []uint32 //
	FB    []byte   // FIXED_LEN_BYTE_ARRAY values of FSize bytes each
	FSize int
	I32   []int32
	I64   []int64
	I96   []deprecated.Int96
	F32   []float32
	F64   []float64

	pages    parquet.Pages
	page     parquet.Page
	fromDict bool // the value arrays hold ChunkDict's values
}

// Open starts walking the pages of a chunk of a column whose maximum definition level is
// maxDef.
func (c *Cursor) Open(p parquet.Pages, maxDef int) {
	c.Close()
	c.pages, c.MaxDef, c.N, c.I, c.J = p, byte(maxDef), 0, 0, 0
	c.Dict, c.Idx, c.fromDict = nil, nil, false
}

// Close releases the page and the chunk's pages.
func (c *Cursor) Close() {
	if c.page != nil {
		parquet.Release(c.page)
		c.page = nil
	}
	if c.pages != nil {
		c.pages.Close()
		c.pages = nil
	}
}

// Next moves to the next slot and reports whether it holds a value, loading the next page when
// the page is done. It returns io.EOF at the end of the chunk. (Loops over many values call
// Load and Take themselves: Take is inlined, Next is not.)
func (c *Cursor) Next() (bool, error) {
	if c.I >= c.N {
		if err := c.Load(); err != nil {
			return false, err
		}
	}
	k, ok := c.Take()
	c.K = k
	return ok, nil
}

// Run makes sure a page with slots left is loaded and returns how many are left, up to max. It
// returns io.EOF at the end of the chunk.
func (c *Cursor) Run(max int) (int, error) {
	if c.I >= c.N {
		if err := c.Load(); err != nil {
			return 0, err
		}
	}
	return min(max, c.N-c.I), nil
}

// Take moves to the next slot of the loaded page, which must have one left (Run), and returns
// the index of its value in the value arrays and whether it holds one. Unlike Next it leaves K
// alone.
func (c *Cursor) Take() (int, bool) {
	i := c.I
	c.I++
	if c.Defs != nil && c.Defs[i] != c.MaxDef {
		return 0, false
	}
	j := c.J
	c.J++
	if c.Idx != nil {
		j = int(c.Idx[j])
	}
	return j, true
}

// PeekRep returns the repetition level of the next slot; ok is false at the end of the chunk.
func (c *Cursor) PeekRep() (rep int, ok bool, err error) {
	if c.I >= c.N {
		if err := c.Load(); errors.Is(err, io.EOF) {
			return 0, false, nil
		} else if err != nil {
			return 0, false, err
		}
	}
	if c.Reps == nil {
		return 0, true, nil
	}
	return int(c.Reps[c.I]), true, nil
}

// Load reads the next page that has slots and checks its values against its levels. It
// returns io.EOF at the end of the chunk, ErrPage for a damaged page, and a *limits.TooLong
// whose Line is the index of the first long value among the page's present values (0 for a
// dictionary's) for a value longer than limits.MaxField.
func (c *Cursor) Load() error {
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
		c.N, c.I, c.J = int(p.NumValues()), 0, 0
		c.Defs, c.Reps = p.DefinitionLevels(), p.RepetitionLevels()
		if c.MaxDef == 0 {
			c.Defs = nil
		}
		if (c.Defs != nil && len(c.Defs) != c.N) || (c.Reps != nil && len(c.Reps) != c.N) {
			return ErrPage
		}
		present := c.N
		if c.Defs != nil {
			present = bytes.Count(c.Defs, []byte{c.MaxDef})
			if present == c.N {
				c.Defs = nil // no slot is null: the readers' loops take their path without levels
			}
		}
		if err := c.setValues(p, present); err != nil {
			return err
		}
		if c.N > 0 {
			return nil
		}
	}
}

// setValues takes the page's values, or its dictionary's, and checks that they cover the
// present slots.
func (c *Cursor) setValues(p parquet.Page, present int) error {
	data := p.Data()
	d := p.Dictionary()
	if d == nil {
		c.Dict, c.Idx, c.fromDict = nil, nil, false
		if err := c.setArrays(data, present); err != nil {
			return err
		}
		if long := c.long(present); long >= 0 {
			return &limits.TooLong{Line: long, Limit: limits.MaxField}
		}
		return nil
	}
	if d != c.ChunkDict {
		c.ChunkDict, c.fromDict = d, false
		c.Gen++
	}
	if !c.fromDict {
		n := d.Len()
		if err := c.setArrays(d.Page().Data(), n); err != nil {
			return err
		}
		c.fromDict = true
		if c.long(n) >= 0 {
			return &limits.TooLong{Limit: limits.MaxField}
		}
	}
	c.Dict, c.Idx = d, data.Int32()
	if len(c.Idx) < present {
		return ErrPage
	}
	if present > 0 && !indexesIn(c.Idx[:present], d.Len()) {
		return ErrPage
	}
	return nil
}

// vectorIndexes is the number of indexes from which indexesIn has parquet-go bound them: its
// page bounds run in vector instructions (AVX-512 where the CPU has it), sixteen indexes an
// instruction, at the cost of a page value allocated.
const vectorIndexes = 256

// indexesIn reports whether every index of idx, which must not be empty, lies in [0, n).
func indexesIn(idx []int32, n int) bool {
	if len(idx) < vectorIndexes {
		return maxIndex(idx) < uint32(n) // a negative index is larger than any dictionary
	}
	lo, hi, _ := parquet.Int32Type.NewPage(0, len(idx), encoding.Int32Values(idx)).Bounds()
	return lo.Int32() >= 0 && int(hi.Int32()) < n
}

// maxIndex returns the largest of idx, which must not be empty, as unsigned numbers (a negative
// index is larger than any dictionary). Four running maxima let the loop run without a branch per index.
func maxIndex(idx []int32) uint32 {
	var m0, m1, m2, m3 uint32
	for len(idx) >= 4 {
		m0, m1 = max(m0, uint32(idx[0])), max(m1, uint32(idx[1]))
		m2, m3 = max(m2, uint32(idx[2])), max(m3, uint32(idx[3]))
		idx = idx[4:]
	}
	for _, x := range idx {
		m0 = max(m0, uint32(x))
	}
	return max(m0, m1, m2, m3)
}

// setArrays takes the values v, of which n at least must be there.
func (c *Cursor) setArrays(v encoding.Values, n int) error {
	c.Kind = v.Kind()
	ok := true
	switch c.Kind {
	case encoding.ByteArray:
		c.BA, c.Off = v.ByteArray()
		ok = n == 0 || len(c.Off) > n && int(c.Off[n]) <= len(c.BA)
		for i := 0; ok && i < n; i++ { // rising offsets, so none past the last
			ok = c.Off[i] <= c.Off[i+1]
		}
	case encoding.FixedLenByteArray:
		c.FB, c.FSize = v.FixedLenByteArray()
		ok = c.FSize > 0 && len(c.FB) >= n*c.FSize || n == 0
	case encoding.Int32:
		c.I32 = v.Int32()
		ok = len(c.I32) >= n
	case encoding.Int64:
		c.I64 = v.Int64()
		ok = len(c.I64) >= n
	case encoding.Int96:
		c.I96 = v.Int96()
		ok = len(c.I96) >= n
	case encoding.Float:
		c.F32 = v.Float()
		ok = len(c.F32) >= n
	case encoding.Double:
		c.F64 = v.Double()
		ok = len(c.F64) >= n
	default:
		ok = n == 0
	}
	if !ok {
		return ErrPage
	}
	return nil
}

// long returns the index of the first of the first n BYTE_ARRAY values longer than
// limits.MaxField, or -1.
func (c *Cursor) long(n int) int {
	if c.Kind != encoding.ByteArray {
		return -1
	}
	return pqcheck.LongValue(c.Off[:min(len(c.Off), n+1)])
}

// Bytes returns value k of a BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY column; nil for another kind.
func (c *Cursor) Bytes(k int) []byte {
	switch c.Kind {
	case encoding.ByteArray:
		return c.BA[c.Off[k]:c.Off[k+1]]
	case encoding.FixedLenByteArray:
		return c.FB[k*c.FSize : (k+1)*c.FSize]
	}
	return nil
}

// Int returns value k of an INT32 or INT64 column.
func (c *Cursor) Int(k int) int64 {
	if c.Kind == encoding.Int32 {
		return int64(c.I32[k])
	}
	return c.I64[k]
}

// Float returns value k of a FLOAT or DOUBLE column.
func (c *Cursor) Float(k int) float64 {
	if c.Kind == encoding.Float {
		return float64(c.F32[k])
	}
	return c.F64[k]
}

// Value returns value k as a parquet.Value, for messages.
func (c *Cursor) Value(k int) parquet.Value {
	switch c.Kind {
	case encoding.ByteArray, encoding.FixedLenByteArray:
		return parquet.ByteArrayValue(c.Bytes(k))
	case encoding.Int32:
		return parquet.Int32Value(c.I32[k])
	case encoding.Int64:
		return parquet.Int64Value(c.I64[k])
	case encoding.Int96:
		return parquet.Int96Value(c.I96[k])
	case encoding.Float:
		return parquet.FloatValue(c.F32[k])
	case encoding.Double:
		return parquet.DoubleValue(c.F64[k])
	}
	return parquet.NullValue()
}
