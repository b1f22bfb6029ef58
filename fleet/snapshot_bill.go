package fleet

import (
	"context"
	"maps"
	"math"
	"path"
	"slices"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
)

// Line is the bill line (or lines, for one resource over one charge period) behind a charge.
// What it says of its resource, its commitment discount id too, is a LineResource that the
// lines of the resource share. A year of daily lines is millions of them, so a line keeps its
// period and costs as numbers, 48 bytes in all, and its methods give them as times and money.
type Line struct {
	*LineResource
	start, end  int64 // charge period, unixNano
	eff, billed int64 // EffectiveCost and BilledCost in the resource's currencies, nano-units
	// capacity is the billed GPU time in units (Line.units), in the bits below lineBare, and two
	// marks above them:
	//   - lineMerged: another line was added to this one: Money.Add names its currency, so a
	//     line whose currency is empty reads as USD once merged;
	//   - lineBare: a GPU line no telemetry covers, whose charge All makes (bareCharge).
	// A bool each made a line 56 bytes, 29 MB more for a year of 10,000 resources' lines.
	capacity int64
}

const (
	lineMerged = 1 << 62
	lineBare   = 1 << 61
	lineUnits  = lineBare - 1 // the bits of the billed GPU time: 2^61 units are 2 × 10^12 GPU-hours
)

// units is the line's billed GPU time, units.
func (l *Line) units() int64 { return l.capacity & lineUnits }

// addUnits adds n units of billed GPU time, never less than none (analyze.BilledHours is not).
func (l *Line) addUnits(n int64) {
	l.capacity = l.capacity&^lineUnits | min(l.units()+max(n, 0), lineUnits)
}

func (l *Line) merged() bool { return l.capacity&lineMerged != 0 }
func (l *Line) bare() bool   { return l.capacity&lineBare != 0 }
func (l *Line) setMerged()   { l.capacity |= lineMerged }
func (l *Line) setBare()     { l.capacity |= lineBare }

// Start is the start of the line's charge period, in UTC.
func (l *Line) Start() time.Time { return fromUnixNano(l.start) }

// End is the end of the line's charge period, in UTC.
func (l *Line) End() time.Time { return fromUnixNano(l.end) }

// unixNano is t in Unix nanoseconds, the zero time math.MinInt64: a time outside the years
// 1678 to 2261, which UnixNano holds and no bill's charge period leaves, is taken as the
// nearest end of them.
func unixNano(t time.Time) int64 {
	if s := t.Unix(); s > minNanoSec && s < maxNanoSec { // years 1700 to 2199 in any zone
		return t.UnixNano()
	}
	switch {
	case t.IsZero():
		return math.MinInt64
	case t.Year() < 1678:
		return math.MinInt64 + 1
	case t.Year() > 2261:
		return math.MaxInt64
	}
	return t.UnixNano()
}

// The Unix seconds of 1700-01-02 and 2199-12-31, UTC: a time between them is inside the years
// UnixNano holds in any time zone.
const minNanoSec, maxNanoSec = -8520249600, 7258032000

// fromUnixNano is the time of unixNano's n, in UTC.
func fromUnixNano(n int64) time.Time {
	if n == math.MinInt64 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// EffectiveCost is the line's amortised cost.
func (l *Line) EffectiveCost() gpucost.Money { return l.money(l.eff, l.currency) }

// BilledCost is what the invoice says of the line.
func (l *Line) BilledCost() gpucost.Money { return l.money(l.billed, l.billedCurrency) }

func (l *Line) money(nanos int64, currency string) gpucost.Money {
	if l.merged() && currency == "" {
		currency = "USD"
	}
	return gpucost.Money{Nanos: nanos, Currency: currency}
}

// commitmentID is the commitment discount id of the line or of a line merged into it.
func (l *Line) commitmentID() string { return l.commitment }

// LineResource is what a bill line says of its resource: the same on every line of one
// resource and SKU (a year of daily lines is 365 lines of each), so they share one.
type LineResource struct {
	ResourceID, ResourceName        string
	Provider, Region, Account       string
	Service, SKU, Pricing, Category string
	InstanceType, Model             string // the GPU line's instance type and canonical model
	Tags                            gpucost.Labels
	Owner                           gpucost.Owner // the owner its tags name
	hosts                           []string
	currency, billedCurrency        string // of its lines' EffectiveCost and BilledCost
	commitment                      string // its lines' commitment discount id (commitmentOf)
	seq                             int    // its number among the snapshot's, from 0 (Snapshot.resources)
}

// sharedResource is the LineResource of the last line of a resource and SKU read, and the
// fields of that line it was made of.
type sharedResource struct {
	sku     string
	key     resourceKey
	tags    int            // tagIDs.of the line's tags
	tagsMap gpucost.Labels // the line's tags: a line with the same map has the same tags
	r       *LineResource
	last    lineStrings // the last line's, as it held them (sameLine)
}

// lineStrings are the fields of a bill line that its LineResource is made of, as the line
// held them: its strings, its tags' map before the inventory's are added, and its GPU.
type lineStrings struct {
	name, provider, region, account, service, pricing, category, sku string
	currency, billedCurrency, commitment                             string
	tags                                                             gpucost.Labels
	gpu                                                              catalog.LineGPU
}

func lineStringsOf(l *gpucost.CostLine, gpu catalog.LineGPU) lineStrings {
	return lineStrings{l.ResourceName, l.Provider, l.RegionID, l.SubAccountID, l.ServiceName, l.PricingCategory,
		l.ChargeCategory, l.SkuID, l.EffectiveCost.Currency, l.BilledCost.Currency, l.CommitmentDiscountID, l.Tags, gpu}
}

// sameLine reports whether l holds the very strings and tags map of ls (not merely equal
// ones) and the same GPU, so that it has ls's LineResource: the stores give the lines of an
// import one copy of each string and one map per tag set (gpucost.CostStore.ScanCosts), so a
// resource's next line nearly always does, and comparing addresses costs a fraction of
// comparing the strings and copying them (docs/architecture.md "Speed of the reports").
func (ls *lineStrings) sameLine(l *gpucost.CostLine, gpu catalog.LineGPU) bool {
	return same(ls.sku, l.SkuID) && same(ls.name, l.ResourceName) && same(ls.provider, l.Provider) &&
		same(ls.region, l.RegionID) && same(ls.account, l.SubAccountID) && same(ls.service, l.ServiceName) &&
		same(ls.pricing, l.PricingCategory) && same(ls.category, l.ChargeCategory) &&
		same(ls.currency, l.EffectiveCost.Currency) && same(ls.billedCurrency, l.BilledCost.Currency) &&
		same(ls.commitment, l.CommitmentDiscountID) && sameMap(ls.tags, l.Tags) &&
		same(ls.gpu.Model, gpu.Model) && same(ls.gpu.InstanceType, gpu.InstanceType) && same(ls.gpu.By, gpu.By) &&
		ls.gpu.GPUs == gpu.GPUs
}

// same reports whether a and b are one string in memory, or both empty: equal, and cheaper
// to tell than ==, which reads the bytes where the addresses differ.
func same(a, b string) bool {
	return len(a) == len(b) && (len(a) == 0 || unsafe.StringData(a) == unsafe.StringData(b))
}

type resourceKey struct {
	name, provider, region, account, service, pricing, category string
	currency, billedCurrency, commitment                        string
	gpu                                                         catalog.LineGPU
}

// resourceOf returns the LineResource of l, its tags over the inventory's; s is the slot of
// l's resource id. The lines of one resource and SKU nearly always say the same of it: they
// share the one of the last such line read (a LineResource is never changed).
func (b *builder) resourceOf(s *resSlot, l *gpucost.CostLine, gpu catalog.LineGPU) *LineResource {
	for _, sh := range s.shared {
		if sh.last.sameLine(l, gpu) {
			// The inventory's tags are the same for every line of the resource id: the same
			// map of the line's own tags makes the same tags.
			return sh.r
		}
	}
	tags := l.Tags
	if inv, ok := b.invTags[l.ResourceID]; ok {
		tags = mergeLabels(inv, l.Tags)
	}
	k := resourceKey{l.ResourceName, l.Provider, l.RegionID, l.SubAccountID, l.ServiceName, l.PricingCategory, l.ChargeCategory,
		l.EffectiveCost.Currency, l.BilledCost.Currency, commitmentOf(l), gpu}
	i := slices.IndexFunc(s.shared, func(sh *sharedResource) bool { return sh.sku == l.SkuID })
	id := -1
	if i >= 0 && s.shared[i].key == k {
		// Kept with the line's strings, so that the next line's, the same copies as a rule,
		// compare by address.
		sh := s.shared[i]
		sh.sku, sh.key = l.SkuID, k
		if sameMap(sh.tagsMap, tags) {
			sh.last = lineStringsOf(l, gpu)
			return sh.r // the store's one map for the lines with these tags (tagIDs)
		}
		if id = b.tagIDs.of(tags); sh.tags == id {
			sh.tagsMap, sh.last = tags, lineStringsOf(l, gpu)
			return sh.r
		}
	}
	if id < 0 {
		id = b.tagIDs.of(tags)
	}
	r := &LineResource{ResourceID: l.ResourceID, ResourceName: l.ResourceName, Provider: l.Provider, Region: l.RegionID,
		Account: l.SubAccountID, Service: l.ServiceName, SKU: l.SkuID, Pricing: l.PricingCategory, Category: l.ChargeCategory,
		InstanceType: gpu.InstanceType, Model: gpu.Model, Tags: maps.Clone(tags), Owner: b.tags.Of(tags),
		currency: l.EffectiveCost.Currency, billedCurrency: l.BilledCost.Currency, commitment: k.commitment, seq: b.snap.resources}
	b.snap.resources++
	if gpu.Model != "" {
		// The telemetry hosts that are this resource: the inventory's, and any named like the
		// resource id, its last path segment (ARNs, Azure and GCP resource paths) or its name.
		r.hosts = append(r.hosts, b.invHosts[l.ResourceID]...)
		for _, name := range []string{l.ResourceID, path.Base(l.ResourceID), l.ResourceName} {
			if name != "" && name != "." && name != "/" && !slices.Contains(r.hosts, name) {
				r.hosts = append(r.hosts, name)
			}
		}
	}
	sh := &sharedResource{l.SkuID, k, id, tags, r, lineStringsOf(l, gpu)}
	if i >= 0 {
		s.shared[i] = sh
	} else {
		s.shared = append(s.shared, sh)
	}
	return r
}

// bill reads the period's lines: GPU usage lines become cells that price the telemetry they
// cover, every other line a charge of its own.
func (b *builder) bill(ctx context.Context, st Bills) error {
	s := b.snap
	// Bills are stored by day: the line of the day the period starts in prices that day's
	// GPU-hours in the period, though it is not the period's to count.
	from := b.o.Period.Start.Truncate(24 * time.Hour)
	return st.ScanCosts(ctx, b.o.Period.Lines(from, b.o.Period.End), func(l *gpucost.CostLine) error {
		slot := b.index.slot(l.ResourceID)
		gpu, isGPU := b.lineGPU(slot, l)
		before := l.ChargePeriodStart.Before(b.o.Period.Start) && !b.o.Period.Billed
		if before && (!isGPU || l.ChargeCategory != "Usage") {
			return nil
		}
		if !before {
			s.Stats.Lines++
			s.Stats.Totals.Add(l.BilledCost, l.EffectiveCost)
		}
		if !isGPU || l.ChargeCategory != "Usage" {
			ln := new(Line)
			*ln = b.newLine(slot, l, catalog.LineGPU{})
			s.Charges = append(s.Charges, Charge{Kind: Other, Start: l.ChargePeriodStart, Owner: ln.Owner, Line: ln,
				Source: SourceBill, Cost: l.EffectiveCost, Billed: l.BilledCost,
				IdleCost: gpucost.Money{Currency: l.EffectiveCost.Currency}, IdleBilled: gpucost.Money{Currency: l.BilledCost.Currency}})
			return nil
		}
		if !before {
			s.Stats.GPULines++
		}
		gpus := max(1, int(math.Ceil(gpu.GPUs)))
		if n := b.invGPUs[l.ResourceID]; n > 0 {
			gpus = n
		}
		capacity := int64(math.Round(float64(gpus) * analyze.BilledHours(l) * unitsPerHour))
		c, start, end := (*cell)(nil), l.ChargePeriodStart.Unix(), l.ChargePeriodEnd.Unix()
		if l.ResourceID != "" { // lines without a resource id are never merged
			c = b.index.findIn(slot, l.ResourceID, start, end, &b.cells)
		}
		if c == nil {
			ln := b.newLine(slot, l, gpu)
			ln.addUnits(capacity) // before the line is copied to its cell: written once there
			c = b.cells.add(ln)
			if l.ResourceID != "" {
				b.index.addIn(slot, l.ResourceID, start, end, c)
			}
		} else {
			b.merge(&c.line, l)
			c.line.addUnits(capacity)
		}
		return nil
	})
}

func (b *builder) newLine(s *resSlot, l *gpucost.CostLine, gpu catalog.LineGPU) Line {
	return Line{LineResource: b.resourceOf(s, l, gpu), start: unixNano(l.ChargePeriodStart), end: unixNano(l.ChargePeriodEnd),
		eff: l.EffectiveCost.Nanos, billed: l.BilledCost.Nanos}
}

// lineGPU is the catalog's LineGPU, asked again only when the line's instance type and
// description (what the catalog's answer is kept by) are neither those of the last line of
// its resource id (s) nor any of the last few lines': a fleet's lines come resource by
// resource, so their instance types take turns.
func (b *builder) lineGPU(s *resSlot, l *gpucost.CostLine) (catalog.LineGPU, bool) {
	if g := &s.gpu; g.a != nil && g.instanceType == l.InstanceType && g.description == l.ChargeDescription {
		// Kept with the line's strings, so that the next line's, the same copies as a rule,
		// compare by address.
		g.instanceType, g.description = l.InstanceType, l.ChargeDescription
		return g.a.gpu, g.a.ok
	}
	lg := &b.lastGPU
	for i := range lg.n {
		if e := lg.recent[i]; e.instanceType == l.InstanceType && e.description == l.ChargeDescription {
			s.gpu = slotGPU{l.InstanceType, l.ChargeDescription, e}
			return e.gpu, e.ok
		}
	}
	gpu, ok := b.cat.LineGPU(l)
	e := &lineGPUAnswer{l.InstanceType, l.ChargeDescription, gpu, ok}
	lg.recent[lg.next], s.gpu = e, slotGPU{l.InstanceType, l.ChargeDescription, e}
	lg.next = (lg.next + 1) % len(lg.recent)
	lg.n = min(lg.n+1, len(lg.recent))
	return gpu, ok
}

// lastLineGPU is the catalog's answer for the last few instance types and descriptions.
type lastLineGPU struct {
	recent [8]*lineGPUAnswer
	n      int // recent[:n] are set
	next   int // the entry the next answer replaces
}

// slotGPU is the catalog's answer for the last line of a resource id, with that line's
// instance type and description.
type slotGPU struct {
	instanceType, description string
	a                         *lineGPUAnswer
}

type lineGPUAnswer struct {
	instanceType, description string
	gpu                       catalog.LineGPU
	ok                        bool
}

// merge adds l, a line of the same resource and charge period, to ln's costs as Money.Add
// adds them (a line in another currency is a panic), keeping the first commitment id.
func (b *builder) merge(ln *Line, l *gpucost.CostLine) {
	ln.eff = ln.EffectiveCost().Add(l.EffectiveCost).Nanos
	ln.billed = ln.BilledCost().Add(l.BilledCost).Nanos
	ln.setMerged()
	if id := commitmentOf(l); ln.commitment == "" && id != "" {
		ln.LineResource = b.committed(ln.LineResource, id)
	}
}

// committed returns r with commitment discount id, for a line merged into one of r's that
// had none: one copy of r for each id.
func (b *builder) committed(r *LineResource, id string) *LineResource {
	k := committedKey{r, id}
	c := b.commitments[k]
	if c == nil {
		c = new(LineResource)
		*c = *r
		c.commitment, c.seq = id, b.snap.resources
		b.snap.resources++
		b.commitments[k] = c
	}
	return c
}

type committedKey struct {
	r  *LineResource
	id string
}
