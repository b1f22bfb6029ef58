package billing

import (
	"cmp"
	"hash/maphash"
	"iter"
	"reflect"
	"slices"
	"time"

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
// about 650 bytes (its dimension tuple, 416, held once; its cell and index entries;
// BenchmarkAggregatorUnmergeable measures it) plus the bytes of the values no earlier line
// shares — each at most limits.MaxField, a row at most limits.MaxLine (billing/internal/limits)
// — and of its Tags and Extra maps when they are new. Readers keep columns outside a format out
// of Extra unless asked (focus.Options.Extra), so a column unique per row cannot make every row
// a line.
//
// The lines fed to Add must follow the readers' contract: a line's string fields and its Tags and
// Extra maps are not changed after the line is emitted (readers reuse the *CostLine, not the maps
// it points to), so equal maps are recognised by identity before their contents are compared.
type Aggregator struct {
	Grain time.Duration // Day unless set

	dims    map[uint64]int32 // by hash, the last distinct dimension tuple added with it
	next    []int32          // per tuple, the one added before it with the same hash, or -1
	dimList [][]dimKey       // the distinct dimension tuples, each held once, dimBlock to a block
	ndims   int
	slots   []int32   // a direct-mapped cache in front of dims, by resource, SKU and tags: id+1
	recent  []cellRef // per dimension tuple, the cell it was last added to
	seed    maphash.Seed
	tags    mapIDs
	extra   mapIDs
	cells   map[cellKey]int32 // index into blocks; no pointers, so the collector skips it
	blocks  [][]cell          // the cells, blockSize to a block: growing never copies them
	ncells  int
	totals  gpucost.CostTotals
	rows    int
	started bool
}

// dimKey is everything a stored line keeps except its period and its sums.
type dimKey struct {
	provider, billingAccount, subAccount         string
	chargeCategory, chargeClass, chargeFrequency string
	pricingCategory                              string
	commitmentID, commitmentStatus               string
	commitmentType, commitmentCategory           string
	resourceID, resourceName, resourceType       string
	instanceType, service, serviceCategory       string
	region, zone, sku, skuPrice, description     string
	consumedUnit, pricingUnit, currency          string
	billingPeriod                                int64
	tags, extra                                  int32
}

type cellKey struct {
	start, end int64 // unix seconds
	dim        int32
}

// slotBits sizes the slot table in front of the dims map: 65,536 slots (256 KiB) cover the
// resources × SKUs a bill interleaves. Readers share the strings of repeated values between
// lines, so comparing a slot's tuple with a line's is mostly comparing pointers, where hashing
// every field for the map would read them all.
const slotBits = 16

// blockSize is the cells in a block: 4,096 × 80 bytes.
const blockSize = 1 << 12

// dimBlock is the dimension tuples in a block: 1,024 × 416 bytes. Growing a block list never
// copies the tuples, where growing one slice of a million would copy hundreds of megabytes.
const dimBlock = 1 << 10

// dimAt returns the i-th dimension tuple.
func (a *Aggregator) dimAt(i int32) *dimKey { return &a.dimList[i/dimBlock][i%dimBlock] }

// cell returns the i-th cell.
func (a *Aggregator) cell(i int32) *cell { return &a.blocks[i/blockSize][i%blockSize] }

// newCell adds a cell for k and returns its index.
func (a *Aggregator) newCell(k cellKey) int32 {
	if a.ncells%blockSize == 0 {
		a.blocks = append(a.blocks, make([]cell, blockSize))
	}
	i := int32(a.ncells)
	a.ncells++
	a.cell(i).key = k
	return i
}

type cellRef struct {
	start, end int64
	cell       int32 // index of the cell, -1 for none
}

type cell struct {
	key                                 cellKey
	billed, effective, list, contracted int64
	consumed, pricing                   float64
	rows                                int
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
	k := dimKey{
		provider: l.Provider, billingAccount: l.BillingAccountID, subAccount: l.SubAccountID,
		chargeCategory: l.ChargeCategory, chargeClass: l.ChargeClass, chargeFrequency: l.ChargeFrequency,
		pricingCategory: l.PricingCategory,
		commitmentID:    l.CommitmentDiscountID, commitmentStatus: l.CommitmentDiscountStatus,
		commitmentType: l.CommitmentDiscountType, commitmentCategory: l.CommitmentDiscountCategory,
		resourceID: l.ResourceID, resourceName: l.ResourceName, resourceType: l.ResourceType,
		instanceType: l.InstanceType, service: l.ServiceName, serviceCategory: l.ServiceCategory,
		region: l.RegionID, zone: l.AvailabilityZone, sku: l.SkuID, skuPrice: l.SkuPriceID,
		description:  l.ChargeDescription,
		consumedUnit: l.ConsumedUnit, pricingUnit: l.PricingUnit, currency: l.BillingCurrency(),
		billingPeriod: l.BillingPeriodStart.Unix(),
		tags:          a.tags.id(l.Tags), extra: a.extra.id(l.Extra),
	}
	dim := a.dim(&k)
	start, end := a.period(l.ChargePeriodStart, l.ChargePeriodEnd)
	ref := &a.recent[dim]
	if ref.cell < 0 || ref.start != start || ref.end != end {
		ck := cellKey{start, end, dim}
		i, ok := a.cells[ck]
		if !ok {
			i = a.newCell(ck)
			a.cells[ck] = i
		}
		*ref = cellRef{start, end, i}
	}
	c := a.cell(ref.cell)
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

// dim returns the id of a dimension tuple, numbering new ones.
func (a *Aggregator) dim(k *dimKey) int32 {
	h := maphash.String(a.seed, k.resourceID) ^ maphash.String(a.seed, k.sku)*31 ^ uint64(k.tags)*0x9E3779B97F4A7C15
	sl := &a.slots[h>>(64-slotBits)]
	if *sl > 0 && *a.dimAt(*sl - 1) == *k {
		return *sl - 1
	}
	full := maphash.Comparable(a.seed, *k)
	head, ok := a.dims[full]
	if !ok {
		head = -1
	}
	for id := head; id >= 0; id = a.next[id] {
		if *a.dimAt(id) == *k {
			*sl = id + 1
			return id
		}
	}
	if a.ndims%dimBlock == 0 {
		a.dimList = append(a.dimList, make([]dimKey, dimBlock))
	}
	id := int32(a.ndims)
	a.ndims++
	*a.dimAt(id) = *k
	a.dims[full] = id
	a.next = append(a.next, head)
	a.recent = append(a.recent, cellRef{cell: -1})
	*sl = id + 1
	return id
}

func (a *Aggregator) start() {
	if a.Grain <= 0 {
		a.Grain = Day
	}
	a.dims = map[uint64]int32{}
	a.cells = map[cellKey]int32{}
	a.slots = make([]int32, 1<<slotBits)
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
func (a *Aggregator) Len() int { return a.ncells }

// Totals returns the exact sums of BilledCost and EffectiveCost per currency, by currency.
func (a *Aggregator) Totals() []gpucost.CostTotal { return a.totals.Sorted() }

// Lines returns the aggregated lines ordered by period start, resource and SKU. The *CostLine is
// reused: it is valid until the next one is asked for. Rows says how many lines each sums. Once
// Lines is called, no more lines may be added.
func (a *Aggregator) Lines() iter.Seq[*gpucost.CostLine] {
	a.cells, a.recent, a.dims, a.next, a.slots = nil, nil, nil, nil, nil // the lines are final: let the collector have the indexes
	order := make([]int32, a.ncells)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		x, y := &a.cell(i).key, &a.cell(j).key
		if c := cmp.Compare(x.start, y.start); c != 0 {
			return c
		}
		dx, dy := a.dimAt(x.dim), a.dimAt(y.dim)
		return cmp.Or(cmp.Compare(dx.resourceID, dy.resourceID), cmp.Compare(dx.sku, dy.sku),
			cmp.Compare(x.dim, y.dim), cmp.Compare(x.end, y.end))
	})
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for _, i := range order {
			a.fill(&l, a.cell(i))
			if !yield(&l) {
				return
			}
		}
	}
}

func (a *Aggregator) fill(l *gpucost.CostLine, c *cell) {
	k := c.key
	d := a.dimAt(k.dim)
	money := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: d.currency} }
	*l = gpucost.CostLine{
		Provider: d.provider, BillingAccountID: d.billingAccount, SubAccountID: d.subAccount,
		BillingPeriodStart: unixTime(d.billingPeriod),
		ChargePeriodStart:  time.Unix(k.start, 0).UTC(), ChargePeriodEnd: time.Unix(k.end, 0).UTC(),
		ChargeCategory: d.chargeCategory, ChargeClass: d.chargeClass, ChargeFrequency: d.chargeFrequency,
		PricingCategory: d.pricingCategory,
		BilledCost:      money(c.billed), EffectiveCost: money(c.effective),
		ListCost: money(c.list), ContractedCost: money(c.contracted),
		CommitmentDiscountID: d.commitmentID, CommitmentDiscountStatus: d.commitmentStatus,
		CommitmentDiscountType: d.commitmentType, CommitmentDiscountCategory: d.commitmentCategory,
		ResourceID: d.resourceID, ResourceName: d.resourceName, ResourceType: d.resourceType,
		InstanceType: d.instanceType, ServiceName: d.service, ServiceCategory: d.serviceCategory,
		RegionID: d.region, AvailabilityZone: d.zone, SkuID: d.sku, SkuPriceID: d.skuPrice,
		ChargeDescription: d.description,
		ConsumedQuantity:  c.consumed, ConsumedUnit: d.consumedUnit,
		PricingQuantity: c.pricing, PricingUnit: d.pricingUnit,
		Tags: a.tags.get(d.tags), Extra: a.extra.get(d.extra),
		Rows: c.rows,
	}
}

// unixTime is the inverse of time.Time.Unix for the zero time too.
func unixTime(s int64) time.Time {
	if s == (time.Time{}).Unix() {
		return time.Time{}
	}
	return time.Unix(s, 0).UTC()
}
