package awscur

import (
	"bytes"
	"encoding/binary"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

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

// str returns the current byte array value as an interned string.
func (c *cursor) str(in *interner, f field) string {
	if c.Idx == nil {
		return in.field(f, c.Bytes(c.K))
	}
	return c.dictString(in, c.K)
}

// dictString returns dictionary entry k as an interned string, interning it on first use.
func (c *cursor) dictString(in *interner, k int) string {
	if c.strGen != c.Gen {
		c.dictStr, c.strGen = append(c.dictStr[:0], make([]string, c.ChunkDict.Len())...), c.Gen
	}
	s := c.dictStr[k]
	if s == "" {
		s = in.bytes(c.Bytes(k))
		c.dictStr[k] = s
	}
	return s
}

func (c *cursor) int64Val() int64 { return c.Int(c.K) }

func (c *cursor) int32Val() int32 { return c.I32[c.K] }

func (c *cursor) doubleVal() float64 { return c.F64[c.K] }

func (c *cursor) floatVal() float32 { return c.F32[c.K] }

func (c *cursor) int96Val() deprecated.Int96 { return c.I96[c.K] }

// strings fills dst with the next values as interned strings, "" for nulls.
func (c *cursor) strings(dst []string, in *interner, f field) error {
	for r := range dst {
		if c.I >= c.N {
			if err := c.Load(); err != nil {
				return err
			}
		}
		k, present := c.Take()
		switch {
		case !present:
			dst[r] = ""
		case c.Idx == nil:
			dst[r] = in.field(f, c.Bytes(k))
		case c.strGen == c.Gen && c.dictStr[k] != "":
			dst[r] = c.dictStr[k]
		default:
			dst[r] = c.dictString(in, k)
		}
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
		if c.I >= c.N {
			if err := c.Load(); err != nil {
				return err
			}
		}
		k, present := c.Take()
		if !present {
			dst[r], ok[r] = zero, false
			continue
		}
		c.K = k
		dst[r], ok[r] = val(), true
	}
	return nil
}

// appendHandle appends the current value to a cache key: its dictionary index where the page
// has a dictionary, else its bytes.
func (c *cursor) appendHandle(b []byte) []byte {
	if c.Idx != nil {
		return binary.LittleEndian.AppendUint32(append(b, 1), uint32(c.K))
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
		if len(buf) < 5 || c.ChunkDict == nil {
			return nil, nil, false
		}
		x := int32(binary.LittleEndian.Uint32(buf[1:]))
		if x < 0 || int(x) >= c.ChunkDict.Len() {
			return nil, nil, false
		}
		return c.ChunkDict.Index(x).ByteArray(), buf[5:], true
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
		if c.I >= c.N {
			if err := c.Load(); err != nil {
				if err == io.EOF && !first {
					return ents, arena, nil
				}
				return nil, nil, err
			}
		}
		if !first && (c.Reps == nil || c.Reps[c.I] == 0) {
			return ents, arena, nil
		}
		k, present := c.Take()
		c.K = k
		switch {
		case !present:
			ents = append(ents, ent{idx: entNull})
		case c.Idx != nil:
			ents = append(ents, ent{idx: int32(k)})
		default:
			b := c.Bytes(k)
			ents = append(ents, ent{idx: entBytes, off: int32(len(arena)), n: int32(len(b))})
			arena = append(arena, b...)
		}
	}
}

// entBytesOf returns the bytes of an entry row returned.
func (c *cursor) entBytesOf(e ent, arena []byte) []byte {
	if e.idx >= 0 {
		return c.ChunkDict.Index(e.idx).ByteArray()
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
	if c.I >= c.N || c.Idx == nil || c.Reps == nil {
		return nil, false
	}
	j := bytes.IndexByte(c.Reps[c.I+1:], 0)
	if j < 0 {
		return nil, false // the row may go on in the next page
	}
	k := j + 1
	if c.Defs != nil && bytes.Count(c.Defs[c.I:c.I+k], []byte{c.MaxDef}) != k {
		return nil, false
	}
	idx := c.Idx[c.J : c.J+k]
	c.I += k
	c.J += k
	c.K = int(idx[k-1])
	return idx, true
}
