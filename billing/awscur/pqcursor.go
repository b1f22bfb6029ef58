package awscur

import (
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"

	"github.com/gpucost/gpucost/billing/internal/pqpage"
)

// errPage reports page data that disagrees with its levels or dictionary.
var errPage = pqpage.ErrPage

// cursor reads one column chunk value by value, straight from the decoded pages
// (billing/internal/pqpage): K indexes the current value in the page's or its dictionary's
// values. Byte array dictionaries are interned once per dictionary entry, so a
// dictionary-encoded string column costs an index lookup per value.
type cursor struct {
	pqpage.Cursor
	dictStr []string // the interned entries of ChunkDict, "" until interned
	strGen  uint64   // the Gen dictStr is of
}

func (c *cursor) open(p parquet.Pages, maxDef int) { c.Open(p, maxDef) }

func (c *cursor) close() { c.Close() }

// next moves to the next entry and reports whether it holds a value (is not null).
func (c *cursor) next() (bool, error) { return c.Next() }

// value returns the current value as a parquet.Value, for messages.
func (c *cursor) value() parquet.Value { return c.Value(c.K) }

// bytesVal returns the current byte array value; valid until the cursor's next page.
func (c *cursor) bytesVal() []byte { return c.Bytes(c.K) }

func (c *cursor) int64Val() int64 { return c.Int(c.K) }

func (c *cursor) int32Val() int32 { return c.I32[c.K] }

func (c *cursor) doubleVal() float64 { return c.F64[c.K] }

func (c *cursor) floatVal() float32 { return c.F32[c.K] }

func (c *cursor) int96Val() deprecated.Int96 { return c.I96[c.K] }

// strings fills dst with the next values as interned strings, "" for nulls, a page's run at a
// time (the values of field f, or of a flattened tag column when f is negative): a dictionary page's values are copied from its entries' strings, interned once per
// dictionary, so a value costs an index look-up.
func (c *cursor) strings(dst []string, in *interner, f field) error {
	for r := 0; r < len(dst); {
		n, err := c.Run(len(dst) - r)
		if err != nil {
			return err
		}
		out := dst[r : r+n]
		if c.Idx != nil {
			dictRun(c, out, c.dictStrings(in))
		} else {
			for i := range out {
				out[i] = ""
				if k, ok := c.Take(); ok && f >= 0 {
					out[i] = in.field(f, c.Bytes(k))
				} else if ok {
					out[i] = in.bytes(c.Bytes(k))
				}
			}
		}
		r += n
	}
	return nil
}

// stringsRows is strings writing each value to its row of rows, as field f.
func (c *cursor) stringsRows(rows [][numStrings]string, in *interner, f field) error {
	for r := 0; r < len(rows); {
		n, err := c.Run(len(rows) - r)
		if err != nil {
			return err
		}
		out := rows[r : r+n]
		if c.Idx == nil {
			for i := range out {
				out[i][f] = ""
				if k, ok := c.Take(); ok {
					out[i][f] = in.field(f, c.Bytes(k))
				}
			}
			r += n
			continue
		}
		tab, idx, j := c.dictStrings(in), c.Idx[c.J:], 0
		if c.Defs == nil {
			for i, x := range idx[:n] {
				out[i][f] = tab[x]
			}
			j = n
		} else {
			for i, d := range c.Defs[c.I : c.I+n] {
				if d != c.MaxDef {
					out[i][f] = ""
					continue
				}
				out[i][f] = tab[idx[j]]
				j++
			}
		}
		c.I, c.J = c.I+n, c.J+j
		r += n
	}
	return nil
}

// dictStrings returns every entry of the page's dictionary as an interned string, interned once
// per dictionary.
func (c *cursor) dictStrings(in *interner) []string {
	if c.strGen == c.Gen && c.dictStr != nil {
		return c.dictStr
	}
	n := c.ChunkDict.Len()
	c.dictStr, c.strGen = append(c.dictStr[:0], make([]string, n)...), c.Gen
	for k := range n {
		c.dictStr[k] = in.bytes(c.Bytes(k))
	}
	return c.dictStr
}

// dictRun fills out with the values of the next len(out) slots of a dictionary page, which must
// have them (Run), as their entries in tab; a null slot gets the zero value.
func dictRun[T any](c *cursor, out []T, tab []T) {
	idx := c.Idx[c.J:]
	if c.Defs == nil {
		for i, x := range idx[:len(out)] {
			out[i] = tab[x]
		}
		c.I, c.J = c.I+len(out), c.J+len(out)
		return
	}
	var zero T
	j := 0
	for i, d := range c.Defs[c.I : c.I+len(out)] {
		if d != c.MaxDef {
			out[i] = zero
			continue
		}
		out[i] = tab[idx[j]]
		j++
	}
	c.I, c.J = c.I+len(out), c.J+j
}

// plainRun fills out with the values of the next len(out) slots of a plain page, which must have
// them (Run), from the page's values vals; a null slot gets the zero value.
func plainRun[T any](c *cursor, out []T, vals []T) {
	vals = vals[c.J:]
	if c.Defs == nil {
		copy(out, vals[:len(out)])
		c.I, c.J = c.I+len(out), c.J+len(out)
		return
	}
	var zero T
	j := 0
	for i, d := range c.Defs[c.I : c.I+len(out)] {
		if d != c.MaxDef {
			out[i] = zero
			continue
		}
		out[i] = vals[j]
		j++
	}
	c.I, c.J = c.I+len(out), c.J+j
}

// doubles fills dst with the next DOUBLE (or FLOAT) values and has with whether each is present.
func (c *cursor) doubles(dst []float64, has []bool) error {
	return fill(c, dst, has, encoding.Double, func() []float64 { return c.F64 }, c.Float)
}

// fill reads the next len(dst) values of c, a page's run at a time, and marks in has which are
// present. Pages of kind hold their values in the array vals returns (the page's or its
// dictionary's), copied in bulk; at converts value k of a page of another kind.
func fill[T any](c *cursor, dst []T, has []bool, kind encoding.Kind, vals func() []T, at func(k int) T) error {
	for r := 0; r < len(dst); {
		n, err := c.Run(len(dst) - r)
		if err != nil {
			return err
		}
		h, out := has[r:r+n], dst[r:r+n]
		if c.Defs == nil {
			for i := range h {
				h[i] = true
			}
		} else {
			for i, d := range c.Defs[c.I : c.I+n] {
				h[i] = d == c.MaxDef
			}
		}
		switch {
		case c.Kind != kind:
			var zero T
			for i := range out {
				out[i] = zero
				if k, ok := c.Take(); ok {
					out[i] = at(k)
				}
			}
		case c.Idx != nil:
			dictRun(c, out, vals())
		default:
			plainRun(c, out, vals())
		}
		r += n
	}
	return nil
}
