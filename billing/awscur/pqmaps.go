package awscur

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"slices"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
)

// A map column is read a batch at a time, its key and value leaves side by side: the entries of
// the batch's rows become handles (a dictionary index, or a value copied from a plain page), and
// each row is then read from its handles. The product map gives its product_name and
// marketoption values, found where the previous row had them (products share their keys' order)
// or by a scan; the tag maps and flattened tag columns give the row's Labels, cached under a word
// for each of the row's keys and values (tagSets).

// Handles of map entries: a dictionary index (≥ 0), hNull, or hPlain-i for plain value i.
const (
	hNull  = -1
	hPlain = -2
)

// mapBatch holds the entries of a map column for the rows of a batch: row r's are the handles
// keys[start[r]:start[r+1]] and vals[start[r]:start[r+1]]. The handles of a batch that one
// dictionary page holds whole are that page's indexes, not a copy (side.take): the page stays
// loaded until the next batch is read.
type mapBatch struct {
	start      []int32
	keys, vals []int32
	key, val   side
	zeros      []byte // the repetition levels of a page without them
}

// side is one leaf of a map column as the batch read it: its dictionary, the entries interned so
// far, and the values of plain pages.
type side struct {
	own   []int32 // the handles of batches that are not a page's indexes
	dict  parquet.Dictionary
	gen   uint64   // the cursor's Gen of dict
	tab   []string // interned entries of dict, "" until first used
	role  []int8   // for product keys: per entry, the roleOf the key, 0 until known
	plain []byte   // values of plain pages
	off   []int32  // value i is plain[off[2i]:off[2i+1]]
}

// roles of product map keys.
const (
	keyUnknown int8 = iota
	keyOther
	keyName
	keyMarket
)

var errTwoDicts = errors.New("a map column chunk has two dictionaries")

// fillMaps reads the map and flattened tag columns of n rows.
func (pr *pqRow) fillMaps(n int) error {
	for _, m := range pr.maps {
		if err := pr.fillMap(m, n); err != nil {
			return err
		}
	}
	for i, l := range pr.tagCols {
		if _, err := pr.fillTagCol(l, pr.tagVals[i][:n]); err != nil {
			return err
		}
	}
	return nil
}

// fillMap reads the entries of the next n rows of a map column. The key and value leaves repeat
// alike, so they are walked together, a stretch both pages cover at a time; a row starts where
// the repetition level is 0, and the batch stops before row n+1 starts.
func (pr *pqRow) fillMap(m *pqMap, n int) error {
	b := &m.b
	b.start, b.keys, b.vals = b.start[:0], b.key.own[:0], b.val.own[:0]
	b.key.reset()
	b.val.reset()
	k, v := &m.key.cur, &m.value.cur
	for {
		kn, err := k.Run(1 << 30)
		if err == io.EOF && len(b.start) == n {
			break
		} else if err != nil {
			return pr.damaged(m.key, err)
		}
		vn, err := v.Run(1 << 30)
		if err != nil {
			return pr.damaged(m.value, err)
		}
		span := min(kn, vn)
		kr, vr := b.reps(k, span), b.reps(v, span)
		if len(b.keys) == 0 && kr[0] != 0 {
			return pr.damaged(m.key, errPage) // the chunk starts inside a row
		}
		take, rows := rowStarts(kr, n-len(b.start), b.start, len(b.keys))
		b.start = rows
		if !bytes.Equal(kr[:take], vr[:take]) {
			return pr.damaged(m.value, errPage)
		}
		whole := take < span // the batch ends within these pages: no page is loaded before the next
		if b.keys, err = b.key.take(k, b.keys, take, whole); err != nil {
			return pr.damaged(m.key, err)
		}
		if b.vals, err = b.val.take(v, b.vals, take, whole); err != nil {
			return pr.damaged(m.value, err)
		}
		if take < span {
			break
		}
	}
	b.start = append(b.start, int32(len(b.keys)))
	return nil
}

// reps returns the repetition levels of the next n slots of c; a page without them (parquet-go
// leaves them out when every slot starts a row) gets zeros.
func (b *mapBatch) reps(c *cursor, n int) []byte {
	if c.Reps != nil {
		return c.Reps[c.I : c.I+n]
	}
	if len(b.zeros) < n {
		b.zeros = make([]byte, n)
	}
	return b.zeros[:n]
}

// rowStarts appends to starts where rows start in reps (slot base+i for reps[i] == 0), up to max
// rows, and returns how many slots belong to those rows and the rows before: all of reps, or
// those before row max+1 starts. It reads reps eight levels at a time, finding the zeros of a
// word without a branch per level.
func rowStarts(reps []byte, max int, starts []int32, base int) (int, []int32) {
	i := 0
	for ; i+8 <= len(reps); i += 8 {
		for z := zeroBytes(binary.LittleEndian.Uint64(reps[i:])); z != 0; z &= z - 1 {
			k := i + bits.TrailingZeros64(z)>>3
			if max == 0 {
				return k, starts
			}
			starts = append(starts, int32(base+k))
			max--
		}
	}
	for ; i < len(reps); i++ {
		if reps[i] != 0 {
			continue
		}
		if max == 0 {
			return i, starts
		}
		starts = append(starts, int32(base+i))
		max--
	}
	return len(reps), starts
}

// zeroBytes returns the high bit of each byte of w that is zero, and no other bit.
func zeroBytes(w uint64) uint64 {
	const low7 = 0x7f7f7f7f7f7f7f7f
	return ^((w&low7 + low7) | w | low7)
}

// keep remembers dst, a batch's own handles, for the capacity it has grown.
func (s *side) keep(dst []int32) []int32 {
	s.own = dst
	return dst
}

func (s *side) reset() {
	s.plain, s.off = s.plain[:0], s.off[:0]
}

// take appends the handles of the next n slots of c, which its page must have (Run). With whole,
// the batch's handles end with these, so that when they are its first and a dictionary page's
// indexes without nulls, they are the page's indexes themselves, capped so that no append can
// write to the page.
func (s *side) take(c *cursor, dst []int32, n int, whole bool) ([]int32, error) {
	if c.Idx != nil {
		if c.Gen != s.gen || s.dict == nil {
			if s.dict != nil && len(dst) > 0 {
				return nil, errTwoDicts // handles of the batch index the other dictionary
			}
			s.dict, s.gen = c.ChunkDict, c.Gen
			s.tab, s.role = append(s.tab[:0], make([]string, s.dict.Len())...), s.role[:0]
		}
		if c.Defs == nil || bytes.Count(c.Defs[c.I:c.I+n], []byte{c.MaxDef}) == n {
			if whole && len(dst) == 0 {
				dst = c.Idx[c.J : c.J+n : c.J+n]
			} else {
				dst = s.keep(append(dst, c.Idx[c.J:c.J+n]...))
			}
			c.I, c.J = c.I+n, c.J+n
			return dst, nil
		}
	}
	for range n {
		k, ok := c.Take()
		switch {
		case !ok:
			dst = append(dst, hNull)
		case c.Idx != nil:
			dst = append(dst, int32(k))
		default:
			dst = append(dst, int32(hPlain-len(s.off)/2))
			s.off = append(s.off, int32(len(s.plain)))
			s.plain = append(s.plain, c.Bytes(k)...)
			s.off = append(s.off, int32(len(s.plain)))
		}
	}
	return s.keep(dst), nil
}

// bytes returns the value of a handle other than hNull.
func (s *side) bytes(h int32) []byte {
	if h >= 0 {
		return s.dict.Index(h).ByteArray()
	}
	i := 2 * (hPlain - h)
	return s.plain[s.off[i]:s.off[i+1]]
}

// str returns the value of a handle as an interned string, "" for hNull.
func (s *side) str(in *interner, h int32) string {
	switch {
	case h >= 0:
		v := s.tab[h]
		if v == "" {
			v = in.bytes(s.bytes(h))
			s.tab[h] = v
		}
		return v
	case h == hNull:
		return ""
	}
	return in.bytes(s.bytes(h))
}

// keyRole returns the role of a product map key, remembered per dictionary entry.
func (s *side) keyRole(h int32) int8 {
	if h == hNull {
		return keyOther
	}
	if h < 0 {
		return roleOf(s.bytes(h))
	}
	if len(s.role) == 0 {
		s.role = append(s.role, make([]int8, len(s.tab))...)
	}
	r := s.role[h]
	if r == keyUnknown {
		r = roleOf(s.bytes(h))
		s.role[h] = r
	}
	return r
}

// roleOf says which product attribute a key is.
func roleOf(k []byte) int8 {
	switch string(k) {
	case "product_name":
		return keyName
	case "marketoption":
		return keyMarket
	}
	return keyOther
}

// product returns row r's product_name and marketoption. Where the previous row had them is
// tried first; a scan finds them otherwise, the last of a key repeated.
func (m *pqMap) product(in *interner, r int) (name, market string) {
	b := &m.b
	a := int(b.start[r])
	keys, vals := b.keys[a:b.start[r+1]], b.vals[a:b.start[r+1]]
	ni, mi := m.namePos, m.marketPos
	if ni >= len(keys) || b.key.keyRole(keys[ni]) != keyName || mi >= len(keys) || b.key.keyRole(keys[mi]) != keyMarket {
		ni, mi = -1, -1
		for i, h := range keys {
			switch b.key.keyRole(h) {
			case keyName:
				ni = i
			case keyMarket:
				mi = i
			}
		}
		if ni >= 0 && mi >= 0 {
			m.namePos, m.marketPos = ni, mi
		}
	}
	if ni >= 0 {
		name = b.val.str(in, vals[ni])
	}
	if mi >= 0 {
		market = b.val.str(in, vals[mi])
	}
	return name, market
}

// fillTagCol reads the next values of a flattened tag column as interned strings.
func (pr *pqRow) fillTagCol(l *pqLeaf, dst []string) (int, error) {
	if l.conv == cvText {
		if err := l.cur.strings(dst, pr.rd.in, -1); err != nil {
			return -1, pr.damaged(l, err)
		}
		return len(dst), nil
	}
	for r := range dst {
		present, err := l.cur.next()
		if err != nil {
			return -1, pr.damaged(l, err)
		}
		dst[r] = ""
		if present {
			dst[r] = pr.rd.in.bytes(pr.text(l))
		}
	}
	return len(dst), nil
}

// tagSets caches the Labels of a row's tag maps and columns under a key of words (tagKey): for
// each tag map a header naming the map and its dictionaries' generations, then a word for each
// entry whose key and value are dictionary entries, both indexes in one word; an entry with a
// plain key or value takes a marker and a word for each side, a dictionary entry's index and
// generation or a plain value's the address of its interned string. Equal keys are equal tags: a
// generation names one dictionary of one leaf for good, and equal addresses are equal strings
// for as long as the entry keeps the strings alive, so that no other string takes the address.
// A full cache is emptied.
type tagSets struct {
	m       wordTable[tagSet]
	key     []uint64 // the key of the row's tags
	pairs   []tagPair
	plain   []tagPair // the strings whose addresses are in the key, when asked for
	was     []uint64
	last    []uint64 // the previous row's key
	lastSet gpucost.Labels
	hasLast bool
}

type tagSet struct {
	labels gpucost.Labels
	keep   []tagPair
}

// tagPair is a tag of a row: a map entry (of cost_category when cat), or a flattened column's
// value under its key.
type tagPair struct {
	k, v string
	cat  bool
}

// resolveMaps sets row r's product name, market option and Tags from the batch.
func (pr *pqRow) resolveMaps(r int) {
	rd := pr.rd
	if m := pr.product; m != nil {
		name, market := m.product(rd.in, r)
		if rd.plan.index[fProductName] < 0 {
			rd.rec.str[fProductName] = name
		}
		if rd.plan.index[fMarketOption] < 0 {
			rd.rec.str[fMarketOption] = market
		}
	}
	if len(pr.tagMaps) > 0 || len(pr.tagCols) > 0 {
		rd.rec.tags = pr.rowTags(r)
	}
}

// rowTags returns the Labels of row r's tags.
func (pr *pqRow) rowTags(r int) gpucost.Labels {
	ts := &pr.tags
	key := pr.tagKey(r, false)
	if ts.hasLast && slices.Equal(key, ts.last) {
		return ts.lastSet
	}
	h := hashWords(key)
	s, ok := ts.m.get(key, h)
	if !ok {
		s = tagSet{labels: buildTags(pr.rowPairs(r))}
		if !pr.kept(r, key) {
			return s.labels
		}
		s.keep = slices.Clone(ts.plain)
		ts.m.put(key, h, s)
	}
	ts.last, ts.lastSet, ts.hasLast = append(ts.last[:0], key...), s.labels, true
	return s.labels
}

// tagKey returns the key of row r's tags (tagSets): the tag maps' words, then the addresses of
// the flattened tag columns' values. With keep it leaves the strings whose addresses the key
// holds in pr.tags.plain.
func (pr *pqRow) tagKey(r int, keep bool) []uint64 {
	ts, in := &pr.tags, pr.rd.in
	key := ts.key[:0]
	ts.plain = ts.plain[:0]
	for _, m := range pr.tagMaps {
		b := &m.b
		key = mapHeader(key, m.field, b.key.gen, b.val.gen)
		keys, vals := b.keys[b.start[r]:b.start[r+1]], b.vals[b.start[r]:b.start[r+1]]
		vals = vals[:len(keys)]
		for i, kh := range keys {
			switch vh := vals[i]; {
			case kh >= 0 && vh >= 0: // the common case: both indexes in a word, its top bit clear
				key = append(key, uint64(kh)<<32|uint64(vh))
			case kh == hNull || vh == hNull: // an empty or null map, or a null value
			default:
				key = append(key, wordMixed, ts.word(&b.key, in, kh, keep), ts.word(&b.val, in, vh, keep))
			}
		}
	}
	if len(pr.tagCols) > 0 {
		key = append(key, encTagCol)
		for i := range pr.tagCols {
			v := pr.tagVals[i][r]
			key = append(key, addr(v))
			if keep && v != "" {
				ts.plain = append(ts.plain, tagPair{v: v})
			}
		}
	}
	ts.key = key
	return key
}

// Marker words of a tag set's key, told from an entry's word by the top bit: a map's header
// (wordHeader, the field in bits 55–60, its key and value dictionaries' generations below when
// both fit 27 bits, else with wordBigGen in two words after it), an entry with a plain side
// (wordMixed), and the flattened tag columns (encTagCol).
const (
	_          = uint(62 - numFields) // every field fits a header
	wordMixed  = uint64(1) << 63
	wordHeader = uint64(3) << 62
	wordBigGen = uint64(1) << 61
	genBits    = 27
	encTagCol  = wordHeader | 63<<55 // no field is 63
)

// mapHeader appends the header of a tag map's entries.
func mapHeader(key []uint64, f field, kg, vg uint64) []uint64 {
	h := wordHeader | uint64(f)<<55
	if kg < 1<<genBits && vg < 1<<genBits {
		return append(key, h|kg<<genBits|vg)
	}
	return append(key, h|wordBigGen, kg, vg)
}

// kept makes the key of row r's tags again, keeping its strings, and reports whether it is key:
// a string interned anew between the two (the interner empties when full) has another address,
// and a key whose strings are not kept must not be cached.
func (pr *pqRow) kept(r int, key []uint64) bool {
	was := append(pr.tags.was[:0], key...)
	pr.tags.was = was
	return slices.Equal(pr.tagKey(r, true), was)
}

// word returns the key word of a handle of s other than hNull: for a dictionary entry its index
// and its dictionary's generation, with the top bit set; for a plain value the address of its
// interned string, which with keep is left in ts.plain.
func (ts *tagSets) word(s *side, in *interner, h int32, keep bool) uint64 {
	if h >= 0 {
		return 1<<63 | s.gen<<32 | uint64(h)
	}
	v := s.str(in, h)
	if keep {
		ts.plain = append(ts.plain, tagPair{v: v})
	}
	return addr(v)
}

// rowPairs returns row r's tags in the order their keys win: the tag maps' entries, then the
// flattened tag columns' values that are not empty.
func (pr *pqRow) rowPairs(r int) []tagPair {
	ts, in := &pr.tags, pr.rd.in
	ts.pairs = ts.pairs[:0]
	for _, m := range pr.tagMaps {
		b := &m.b
		for i := b.start[r]; i < b.start[r+1]; i++ {
			kh, vh := b.keys[i], b.vals[i]
			if kh != hNull && vh != hNull {
				ts.pairs = append(ts.pairs, tagPair{b.key.str(in, kh), b.val.str(in, vh), m.field == mCostCategory})
			}
		}
	}
	for i := range pr.tagCols {
		if v := pr.tagVals[i][r]; v != "" {
			ts.pairs = append(ts.pairs, tagPair{k: pr.tagKeys[i], v: v})
		}
	}
	return ts.pairs
}

// buildTags makes the Labels of a row's tags; nil when there are none. The first of a key wins:
// resource tags come first, so they win over the same keys in the tags column; cost categories
// take costCategory/ keys.
func buildTags(pairs []tagPair) gpucost.Labels {
	if len(pairs) == 0 {
		return nil
	}
	l := make(gpucost.Labels, len(pairs))
	for _, p := range pairs {
		k := p.k
		if p.cat {
			k = costCategoryKey(k)
		}
		if _, dup := l[k]; !dup {
			l[k] = p.v
		}
	}
	return l
}

// addr returns the address of a string's bytes; 0 for "".
func addr(s string) uint64 { return uint64(uintptr(unsafe.Pointer(unsafe.StringData(s)))) }
