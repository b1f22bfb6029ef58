package sqlite

import (
	"encoding/binary"
	"math"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
)

// maxChunkLines is the most lines a chunk may claim, which bounds what a corrupt one makes the
// decoder allocate.
const maxChunkLines = costChunkLines

// scanDict rebuilds the dictionary of each import scanned from its chunks' strings blobs.
type scanDict struct {
	importID int64
	strs     []string
	gen      int // counts the dictionaries started
}

// add adds the strings blob of the next chunk of import importID. A new import or a chunk that
// starts the dictionary afresh gets a new slice: decoded chunks still hold the old one.
func (sd *scanDict) add(importID int64, b []byte) error {
	if len(b) < 1 || b[0] > 1 {
		return errCorruptChunk
	}
	if importID != sd.importID || b[0] == 1 || sd.gen == 0 {
		sd.importID, sd.strs = importID, nil
		sd.gen++
	}
	k, i := uv(b, 1)
	if i < 0 || k > uint64(len(b)) {
		return errCorruptChunk
	}
	lens := i
	total := uint64(0)
	for range k {
		var l uint64
		if l, i = uv(b, i); i < 0 || l > uint64(len(b)) {
			return errCorruptChunk
		}
		total += l
	}
	if total != uint64(len(b)-i) {
		return errCorruptChunk
	}
	heap := string(b[i:])
	sd.strs = slices.Grow(sd.strs, int(k))
	hp := 0
	for range k {
		l, next := uv(b, lens)
		lens = next
		sd.strs = append(sd.strs, heap[hp:hp+int(l)])
		hp += int(l)
	}
	return nil
}

// chunkDecoder holds one cost chunk decoded (see costs_codec.go): each column's values, the
// import's dictionary as of the chunk, and which lines a scan passes on. Its buffers are kept
// from chunk to chunk.
type chunkDecoder struct {
	n      int
	blob   []byte               // the data blob, during decode only
	dict   []string             // the import's dictionary
	gen    int                  // the dictionary's scanDict.gen
	colOff [numCostCols + 1]int // column c is blob[colOff[c]:colOff[c+1]]
	vals   [numValueCols][]int64
	consts [numValueCols]bool // the column holds one value
	maps   [numMapCols]mapDecoded
	sel    []int32 // the lines to pass on
	ids    []uint32
	dvals  []int64
}

// mapDecoded is a decoded map column: its distinct maps, built when a line passed on holds them,
// and each line's index into them.
type mapDecoded struct {
	spans [][2]int // each map's key and value indexes, in turn, are kv[from:to]; from is -1 for a nil map
	kv    []uint32
	built []map[string]string
	ids   []uint32
}

// parse reads the data blob's header and checks that its columns lie within it.
func (d *chunkDecoder) parse(blob []byte, dict []string) error {
	if len(blob) < 9 || blob[0] != CostChunkFormat {
		return errCorruptChunk
	}
	n, i := uv(blob, 1)
	if i < 0 || n > maxChunkLines {
		return errCorruptChunk
	}
	d.colOff[0] = 0
	for c := range numCostCols {
		var l uint64
		if l, i = uv(blob, i); i < 0 || l > uint64(len(blob)) {
			return errCorruptChunk
		}
		d.colOff[c+1] = d.colOff[c] + int(l)
	}
	for c := range d.colOff {
		d.colOff[c] += i
	}
	if d.colOff[numCostCols]+8 != len(blob) {
		return errCorruptChunk
	}
	d.n, d.blob, d.dict = int(n), blob, dict
	return nil
}

// decodeValues decodes value column c, checking that a string column's indexes are in the
// dictionary.
func (d *chunkDecoder) decodeValues(c int) error {
	if err := d.decodeInts(c); err != nil {
		return err
	}
	if c >= numStrCols {
		return nil
	}
	vs := d.vals[c]
	if d.consts[c] && d.n > 0 {
		vs = vs[:1]
	}
	for _, v := range vs {
		if uint64(v) >= uint64(len(d.dict)) {
			return errCorruptChunk
		}
	}
	return nil
}

// decodeMaps decodes map column c (0 to numMapCols-1).
func (d *chunkDecoder) decodeMaps(c int) error {
	m := &d.maps[c]
	b := d.blob[d.colOff[numValueCols+c]:d.colOff[numValueCols+c+1]]
	k, i := uv(b, 0)
	if i < 0 || k > uint64(max(d.n, 1)) {
		return errCorruptChunk
	}
	m.spans, m.kv = m.spans[:0], m.kv[:0]
	for range k {
		var pairs uint64
		if pairs, i = uv(b, i); i < 0 || pairs > uint64(len(b)) {
			return errCorruptChunk
		}
		if pairs == 0 {
			m.spans = append(m.spans, [2]int{-1, -1})
			continue
		}
		from := len(m.kv)
		for range 2 * (pairs - 1) {
			var id uint64
			if id, i = uv(b, i); i < 0 || id >= uint64(len(d.dict)) {
				return errCorruptChunk
			}
			m.kv = append(m.kv, uint32(id))
		}
		m.spans = append(m.spans, [2]int{from, len(m.kv)})
	}
	m.built = append(m.built[:0], make([]map[string]string, len(m.spans))...)
	var err error
	m.ids, err = d.readIDs(m.ids, b, i, len(m.spans))
	return err
}

// readIDs reads the indexes into a dictionary of k entries that end column b at i into ids[:n].
// A dictionary of one entry or none has no indexes.
func (d *chunkDecoder) readIDs(ids []uint32, b []byte, i, k int) ([]uint32, error) {
	if k <= 1 {
		if i != len(b) || (k == 0 && d.n > 0) {
			return ids, errCorruptChunk
		}
		return ids, nil
	}
	if i >= len(b) {
		return ids, errCorruptChunk
	}
	w := int(b[i])
	b = b[i+1:]
	if w < 1 || w > 4 || len(b) != d.n*w {
		return ids, errCorruptChunk
	}
	ids = grow(ids, d.n)
	var top uint32
	switch w {
	case 1:
		for j, c := range b {
			ids[j] = uint32(c)
			top = max(top, uint32(c))
		}
	case 2:
		for j := range ids {
			ids[j] = uint32(binary.LittleEndian.Uint16(b[2*j:]))
			top = max(top, ids[j])
		}
	default:
		for j := range ids {
			var v uint32
			for x := range w {
				v |= uint32(b[w*j+x]) << (8 * x)
			}
			ids[j] = v
			top = max(top, v)
		}
	}
	if int(top) >= k {
		return ids, errCorruptChunk
	}
	return ids, nil
}

// grow returns s resized to n, reusing its array when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// decodeInts decodes value column c into d.vals[c].
func (d *chunkDecoder) decodeInts(c int) error {
	off, end := d.colOff[c], d.colOff[c+1]
	dst := grow(d.vals[c], d.n)
	d.vals[c] = dst
	if off >= end {
		return errCorruptChunk
	}
	b, i := d.blob, off+1
	d.consts[c] = b[off] == intConst
	switch b[off] {
	case intConst:
		var v int64
		if v, i = sv(b, i); i < 0 {
			return errCorruptChunk
		}
		for j := range dst {
			dst[j] = v
		}
	case intPacked:
		i = unpack(dst, b, i, end)
	case intDelta:
		if d.n == 0 {
			return errCorruptChunk
		}
		if dst[0], i = sv(b, i); i < 0 {
			return errCorruptChunk
		}
		if i = unpack(dst[1:], b, i, end); i >= 0 {
			for j := 1; j < len(dst); j++ {
				dst[j] += dst[j-1]
			}
		}
	case intDict:
		i = d.decodeIntDict(dst, i, end)
	default:
		return errCorruptChunk
	}
	if i != end {
		return errCorruptChunk
	}
	return nil
}

// decodeIntDict decodes an intDict column after its mode byte at i into dst and returns the
// offset after it, -1 if it is corrupt.
func (d *chunkDecoder) decodeIntDict(dst []int64, i, end int) int {
	k, i := uv(d.blob, i)
	if i < 0 || k < 2 || k > maxDictIDs {
		return -1
	}
	d.dvals = grow(d.dvals, int(k))
	if i = unpack(d.dvals, d.blob, i, end); i < 0 {
		return -1
	}
	var err error
	if d.ids, err = d.readIDs(d.ids, d.blob[:end], i, int(k)); err != nil {
		return -1
	}
	for j, id := range d.ids[:len(dst)] {
		dst[j] = d.dvals[id]
	}
	return end
}

// mapAt returns map column m's map for line i, taking it from shared, or building it there,
// the first time.
func (m *mapDecoded) mapAt(i int, dict []string, shared *sharedMaps) map[string]string {
	id := 0
	if len(m.spans) > 1 {
		id = int(m.ids[i])
	}
	if sp := m.spans[id]; m.built[id] == nil && sp[0] >= 0 {
		m.built[id] = shared.of(m.kv[sp[0]:sp[1]], dict)
	}
	return m.built[id]
}

// sharedMaps keeps the maps a scan built from one dictionary of an import, by their key and
// value indexes, so that the lines of every chunk that hold the same map share one: a reader
// that knows a map by its address (fleet's tagIDs) then knows the lines of a resource across
// chunks, where a map a chunk cost it a lookup a line (docs/architecture.md "Speed of the
// reports"). It forgets them when the dictionary changes, and now and then when a bill holds
// many distinct maps, so that it holds no more than the chunks would.
type sharedMaps struct {
	gen  int // the dictionary's scanDict.gen
	maps map[string]map[string]string
	key  []byte
}

// maxSharedMaps bounds the maps a sharedMaps remembers.
const maxSharedMaps = 1 << 12

// use makes sm answer for the dictionary of generation gen.
func (sm *sharedMaps) use(gen int) {
	if sm.gen != gen || len(sm.maps) >= maxSharedMaps {
		sm.gen, sm.maps = gen, nil
	}
}

// of returns the map of the key and value indexes kv into dict (pairs, in turn).
func (sm *sharedMaps) of(kv []uint32, dict []string) map[string]string {
	sm.key = sm.key[:0]
	for _, id := range kv {
		sm.key = binary.LittleEndian.AppendUint32(sm.key, id)
	}
	if mp, ok := sm.maps[string(sm.key)]; ok {
		return mp
	}
	mp := make(map[string]string, len(kv)/2)
	for j := 0; j < len(kv); j += 2 {
		mp[dict[kv[j]]] = dict[kv[j+1]]
	}
	if sm.maps == nil {
		sm.maps = map[string]map[string]string{}
	}
	sm.maps[string(sm.key)] = mp
	return mp
}

// emit calls fn for each line passed on, in l. Columns that hold one value in the chunk are set
// once in a template that each line starts from, so that fn may change the line it is given.
// The tag and extra maps are shared with the chunks before that built the same ones.
func (d *chunkDecoder) emit(l *gpucost.CostLine, shared *[numMapCols]sharedMaps, fn func(*gpucost.CostLine) error) error {
	if len(d.sel) == 0 {
		return nil
	}
	for c := range shared {
		shared[c].use(d.gen)
	}
	var tmpl gpucost.CostLine
	var varying [numStrCols]int
	nv := 0
	for c, p := range strFields(&tmpl) {
		if d.consts[c] {
			*p = d.dict[d.vals[c][0]]
		} else {
			varying[nv], nv = c, nv+1
		}
	}
	tags, extra := &d.maps[mapTags], &d.maps[mapExtra]
	tagsVary, extraVary := len(tags.spans) > 1, len(extra.spans) > 1
	if !tagsVary {
		tmpl.Tags = tags.mapAt(0, d.dict, &shared[mapTags])
	}
	if !extraVary {
		tmpl.Extra = extra.mapAt(0, d.dict, &shared[mapExtra])
	}
	fields, v, dict := strFields(l), d.vals[numStrCols:], d.dict
	for _, i := range d.sel {
		*l = tmpl
		for _, c := range varying[:nv] {
			*fields[c] = dict[d.vals[c][i]]
		}
		if tagsVary {
			l.Tags = tags.mapAt(int(i), dict, &shared[mapTags])
		}
		if extraVary {
			l.Extra = extra.mapAt(int(i), dict, &shared[mapExtra])
		}
		start := v[intStartSec][i]
		l.BillingPeriodStart = time.Unix(v[intBillingSec][i], v[intBillingNano][i]).UTC()
		l.ChargePeriodStart = time.Unix(start, v[intStartNano][i]).UTC()
		l.ChargePeriodEnd = time.Unix(start+v[intEndDelta][i], v[intEndNano][i]).UTC()
		l.BilledCost.Nanos, l.EffectiveCost.Nanos = v[intBilled][i], v[intEffective][i]
		l.ListCost.Nanos, l.ContractedCost.Nanos = v[intList][i], v[intContracted][i]
		l.ConsumedQuantity = math.Float64frombits(uint64(v[intConsumedQty][i]))
		l.PricingQuantity = math.Float64frombits(uint64(v[intPricingQty][i]))
		l.Line, l.Rows = int(v[intLine][i]), int(v[intRows][i])
		if err := fn(l); err != nil {
			return err
		}
	}
	return nil
}
