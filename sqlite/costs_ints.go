package sqlite

import (
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
)

// Integer columns: see the chunk format in costs_codec.go.

// Integer column modes.
const (
	intConst = iota
	intPacked
	intDelta
	intDict
)

// byteWidth returns the bytes needed to hold v: 0 for 0.
func byteWidth(v uint64) int { return (bits.Len64(v) + 7) / 8 }

// appendFixed appends the w low bytes of v, little-endian.
func appendFixed(b []byte, v uint64, w int) []byte {
	n := len(b)
	return binary.LittleEndian.AppendUint64(b, v)[:n+w]
}

// appendInts appends the integer column vs to b in whichever mode takes the fewest bytes.
func (e *colEncoder) appendInts(b []byte, vs []int64) []byte {
	if len(vs) == 0 {
		return append(b, intConst, 0)
	}
	lo, hi := slices.Min(vs), slices.Max(vs)
	if lo == hi {
		return binary.AppendVarint(append(b, intConst), lo)
	}
	n := len(vs)
	wRaw := byteWidth(uint64(hi) - uint64(lo))
	mode, size := intPacked, n*wRaw
	dlo, dhi := deltaRange(vs)
	wDelta := byteWidth(uint64(dhi) - uint64(dlo))
	if s := (n-1)*wDelta + 20; s < size {
		mode, size = intDelta, s
	}
	if e.dictionary(vs, size) {
		mode = intDict
	}
	b = append(b, byte(mode))
	switch mode {
	case intPacked:
		b = appendPacked(b, vs, lo, wRaw)
	case intDelta:
		b = binary.AppendVarint(b, vs[0])
		b = binary.AppendVarint(b, dlo)
		b = append(b, byte(wDelta))
		for i := 1; i < n; i++ {
			b = appendFixed(b, uint64(vs[i]-vs[i-1])-uint64(dlo), wDelta)
		}
	case intDict:
		k := len(e.dictVals)
		b = binary.AppendUvarint(b, uint64(k))
		dlo, dhi := slices.Min(e.dictVals), slices.Max(e.dictVals)
		b = appendPacked(b, e.dictVals, dlo, byteWidth(uint64(dhi)-uint64(dlo)))
		b = appendIDs(b, e.dictIDs, k)
	}
	return b
}

// appendPacked appends lo as a varint, the width w and each value's offset from lo in w bytes.
func appendPacked(b []byte, vs []int64, lo int64, w int) []byte {
	b = binary.AppendVarint(b, lo)
	b = append(b, byte(w))
	for _, v := range vs {
		b = appendFixed(b, uint64(v)-uint64(lo), w)
	}
	return b
}

// deltaRange returns the least and the greatest difference between successive values of vs,
// which has at least two.
func deltaRange(vs []int64) (lo, hi int64) {
	lo, hi = vs[1]-vs[0], vs[1]-vs[0]
	for i := 2; i < len(vs); i++ {
		d := vs[i] - vs[i-1]
		lo, hi = min(lo, d), max(hi, d)
	}
	return lo, hi
}

// dictionary reports whether vs takes fewer than limit bytes as a dictionary of its distinct
// values and an index per line; if so, e.dictVals and e.dictIDs hold them.
func (e *colEncoder) dictionary(vs []int64, limit int) bool {
	n := len(vs)
	if n >= limit { // even one byte a line is no better
		return false
	}
	if e.distinct == nil {
		e.distinct = map[int64]uint32{}
	}
	clear(e.distinct)
	e.dictVals, e.dictIDs = e.dictVals[:0], e.dictIDs[:0]
	last, lastID := vs[0]+1, uint32(0)
	for _, v := range vs {
		if v != last {
			id, ok := e.distinct[v]
			if !ok {
				id = uint32(len(e.dictVals))
				if id == maxDictIDs || (id == 256 && 2*n >= limit) {
					return false
				}
				e.distinct[v] = id
				e.dictVals = append(e.dictVals, v)
			}
			last, lastID = v, id
		}
		e.dictIDs = append(e.dictIDs, lastID)
	}
	k := len(e.dictVals)
	dlo, dhi := slices.Min(e.dictVals), slices.Max(e.dictVals)
	return k*byteWidth(uint64(dhi)-uint64(dlo))+n*byteWidth(uint64(k-1))+10 < limit
}

// unpack reads a packed run of len(dst) values at b[i:] (a varint base, a width and the
// offsets) that must end by end, which is at least 8 bytes before the end of b. It returns the
// offset after the run, or -1.
func unpack(dst []int64, b []byte, i, end int) int {
	base, i := sv(b, i)
	if i < 0 || i >= end {
		return -1
	}
	w := int(b[i])
	i++
	if w > 8 || i+len(dst)*w > end {
		return -1
	}
	src := b[i : i+len(dst)*w+8]
	switch w {
	case 0:
		for j := range dst {
			dst[j] = base
		}
	case 1:
		for j, c := range src[:len(dst)] {
			dst[j] = base + int64(c)
		}
	case 2:
		for j := range dst {
			dst[j] = base + int64(binary.LittleEndian.Uint16(src[2*j:]))
		}
	case 4:
		for j := range dst {
			dst[j] = base + int64(binary.LittleEndian.Uint32(src[4*j:]))
		}
	default: // the eight zero bytes at the end of a chunk let every load take eight
		mask := uint64(math.MaxUint64) >> (64 - 8*w)
		for j := range dst {
			dst[j] = base + int64(binary.LittleEndian.Uint64(src[w*j:])&mask)
		}
	}
	return i + len(dst)*w
}

// sv reads a zig-zag varint at i (binary.AppendVarint), as uv.
func sv(b []byte, i int) (int64, int) {
	u, i := uv(b, i)
	return int64(u>>1) ^ -int64(u&1), i
}
