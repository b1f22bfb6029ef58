package billing

import (
	"cmp"
	"encoding/binary"
	"hash/maphash"
	"iter"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost"
)

// Day is the default grain of stored cost lines.
const Day = 24 * time.Hour

// Aggregator sums cost lines that differ only in their amounts and quantities and in which hour
// of one grain (a day, or an hour with --grain hour) they were charged: what a bill holds per
// resource, SKU, pricing category and tag set per day. Lines whose charge period spans more than
// one grain (monthly fees, taxes, commitments bought for a term) keep their own period.
//
// Memory grows with the lines that cannot merge, not with the rows: each distinct line holds
// about 155 bytes (its dimension tuple, 64, held once, whose context — account, categories,
// service, region, units, price — is a number into a table of the few a bill has; its 72-byte cell
// and its entry in the tuples' hash table; BenchmarkAggregatorUnmergeable measures it) plus the
// bytes of the values no earlier line shares — each at most limits.MaxField, a row at most
// limits.MaxLine (billing/internal/limits) — and of its Tags and Extra maps when they are new.
// Readers keep columns outside a format out of Extra unless asked (focus.Options.Extra), so a
// column unique per row cannot make every row a line.
//
// The lines fed to Add must follow the readers' contract: a line's string fields and its Tags and
// Extra maps are not changed after the line is emitted (readers reuse the *CostLine, not the maps
// it points to), so equal maps are recognised by identity before their contents are compared.
type Aggregator struct {
	Grain time.Duration // Day unless set

	ctxs     map[ctxKey]int32 // the distinct contexts, numbered
	ctxList  []ctxKey
	lastCtx  int32                   // the context last looked up, -1 before any
	ctxSlots [1 << ctxSlotBits]int32 // a direct-mapped cache in front of ctxs, by ctxSlot: id+1
	dims     dimTable                // the distinct dimension tuples, by hash
	dimList  [][]dim                 // the distinct dimension tuples, each held once, dimBlock to a block
	ndims    int
	slots    []uint64 // a direct-mapped cache in front of dims, by resource, SKU and tags: hash<<32 | id+1
	seed     maphash.Seed
	tags     mapIDs
	extra    mapIDs
	cells    map[cellKey]int32 // every cell but the dims' recent ones; no pointers, so the collector skips it
	blocks   [][]cell          // the cells, blockSize to a block: growing never copies them
	ncells   int
	holes    int      // cells that hold no line: a merged part's (merge.go)
	sorted   []uint64 // the lines in the order Lines gives, once it is called (order.go): an import reads them twice
	cellBits int      // the bits of an element of sorted that hold its cell
	totals   gpucost.CostTotals
	rows     int
	started  bool
}

// ctxKey is what a stored line keeps that few lines differ in: the account, charge and pricing
// categories, commitment, service, region, units, currency, SKU price and charge description
// (a price's wording, the same for every resource charged at it). A bill holds a handful of them
// however many lines it has, so each dimension tuple refers to its context by number.
type ctxKey struct {
	provider, billingAccount, subAccount         string
	chargeCategory, chargeClass, chargeFrequency string
	pricingCategory                              string
	commitmentID, commitmentStatus               string
	commitmentType, commitmentCategory           string
	resourceType, instanceType                   string
	service, serviceCategory, region, zone       string
	consumedUnit, pricingUnit, currency          string
	skuPrice, description                        string
	billingPeriod                                int64
}

// dimKey is everything a stored line keeps except its period and its sums: its context by
// number, and what tells its resource and SKU apart.
type dimKey struct {
	ctx, tags, extra int32
	resourceID, name string
	sku              string
}

// dim is a distinct dimension tuple, as dimKey, and the cell it was last added to: 64 bytes,
// the cell's index filling what would be dimKey's padding.
type dim struct {
	ctx, tags, extra int32
	recent           int32 // index of the cell last added to, -1 for none
	resourceID, name string
	sku              string
}

// is reports whether d is the tuple k.
func (d *dim) is(k *dimKey) bool {
	return d.ctx == k.ctx && d.sameExceptCtx(k)
}

// sameExceptCtx reports whether d and k are equal but for their contexts.
func (d *dim) sameExceptCtx(k *dimKey) bool {
	return d.resourceID == k.resourceID && d.sku == k.sku && d.tags == k.tags && d.extra == k.extra && d.name == k.name
}

type cellKey struct {
	start, end int64 // unix seconds
	dim        int32
}

// slotBits sizes the slot table in front of the dims table: 65,536 slots (512 KiB) cover the
// resources × SKUs a bill interleaves. Readers share the strings of repeated values between
// lines, so comparing a slot's tuple with a line's is mostly comparing pointers, where hashing
// every field would read them all.
const slotBits = 16

// blockSize is the cells in a block: 4,096 × 72 bytes.
const blockSize = 1 << 12

// dimBlock is the dimension tuples in a block: 1,024 × 64 bytes. Growing a block list never
// copies the tuples, where growing one slice of a million would copy a hundred megabytes.
const dimBlock = 1 << 10

// dimAt returns the i-th dimension tuple.
func (a *Aggregator) dimAt(i int32) *dim { return &a.dimList[i/dimBlock][i%dimBlock] }

// cell returns the i-th cell.
func (a *Aggregator) cell(i int32) *cell { return &a.blocks[i/blockSize][i%blockSize] }

// newCell adds a cell for k and returns its index.
func (a *Aggregator) newCell(k cellKey) int32 {
	if a.ncells%blockSize == 0 {
		a.blocks = append(a.blocks, make([]cell, blockSize))
	}
	i := int32(a.ncells)
	a.ncells++
	c := a.cell(i)
	c.start, c.end, c.dim = k.start, k.end, k.dim
	return i
}

// cell is the sums of one stored line: 72 bytes. Rows counts to 4,294,967,295, more rows than
// a bill of limits.MaxFile bytes can hold (billing/internal/limits).
type cell struct {
	start, end                          int64
	billed, effective, list, contracted int64
	consumed, pricing                   float64
	dim                                 int32
	rows                                uint32
}

// mapIDs numbers distinct maps: first by the identity of the map (readers share one map among
// the lines with the same tags), then by content.
type mapIDs struct {
	byPtr   map[uintptr]ptrEntry
	byText  map[string]int32
	values  []map[string]string
	scratch []string
}

type ptrEntry struct {
	m  map[string]string // held so the address is not reused while cached
	id int32
}

// maxPtrCache bounds the identity cache: readers that allocate a map per line still work, at the
// cost of comparing contents.
const maxPtrCache = 1 << 14

func (ids *mapIDs) id(m map[string]string) int32 {
	if len(m) == 0 {
		return -1
	}
	p := reflect.ValueOf(m).Pointer()
	if e, ok := ids.byPtr[p]; ok {
		return e.id
	}
	text := ids.text(m)
	id, ok := ids.byText[text]
	if !ok {
		if ids.byText == nil {
			ids.byText = map[string]int32{}
		}
		id = int32(len(ids.values))
		ids.byText[text] = id
		ids.values = append(ids.values, m)
	}
	if ids.byPtr == nil || len(ids.byPtr) >= maxPtrCache {
		ids.byPtr = map[uintptr]ptrEntry{}
	}
	ids.byPtr[p] = ptrEntry{m, id}
	return id
}

// text is a canonical form of m: keys sorted, each key and value length-prefixed by a NUL.
func (ids *mapIDs) text(m map[string]string) string {
	ids.scratch = ids.scratch[:0]
	for k := range m {
		ids.scratch = append(ids.scratch, k)
	}
	slices.Sort(ids.scratch)
	b := make([]byte, 0, 64)
	for _, k := range ids.scratch {
		b = append(b, k...)
		b = append(b, 0)
		b = append(b, m[k]...)
		b = append(b, 0)
	}
	return string(b)
}

func (ids *mapIDs) get(id int32) map[string]string {
	if id < 0 {
		return nil
	}
	return ids.values[id]
}

// Add adds a line.
func (a *Aggregator) Add(l *gpucost.CostLine) {
	if !a.started {
		a.start()
	}
	ctx := ctxKey{
		provider: l.Provider, billingAccount: l.BillingAccountID, subAccount: l.SubAccountID,
		chargeCategory: l.ChargeCategory, chargeClass: l.ChargeClass, chargeFrequency: l.ChargeFrequency,
		pricingCategory: l.PricingCategory,
		commitmentID:    l.CommitmentDiscountID, commitmentStatus: l.CommitmentDiscountStatus,
		commitmentType: l.CommitmentDiscountType, commitmentCategory: l.CommitmentDiscountCategory,
		resourceType: l.ResourceType, instanceType: l.InstanceType,
		service: l.ServiceName, serviceCategory: l.ServiceCategory, region: l.RegionID, zone: l.AvailabilityZone,
		consumedUnit: l.ConsumedUnit, pricingUnit: l.PricingUnit, currency: l.BillingCurrency(),
		skuPrice: l.SkuPriceID, description: l.ChargeDescription,
		billingPeriod: l.BillingPeriodStart.Unix(),
	}
	k := dimKey{
		tags: a.tags.id(l.Tags), extra: a.extra.id(l.Extra),
		resourceID: l.ResourceID, name: l.ResourceName, sku: l.SkuID,
	}
	id := a.dim(&ctx, &k)
	start, end := a.period(l.ChargePeriodStart, l.ChargePeriodEnd)
	d := a.dimAt(id)
	c := a.cellOf(d, id, start, end)
	c.billed += l.BilledCost.Nanos
	c.effective += l.EffectiveCost.Nanos
	c.list += l.ListCost.Nanos
	c.contracted += l.ContractedCost.Nanos
	c.consumed += l.ConsumedQuantity
	c.pricing += l.PricingQuantity
	c.rows++
	a.rows++
	a.totals.Add(l.BilledCost, l.EffectiveCost)
}

// cellOf returns the cell of dimension tuple d (numbered id) for [start, end), adding it if
// new. A tuple's recent cell stays out of the cells map until another cell takes its place, so
// a line that merges with no other costs no map entry.
func (a *Aggregator) cellOf(d *dim, id int32, start, end int64) *cell {
	if d.recent >= 0 {
		if c := a.cell(d.recent); c.start == start && c.end == end {
			return c
		}
		old := a.cell(d.recent)
		a.cells[cellKey{old.start, old.end, id}] = d.recent
	}
	ck := cellKey{start, end, id}
	i, ok := a.cells[ck]
	if !ok {
		i = a.newCell(ck)
	}
	d.recent = i
	return a.cell(i)
}

// dim returns the id of the dimension tuple of a line with context ctx and key k (whose ctx is
// not yet set), numbering new ones.
func (a *Aggregator) dim(ctx *ctxKey, k *dimKey) int32 {
	h := maphash.String(a.seed, k.resourceID) ^ maphash.String(a.seed, k.sku)*31 ^ uint64(k.tags)*0x9E3779B97F4A7C15
	sl := &a.slots[h>>(64-slotBits)]
	if *sl != 0 && *sl>>32 == h&0xFFFFFFFF {
		id := int32(uint32(*sl) - 1)
		d := a.dimAt(id)
		if d.sameExceptCtx(k) && a.ctxList[d.ctx] == *ctx {
			return id
		}
	}
	k.ctx = a.ctxID(ctx)
	full := k.hash(a.seed)
	id, ok := a.dims.find(full, func(id int32) bool { return a.dimAt(id).is(k) })
	if !ok {
		if a.ndims%dimBlock == 0 {
			a.dimList = append(a.dimList, make([]dim, dimBlock))
		}
		id = int32(a.ndims)
		a.ndims++
		*a.dimAt(id) = dim{ctx: k.ctx, tags: k.tags, extra: k.extra, recent: -1, resourceID: k.resourceID, name: k.name, sku: k.sku}
		a.dims.insert(full, id)
	}
	*sl = h<<32 | uint64(uint32(id)+1)
	return id
}

// hash returns the hash of k under seed.
func (k *dimKey) hash(seed maphash.Seed) uint64 {
	var h maphash.Hash
	h.SetSeed(seed)
	for _, s := range [...]string{k.resourceID, k.name, k.sku} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	var b [12]byte
	binary.LittleEndian.PutUint32(b[0:], uint32(k.ctx))
	binary.LittleEndian.PutUint32(b[4:], uint32(k.tags))
	binary.LittleEndian.PutUint32(b[8:], uint32(k.extra))
	h.Write(b[:])
	return h.Sum64()
}

// ctxID returns the number of the context c, numbering a new one.
func (a *Aggregator) ctxID(c *ctxKey) int32 {
	if a.lastCtx >= 0 && a.ctxList[a.lastCtx] == *c {
		return a.lastCtx
	}
	sl := &a.ctxSlots[ctxSlot(c)]
	if id := *sl - 1; id >= 0 && a.ctxList[id] == *c {
		a.lastCtx = id
		return id
	}
	id, ok := a.ctxs[*c]
	if !ok {
		id = int32(len(a.ctxList))
		a.ctxList = append(a.ctxList, *c)
		a.ctxs[*c] = id
	}
	a.lastCtx, *sl = id, id+1
	return id
}

// ctxSlotBits sizes the cache in front of the contexts' map: 64 slots hold the contexts a bill
// interleaves (a price's wording and SKU price tell most apart), so that a line whose context
// is not the last one's costs a comparison, where hashing its 22 strings cost about 150 ns.
const ctxSlotBits = 6

// ctxSlot returns c's slot in the cache: readers share the strings of repeated values between
// lines, so the addresses of a few of its strings tell a context from the others a bill has.
func ctxSlot(c *ctxKey) int {
	p := uintptr(unsafe.Pointer(unsafe.StringData(c.description))) ^
		uintptr(unsafe.Pointer(unsafe.StringData(c.skuPrice)))*3 ^
		uintptr(unsafe.Pointer(unsafe.StringData(c.pricingCategory)))*5 ^
		uintptr(unsafe.Pointer(unsafe.StringData(c.chargeCategory)))*7 ^
		uintptr(unsafe.Pointer(unsafe.StringData(c.subAccount)))*11 ^
		uintptr(unsafe.Pointer(unsafe.StringData(c.region)))*13 ^
		uintptr(c.billingPeriod)
	p ^= p >> 17
	return int(p>>4) & (1<<ctxSlotBits - 1)
}

func (a *Aggregator) start() {
	if a.Grain <= 0 {
		a.Grain = Day
	}
	a.ctxs = map[ctxKey]int32{}
	a.lastCtx = -1
	a.cells = map[cellKey]int32{}
	a.slots = make([]uint64, 1<<slotBits)
	a.seed = maphash.MakeSeed()
	a.started = true
}

// period returns the grain that holds [from, to), or the period itself when it spans more.
func (a *Aggregator) period(from, to time.Time) (int64, int64) {
	g := int64(a.Grain / time.Second)
	s, e := from.Unix(), to.Unix()
	b := s - mod(s, g)
	if e <= b+g && e >= s {
		return b, b + g
	}
	return s, e
}

func mod(a, b int64) int64 {
	m := a % b
	if m < 0 {
		m += b
	}
	return m
}

// Rows returns the number of lines added.
func (a *Aggregator) Rows() int { return a.rows }

// Len returns the number of aggregated lines.
func (a *Aggregator) Len() int { return a.ncells - a.holes }

// Totals returns the exact sums of BilledCost and EffectiveCost per currency, by currency.
func (a *Aggregator) Totals() []gpucost.CostTotal { return a.totals.Sorted() }

// Lines returns the aggregated lines ordered by period start, resource and SKU. The *CostLine is
// reused: it is valid until the next one is asked for. Rows says how many lines each sums. Once
// Lines is called, no more lines may be added.
func (a *Aggregator) Lines() iter.Seq[*gpucost.CostLine] {
	if a.sorted == nil {
		a.cells, a.dims, a.ctxs, a.slots = nil, dimTable{}, nil, nil // the lines are final: let the collector have the indexes
		if a.ncells >= collectAt {
			// Storing is when an import holds the most: the lines, their order and the store's
			// chunk. Collecting now sets the collector's next goal by what the lines hold, without
			// the indexes just dropped and the reader's garbage.
			runtime.GC()
		}
		a.sorted = a.order()
	}
	order := a.sorted
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for _, o := range order {
			a.fill(&l, a.cell(a.orderCell(o)))
			if !yield(&l) {
				return
			}
		}
	}
}

// collectAt is the lines from which Lines collects garbage before ordering them: a few
// milliseconds against the tens of megabytes a large import's peak then leaves out.
const collectAt = 1 << 16

// dimRanks returns each dimension tuple's place in the order of resource, SKU and id: the lines'
// order within a period start, so that sorting the lines compares numbers, not strings. Tuples
// with no lines, which a merge leaves (merge.go), come last in the order of their ids. Tuples
// numbered in order already, as a bill sorted by resource numbers them, are not sorted again.
func (a *Aggregator) dimRanks() []int32 {
	if a.ndims >= compactRanksAt {
		return a.dimRanksCompact()
	}
	type entry struct { // 24 bytes: the SKU is read from the tuple when resources tie
		resource string
		id       int32
	}
	es := make([]entry, 0, a.ndims)
	used := a.usedDims(func(i int32) { es = append(es, entry{a.dimAt(i).resourceID, i}) })
	sortUnsorted(es[:used], func(x, y entry) int {
		if c := strings.Compare(x.resource, y.resource); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.dimAt(x.id).sku, a.dimAt(y.id).sku), cmp.Compare(x.id, y.id))
	})
	rank := make([]int32, a.ndims)
	for r, e := range es {
		rank[e.id] = int32(r)
	}
	return rank
}

// usedDims calls add with the number of each tuple that has lines, in order, and then with each
// that has none; it returns how many have lines.
func (a *Aggregator) usedDims(add func(int32)) int {
	used := 0
	for i := range int32(a.ndims) {
		if a.dimAt(i).recent >= 0 {
			add(i)
			used++
		}
	}
	for i := range int32(a.ndims) {
		if a.dimAt(i).recent < 0 {
			add(i)
		}
	}
	return used
}

// sortUnsorted sorts s by compare unless it is in order already: one pass over it, where the
// sort makes many.
func sortUnsorted[E any](s []E, compare func(x, y E) int) {
	if !slices.IsSortedFunc(s, compare) {
		slices.SortFunc(s, compare)
	}
}

// compactRanksAt is the tuples from which dimRanks sorts their numbers alone, 4 bytes a tuple,
// reading each one's resource from the tuple, where the entries hold it (24 bytes): a quarter
// slower, but 200 MB less at 10 M tuples, when ranking is a large import's peak.
var compactRanksAt = 1 << 22

// dimRanksCompact is dimRanks for many tuples.
func (a *Aggregator) dimRanksCompact() []int32 {
	ids := make([]int32, 0, a.ndims)
	used := a.usedDims(func(i int32) { ids = append(ids, i) })
	sortUnsorted(ids[:used], func(x, y int32) int {
		dx, dy := a.dimAt(x), a.dimAt(y)
		return cmp.Or(strings.Compare(dx.resourceID, dy.resourceID), strings.Compare(dx.sku, dy.sku), cmp.Compare(x, y))
	})
	invert(ids)
	return ids
}

// invert turns the permutation p (p[rank] = id) into its inverse (p[id] = rank) in place,
// following each cycle once; an entry done is marked by its bits complemented.
func invert(p []int32) {
	for start := range p {
		if p[start] < 0 {
			continue
		}
		prev, cur := int32(start), p[start]
		for cur != int32(start) {
			next := p[cur]
			p[cur] = ^prev
			prev, cur = cur, next
		}
		p[start] = ^prev
	}
	for i := range p {
		p[i] = ^p[i]
	}
}

func (a *Aggregator) fill(l *gpucost.CostLine, c *cell) {
	d := a.dimAt(c.dim)
	x := &a.ctxList[d.ctx]
	money := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: x.currency} }
	*l = gpucost.CostLine{
		Provider: x.provider, BillingAccountID: x.billingAccount, SubAccountID: x.subAccount,
		BillingPeriodStart: unixTime(x.billingPeriod),
		ChargePeriodStart:  time.Unix(c.start, 0).UTC(), ChargePeriodEnd: time.Unix(c.end, 0).UTC(),
		ChargeCategory: x.chargeCategory, ChargeClass: x.chargeClass, ChargeFrequency: x.chargeFrequency,
		PricingCategory: x.pricingCategory,
		BilledCost:      money(c.billed), EffectiveCost: money(c.effective),
		ListCost: money(c.list), ContractedCost: money(c.contracted),
		CommitmentDiscountID: x.commitmentID, CommitmentDiscountStatus: x.commitmentStatus,
		CommitmentDiscountType: x.commitmentType, CommitmentDiscountCategory: x.commitmentCategory,
		ResourceID: d.resourceID, ResourceName: d.name, ResourceType: x.resourceType,
		InstanceType: x.instanceType, ServiceName: x.service, ServiceCategory: x.serviceCategory,
		RegionID: x.region, AvailabilityZone: x.zone, SkuID: d.sku, SkuPriceID: x.skuPrice,
		ChargeDescription: x.description,
		ConsumedQuantity:  c.consumed, ConsumedUnit: x.consumedUnit,
		PricingQuantity: c.pricing, PricingUnit: x.pricingUnit,
		Tags: a.tags.get(d.tags), Extra: a.extra.get(d.extra),
		Rows: int(c.rows),
	}
}

// unixTime is the inverse of time.Time.Unix for the zero time too.
func unixTime(s int64) time.Time {
	if s == (time.Time{}).Unix() {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}
