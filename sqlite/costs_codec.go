package sqlite

import (
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
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

// importDict numbers the distinct strings of one import in order of first use.
type importDict struct {
	maxStrings uint32 // maxImportStrings unless set (tests set fewer)
	ids        map[string]uint32
	n          uint32
	fresh      []string // added since the last chunk was written
	freshBytes int
	reset      bool // the chunk being gathered starts the dictionary afresh
}

func (d *importDict) id(s string) uint32 {
	if id, ok := d.ids[s]; ok {
		return id
	}
	if d.ids == nil {
		d.ids = map[string]uint32{}
	}
	id := d.n
	d.ids[s] = id
	d.n++
	d.fresh = append(d.fresh, s)
	d.freshBytes += len(s)
	return id
}

// appendFresh appends the strings blob of the chunk being written to b[:0] and forgets them.
func (d *importDict) appendFresh(b []byte) []byte {
	flags := byte(0)
	if d.reset {
		flags = 1
	}
	b = binary.AppendUvarint(append(b[:0], flags), uint64(len(d.fresh)))
	for _, s := range d.fresh {
		b = binary.AppendUvarint(b, uint64(len(s)))
	}
	b = appendStrings(b, d.fresh)
	d.fresh, d.freshBytes, d.reset = d.fresh[:0], 0, false
	return b
}

// restartIfFull starts the dictionary afresh, between chunks, once it holds maxImportStrings.
func (d *importDict) restartIfFull() bool {
	if d.n < cmp.Or(d.maxStrings, maxImportStrings) {
		return false
	}
	clear(d.ids)
	d.n, d.reset = 0, true
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

// chunkEncoder gathers the columns of one chunk of lines, numbering strings in its import's
// dictionary.
type chunkEncoder struct {
	maxLines int // costChunkLines unless set (tests set fewer)
	dict     importDict
	n        int
	minStart int64
	maxStart int64
	cols     [numValueCols][]int64 // the string columns' dictionary indexes, then the integer columns
	recent   [numStrCols]recentStrings
	maps     [numMapCols]mapColumn
	distinct map[int64]uint32 // scratch for integer columns' dictionaries
	dictVals []int64
	dictIDs  []uint32
	out      []byte // the columns' bytes, while encoding
	colEnds  [numCostCols]int
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
	e.maps[mapTags].add(l.Tags, &e.dict)
	e.maps[mapExtra].add(l.Extra, &e.dict)
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

// encode appends the chunk's strings blob to strs[:0] and its data blob to data[:0], and empties
// the chunk for the next, keeping its buffers.
func (e *chunkEncoder) encode(strs, data []byte) ([]byte, []byte) {
	e.out = e.out[:0]
	col := 0
	for c := range e.cols {
		e.out = e.appendInts(e.out, e.cols[c])
		e.colEnds[col], col = len(e.out), col+1
	}
	for c := range e.maps {
		e.out = e.maps[c].encode(e.out)
		e.colEnds[col], col = len(e.out), col+1
	}
	data = binary.AppendUvarint(append(data[:0], CostChunkFormat), uint64(e.n))
	prev := 0
	for _, end := range e.colEnds {
		data = binary.AppendUvarint(data, uint64(end-prev))
		prev = end
	}
	data = append(append(data, e.out...), make([]byte, 8)...)
	strs = e.dict.appendFresh(strs)

	e.n = 0
	for c := range e.cols {
		e.cols[c] = e.cols[c][:0]
	}
	for c := range e.maps {
		e.maps[c].reset()
	}
	if e.dict.restartIfFull() {
		e.recent = [numStrCols]recentStrings{}
	}
	return strs, data
}

// mapColumn is one map column of a chunk (Tags or Extra): a dictionary of distinct maps.
type mapColumn struct {
	byText  map[string]uint32   // a map's canonical text (see setText) → its index
	byPtr   map[uintptr]seenMap // the maps seen in this chunk, by identity
	sets    [][]uint32          // each map's keys and values in turn, keys sorted; nil for a nil map
	ids     []uint32
	text    []byte
	scratch []string
}

// seenMap is a map seen before, with a copy to check that it has not changed since.
type seenMap struct {
	copy map[string]string
	id   uint32
}

// add appends m. Lines may share maps, so a map seen before is recognised by identity, then
// checked against a copy of what it held.
func (c *mapColumn) add(m map[string]string, dict *importDict) {
	var p uintptr
	if m != nil {
		p = reflect.ValueOf(m).Pointer()
		if s, ok := c.byPtr[p]; ok && maps.Equal(s.copy, m) {
			c.ids = append(c.ids, s.id)
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
		id = uint32(len(c.sets))
		c.byText[string(c.text)] = id
		var kv []uint32
		if m != nil {
			kv = make([]uint32, 0, 2*len(m))
			for _, k := range c.scratch {
				kv = append(kv, dict.id(k), dict.id(m[k]))
			}
		}
		c.sets = append(c.sets, kv)
	}
	if m != nil {
		c.byPtr[p] = seenMap{copy: maps.Clone(m), id: id}
	}
	c.ids = append(c.ids, id)
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
	c.sets, c.ids = c.sets[:0], c.ids[:0]
}

// encode appends the column to b.
func (c *mapColumn) encode(b []byte) []byte {
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
