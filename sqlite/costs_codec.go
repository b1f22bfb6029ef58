package sqlite

import (
	"cmp"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"math"
	"reflect"
	"slices"
	"unsafe"

	"github.com/gpucost/gpucost"
)

// The lines of an import are stored in chunks of up to costChunkLines, column by column, so that
// a scan decodes each column in a tight loop and sets on the reused line only what changes. A
// chunk is two blobs, strings and data:
//
//	strings  = flags(1) k len×k bytes     the k strings this chunk adds to the import's dictionary;
//	                                      flags bit 0: the dictionary starts afresh with them
//	data     = format(1) n colLen×numCostCols column×numCostCols zero×8
//	strCol   = intCol                     each line's index into the import's dictionary
//	intCol   = mode …                     the n values of an integer column (see below)
//	mapCol   = k set×k [w id×n]           a dictionary of the chunk's k distinct maps and, when
//	                                      k > 1, each line's index into it, w bytes each
//	set      = pairs+1 (key value)×pairs  0 for a nil map; keys sorted, as dictionary indexes
//
// The import's dictionary numbers its distinct strings in order of first use; a scan rebuilds it
// chunk by chunk from the strings blobs, so a resource id is stored once per import however many
// days bill it. To bound memory it starts afresh, between chunks, once it holds
// maxImportStrings. The numbers n, colLen, k, len, pairs and the indexes in a set are unsigned
// varints.
//
// Integer columns pick the smallest of four modes; "packed" is a base (zig-zag varint), a width w
// of 0 to 8 bytes and each value's offset from the base in w bytes, little-endian, which the
// decoder reads with one load and a mask (the eight zero bytes that end data make that load safe
// anywhere in it):
//
//	intConst   v                          every line holds v
//	intPacked  packed×n                   frame of reference
//	intDelta   first packed×(n-1)         the differences between successive lines, packed
//	intDict    k packed×k w id×n          a dictionary of k values and each line's index into it
//
// Times are two integer columns, Unix seconds and nanoseconds (the zero time is second
// -62135596800); ChargePeriodEnd's seconds are stored as the difference from ChargePeriodStart's.
// Quantities are stored as their IEEE 754 bits. Every field of a CostLine round-trips exactly;
// times come back in UTC.
const CostChunkFormat = 2

// Chunk limits: a chunk ends at costChunkLines lines or once the strings it adds pass
// costChunkStrings bytes, so that writing holds one chunk in memory however many lines an import
// has, besides the import's dictionary of at most maxImportStrings.
const (
	costChunkLines   = 8192
	costChunkStrings = 4 << 20
	maxImportStrings = 1 << 18
	maxDictIDs       = 1 << 16 // the most entries an integer column's own dictionary may hold
)

// The string columns, in order: the string fields of a CostLine, then its amounts' currencies.
const (
	colProvider = iota
	colBillingAccount
	colSubAccount
	colChargeCategory
	colChargeClass
	colChargeFrequency
	colPricingCategory
	colCommitmentID
	colCommitmentStatus
	colCommitmentType
	colCommitmentCategory
	colResourceID
	colResourceName
	colResourceType
	colInstanceType
	colServiceName
	colServiceCategory
	colRegion
	colZone
	colSku
	colSkuPrice
	colDescription
	colConsumedUnit
	colPricingUnit
	colBilledCurrency
	colEffectiveCurrency
	colListCurrency
	colContractedCurrency
	numStrCols
)

// strFields returns pointers to l's string columns, in column order.
func strFields(l *gpucost.CostLine) [numStrCols]*string {
	return [numStrCols]*string{&l.Provider, &l.BillingAccountID, &l.SubAccountID,
		&l.ChargeCategory, &l.ChargeClass, &l.ChargeFrequency, &l.PricingCategory,
		&l.CommitmentDiscountID, &l.CommitmentDiscountStatus, &l.CommitmentDiscountType, &l.CommitmentDiscountCategory,
		&l.ResourceID, &l.ResourceName, &l.ResourceType, &l.InstanceType, &l.ServiceName, &l.ServiceCategory,
		&l.RegionID, &l.AvailabilityZone, &l.SkuID, &l.SkuPriceID, &l.ChargeDescription,
		&l.ConsumedUnit, &l.PricingUnit,
		&l.BilledCost.Currency, &l.EffectiveCost.Currency, &l.ListCost.Currency, &l.ContractedCost.Currency}
}

// The integer columns, after the string ones (column numStrCols + intX).
const (
	intBillingSec = iota
	intBillingNano
	intStartSec
	intStartNano
	intEndDelta // ChargePeriodEnd's seconds less ChargePeriodStart's
	intEndNano
	intBilled
	intEffective
	intList
	intContracted
	intConsumedQty // float64 bits
	intPricingQty  // float64 bits
	intLine
	intRows
	numCostInts
)

// intFields puts l's integer columns in v.
func intFields(l *gpucost.CostLine, v *[numCostInts]int64) {
	v[intBillingSec], v[intBillingNano] = l.BillingPeriodStart.Unix(), int64(l.BillingPeriodStart.Nanosecond())
	v[intStartSec], v[intStartNano] = l.ChargePeriodStart.Unix(), int64(l.ChargePeriodStart.Nanosecond())
	v[intEndDelta], v[intEndNano] = l.ChargePeriodEnd.Unix()-v[intStartSec], int64(l.ChargePeriodEnd.Nanosecond())
	v[intBilled], v[intEffective] = l.BilledCost.Nanos, l.EffectiveCost.Nanos
	v[intList], v[intContracted] = l.ListCost.Nanos, l.ContractedCost.Nanos
	v[intConsumedQty] = int64(math.Float64bits(l.ConsumedQuantity))
	v[intPricingQty] = int64(math.Float64bits(l.PricingQuantity))
	v[intLine], v[intRows] = int64(l.Line), int64(l.Rows)
}

// The map columns, after the integer ones.
const (
	mapTags = iota
	mapExtra
	numMapCols
)

// Column counts: the string and integer columns are all stored as integers.
const (
	numValueCols = numStrCols + numCostInts
	numCostCols  = numValueCols + numMapCols
)

var errCorruptChunk = errors.New("corrupt cost chunk")

// importDict numbers the distinct strings of one import in order of first use. It finds them by
// hash in an open-addressed table of 8-byte entries, each the upper half of a string's hash and
// its number + 1, at most three-quarters full: a string new to the import costs one hash and
// mostly one probe, where a map took two lookups, the miss and the insert (a third of the
// time of storing a million distinct lines went to them).
type importDict struct {
	maxStrings uint32 // maxImportStrings unless set (tests set fewer)
	seed       maphash.Seed
	slots      []uint64
	strs       []string // by number
	fresh      []string // added since the last chunk was taken
	freshBytes int
	reset      bool // the chunk being gathered starts the dictionary afresh
}

func (d *importDict) id(s string) uint32 {
	if d.slots == nil {
		d.seed, d.slots = maphash.MakeSeed(), make([]uint64, 1<<10)
	}
	tag := maphash.String(d.seed, s) >> 32
	mask := uint64(len(d.slots) - 1)
	i := tag & mask
	for e := d.slots[i]; e != 0; e = d.slots[i] {
		if e>>32 == tag && d.strs[uint32(e)-1] == s {
			return uint32(e) - 1
		}
		i = (i + 1) & mask
	}
	id := uint32(len(d.strs))
	d.slots[i] = tag<<32 | uint64(id+1)
	d.strs = append(d.strs, s)
	if len(d.strs)*4 > len(d.slots)*3 {
		d.grow()
	}
	d.fresh = append(d.fresh, s)
	d.freshBytes += len(s)
	return id
}

// grow doubles the table.
func (d *importDict) grow() {
	old := d.slots
	d.slots = make([]uint64, 2*len(old))
	mask := uint64(len(d.slots) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := e >> 32 & mask
		for d.slots[i] != 0 {
			i = (i + 1) & mask
		}
		d.slots[i] = e
	}
}

// appendFresh appends the strings blob of chunk c to b[:0].
func (c *chunkCols) appendFresh(b []byte) []byte {
	flags := byte(0)
	if c.reset {
		flags = 1
	}
	b = binary.AppendUvarint(append(b[:0], flags), uint64(len(c.fresh)))
	for _, s := range c.fresh {
		b = binary.AppendUvarint(b, uint64(len(s)))
	}
	return appendStrings(b, c.fresh)
}

// restartIfFull starts the dictionary afresh, between chunks, once it holds maxImportStrings.
func (d *importDict) restartIfFull() bool {
	if uint32(len(d.strs)) < cmp.Or(d.maxStrings, maxImportStrings) {
		return false
	}
	clear(d.slots)
	clear(d.strs)
	d.strs, d.reset = d.strs[:0], true
	return true
}

func appendStrings(b []byte, ss []string) []byte {
	for _, s := range ss {
		b = append(b, s...)
	}
	return b
}

// recentStrings remembers strings of one column by the address of their bytes, and their
// dictionary indexes. Lines mostly share their strings (readers and the billing aggregator hand
// out the same string for the same value), so most lookups end here, with no hashing; a string
// not found by address is looked up in the import's dictionary. The cache holds its strings, so
// an address cannot be reused for other bytes while it is cached.
type recentStrings struct {
	s     [64]string
	id    [64]uint32
	empty uint32 // the index of "", plus one; 0 if not known
}

func recentSlot(s string) int { return int(uintptr(unsafe.Pointer(unsafe.StringData(s)))>>4) & 63 }

func (r *recentStrings) find(s string) (uint32, bool) {
	if len(s) == 0 {
		return r.empty - 1, r.empty > 0
	}
	k := recentSlot(s)
	if c := r.s[k]; len(c) == len(s) && unsafe.StringData(c) == unsafe.StringData(s) {
		return r.id[k], true
	}
	return 0, false
}

func (r *recentStrings) put(s string, id uint32) {
	if len(s) == 0 {
		r.empty = id + 1
		return
	}
	k := recentSlot(s)
	r.s[k], r.id[k] = s, id
}

// chunkCols is one chunk's lines column by column, as gathered: all that encoding the chunk
// reads. Gathering numbers the lines' strings in the import's dictionary, so it goes one line
// after another; a chunk gathered is encoded and written while the next is gathered
// (costs_write.go).
type chunkCols struct {
	n        int
	minStart int64
	maxStart int64
	cols     [numValueCols][]int64 // the string columns' dictionary indexes, then the integer columns
	sets     [numMapCols]mapSets
	fresh    []string // the strings the chunk adds to the import's dictionary
	reset    bool     // the chunk starts the dictionary afresh
}

// mapSets is a map column of a chunk: its distinct maps and each line's index into them.
type mapSets struct {
	sets [][]uint32 // each map's keys and values in turn, keys sorted; nil for a nil map
	ids  []uint32
}

// empty empties c for another chunk, keeping its buffers.
func (c *chunkCols) empty() {
	c.n, c.fresh, c.reset = 0, c.fresh[:0], false
	for i := range c.cols {
		c.cols[i] = c.cols[i][:0]
	}
	for i := range c.sets {
		c.sets[i].sets, c.sets[i].ids = c.sets[i].sets[:0], c.sets[i].ids[:0]
	}
}

// reserve makes room in c's columns for a chunk of lines, so that they never grow: a writer's
// chunks are made once (at most three, about 3 MB each) and reused.
func (c *chunkCols) reserve(lines int) {
	for i := range c.cols {
		c.cols[i] = slices.Grow(c.cols[i][:0], lines)
	}
}

// chunkEncoder gathers the columns of one chunk of lines, numbering strings in its import's
// dictionary.
type chunkEncoder struct {
	chunkCols
	maxLines int // costChunkLines unless set (tests set fewer)
	dict     importDict
	recent   [numStrCols]recentStrings
	maps     [numMapCols]mapColumn
	spare    chunkCols  // what encode takes the chunk into
	coder    colEncoder // what encode encodes with
}

// add appends l to the chunk.
func (e *chunkEncoder) add(l *gpucost.CostLine) {
	for c, p := range strFields(l) {
		s := *p
		id, ok := e.recent[c].find(s)
		if !ok {
			id = e.dict.id(s)
			e.recent[c].put(s, id)
		}
		e.cols[c] = append(e.cols[c], int64(id))
	}
	var v [numCostInts]int64
	intFields(l, &v)
	for c := range v {
		e.cols[numStrCols+c] = append(e.cols[numStrCols+c], v[c])
	}
	e.maps[mapTags].add(l.Tags, &e.dict, &e.sets[mapTags])
	e.maps[mapExtra].add(l.Extra, &e.dict, &e.sets[mapExtra])
	if e.n == 0 || v[intStartSec] < e.minStart {
		e.minStart = v[intStartSec]
	}
	if e.n == 0 || v[intStartSec] > e.maxStart {
		e.maxStart = v[intStartSec]
	}
	e.n++
}

// full reports whether the chunk should be written before another line is added.
func (e *chunkEncoder) full() bool {
	return e.n >= cmp.Or(e.maxLines, costChunkLines) || e.dict.freshBytes >= costChunkStrings
}

// take moves the chunk gathered into c, whose buffers gather the next chunk, and starts the
// import's dictionary afresh once it is full.
func (e *chunkEncoder) take(c *chunkCols) {
	c.empty()
	e.chunkCols, *c = *c, e.chunkCols
	c.fresh, e.dict.fresh = e.dict.fresh, c.fresh[:0]
	c.reset = e.dict.reset
	e.dict.freshBytes, e.dict.reset = 0, false
	for i := range e.maps {
		e.maps[i].reset()
	}
	if e.dict.restartIfFull() {
		e.recent = [numStrCols]recentStrings{}
	}
}

// encode appends the chunk's strings blob to strs[:0] and its data blob to data[:0], and empties
// the chunk for the next, keeping its buffers.
func (e *chunkEncoder) encode(strs, data []byte) ([]byte, []byte) {
	e.take(&e.spare)
	return e.coder.encode(&e.spare, strs, data)
}

// colEncoder encodes gathered chunks, keeping its scratch from one to the next.
type colEncoder struct {
	distinct map[int64]uint32 // scratch for integer columns' dictionaries
	dictVals []int64
	dictIDs  []uint32
	out      []byte // the columns' bytes, while encoding
	colEnds  [numCostCols]int
}

// encode appends chunk c's strings blob to strs[:0] and its data blob to data[:0].
func (e *colEncoder) encode(c *chunkCols, strs, data []byte) ([]byte, []byte) {
	e.out = e.out[:0]
	col := 0
	for i := range c.cols {
		e.out = e.appendInts(e.out, c.cols[i])
		e.colEnds[col], col = len(e.out), col+1
	}
	for i := range c.sets {
		e.out = c.sets[i].encode(e.out)
		e.colEnds[col], col = len(e.out), col+1
	}
	data = binary.AppendUvarint(append(data[:0], CostChunkFormat), uint64(c.n))
	prev := 0
	for _, end := range e.colEnds {
		data = binary.AppendUvarint(data, uint64(end-prev))
		prev = end
	}
	data = append(append(data, e.out...), make([]byte, 8)...)
	return c.appendFresh(strs), data
}

// mapColumn numbers the distinct maps of one map column (Tags or Extra) of the chunk being
// gathered.
type mapColumn struct {
	byText  map[string]uint32   // a map's canonical text (see setText) → its index
	byPtr   map[uintptr]seenMap // the maps seen in this chunk, by identity
	text    []byte
	scratch []string
}

// seenMap is a map seen before, with its keys and values as they were, to check that it has
// not changed since.
type seenMap struct {
	kv []string // keys and values in turn
	id uint32
}

// holds reports whether m holds what the map seen held: as many pairs, each of them in m.
func (s *seenMap) holds(m map[string]string) bool {
	if len(m) != len(s.kv)/2 {
		return false
	}
	for i := 0; i < len(s.kv); i += 2 {
		if v, ok := m[s.kv[i]]; !ok || v != s.kv[i+1] {
			return false
		}
	}
	return true
}

// add appends m to out. Lines may share maps, so a map seen before is recognised by identity,
// then checked against what it held.
func (c *mapColumn) add(m map[string]string, dict *importDict, out *mapSets) {
	var p uintptr
	if m != nil {
		p = reflect.ValueOf(m).Pointer()
		if s, ok := c.byPtr[p]; ok && s.holds(m) {
			out.ids = append(out.ids, s.id)
			return
		}
	}
	c.scratch = c.scratch[:0]
	for k := range m {
		c.scratch = append(c.scratch, k)
	}
	slices.Sort(c.scratch)
	c.text = setText(c.text[:0], m, c.scratch)
	id, ok := c.byText[string(c.text)]
	if !ok {
		if c.byText == nil {
			c.byText, c.byPtr = map[string]uint32{}, map[uintptr]seenMap{}
		}
		id = uint32(len(out.sets))
		c.byText[string(c.text)] = id
		var kv []uint32
		if m != nil {
			kv = make([]uint32, 0, 2*len(m))
			for _, k := range c.scratch {
				kv = append(kv, dict.id(k), dict.id(m[k]))
			}
		}
		out.sets = append(out.sets, kv)
	}
	if m != nil {
		kv := make([]string, 0, 2*len(m))
		for _, k := range c.scratch {
			kv = append(kv, k, m[k])
		}
		c.byPtr[p] = seenMap{kv: kv, id: id}
	}
	out.ids = append(out.ids, id)
}

// setText is a canonical text of m, given its keys sorted: 0 for a nil map, else 1 and each key
// and value after its length, so no two maps share one.
func setText(b []byte, m map[string]string, keys []string) []byte {
	if m == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	for _, k := range keys {
		b = append(binary.AppendUvarint(b, uint64(len(k))), k...)
		b = append(binary.AppendUvarint(b, uint64(len(m[k]))), m[k]...)
	}
	return b
}

func (c *mapColumn) reset() {
	clear(c.byText)
	clear(c.byPtr)
}

// encode appends the column to b.
func (c *mapSets) encode(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(len(c.sets)))
	for _, kv := range c.sets {
		if kv == nil {
			b = append(b, 0)
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(kv)/2+1))
		for _, id := range kv {
			b = binary.AppendUvarint(b, uint64(id))
		}
	}
	return appendIDs(b, c.ids, len(c.sets))
}

// appendIDs appends the dictionary indexes ids, of a dictionary of k entries, unless k ≤ 1.
func appendIDs(b []byte, ids []uint32, k int) []byte {
	if k <= 1 {
		return b
	}
	w := byteWidth(uint64(k - 1))
	b = append(b, byte(w))
	for _, id := range ids {
		b = appendFixed(b, uint64(id), w)
	}
	return b
}
