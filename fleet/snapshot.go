package fleet

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/catalog"
)

// GPU time is counted in integer units, 2,520 to a seventh of a GPU-minute (analyze.MIGShare
// counts a MIG instance's share in sevenths), so every GPU-hour figure is an integer sum, the
// same in every report, and used time (held × utilisation) rounds to under a millisecond.
const (
	unitsPerSeventhMinute = 2520
	unitsPerHour          = 7 * 60 * unitsPerSeventhMinute
)

func unitHours(u int64) float64 { return float64(u) / unitsPerHour }

// Kind says what a Charge is.
type Kind uint8

const (
	// GPUTime is one telemetry series' time on a GPU within one bill line (or one day where no
	// bill line covers it): held, partly used, priced.
	GPUTime Kind = iota
	// NoTelemetry is billed GPU time no telemetry covers: a GPU line without telemetry, or the
	// part of one beyond the time its telemetry held.
	NoTelemetry
	// Other is a bill line that pays for no GPU time: storage, network, CPU machines.
	Other
)

// Charge is one piece of the period's spend: a series' GPU time in one bill line or day, billed
// GPU time without telemetry, or a line that pays for no GPU.
type Charge struct {
	Kind   Kind
	Start  time.Time       // the line's charge period start, or the day's, no earlier than the period's
	Series *gpucost.Series // GPUTime only
	Model  string          // canonical GPU model; empty for Other
	Owner  gpucost.Owner   // from the series' labels, completed by the tags; the tags' owner without telemetry
	Line   *Line           // nil for GPU time no bill line covers, priced by the catalog
	Source Source

	Cost       gpucost.Money // effective cost, idle included
	IdleCost   gpucost.Money // GPUTime only: the idle part of Cost
	Billed     gpucost.Money // billed cost, idle included
	IdleBilled gpucost.Money

	held, used int64 // GPU time, units (GPUTime and NoTelemetry)
	outside    bool  // priced by a line that starts before the period
	// idleCapacity marks a Tally's idle capacity: under policy requested or weighted, the
	// time nobody was charged for is not any series' own.
	idleCapacity bool
}

// Options say how to build a snapshot.
type Options struct {
	Period Period
	// Provider is whose on-demand price of a GPU-hour prices GPU time no bill line covers (aws
	// when empty).
	Provider string
	// TagKeys name owners in tags and labels (nil: analyze.DefaultTagKeys).
	TagKeys map[string][]string
}

// Stats say what a snapshot covered, for the reports' reconciliation notes.
type Stats struct {
	Lines      int                `json:"lines"`
	GPULines   int                `json:"gpu_lines"`
	Matched    int                `json:"gpu_lines_with_telemetry"`
	Imports    int                `json:"imports"`
	Rollups    int                `json:"rollups"`
	Unmatched  []string           `json:"gpu_resources_without_telemetry,omitempty"`
	Unpriced   float64            `json:"unpriced_gpu_hours,omitempty"` // GPU time neither the bill nor the catalog prices
	Totals     gpucost.CostTotals `json:"-"`                            // of the bill lines read
	Telemetry  bool               `json:"telemetry"`                    // the period has rollups
	CatalogFor map[string]string  `json:"-"`                            // canonical model → the catalog price used

	// UnpricedBy is Unpriced by model: the series' canonical model, or its name as reported
	// where the catalog does not know it.
	UnpricedBy map[string]float64 `json:"unpriced_gpu_hours_by_model,omitempty"`
}

// Snapshot is a period's GPU time and spend, charge by charge, built once per query: the
// figures of every report are sums over it (Group).
type Snapshot struct {
	Period Period
	// Charges are the charges kept whole. The NoTelemetry charges of GPU lines no telemetry
	// covers at all are not among them: they are made from their lines as All yields them.
	Charges []Charge
	Stats   Stats
	series  map[string]*gpucost.Series
	reader  analyze.OwnerReader
	// cells are the GPU lines. Those no telemetry covers (Line.bare) are each one NoTelemetry
	// charge (bareCharge), made as All yields it: a year of daily lines of a fleet without
	// telemetry is millions of them, and a Charge each would add 280 bytes a line to the 48 of
	// the Line it repeats.
	cells     cellBlocks
	resources int // the LineResources of its lines (LineResource.seq)
}

// All yields every charge of the snapshot: Charges, then the NoTelemetry charge of each GPU
// line no telemetry covers. Those are made as they are yielded, in one variable: a charge
// yielded is valid only until the next.
func (s *Snapshot) All() iter.Seq[*Charge] {
	return func(yield func(*Charge) bool) {
		for i := range s.Charges {
			if !yield(&s.Charges[i]) {
				return
			}
		}
		var c Charge
		for cl := range s.cells.all() {
			if cl.line.bare() {
				c = bareCharge(&cl.line)
				if !yield(&c) {
					return
				}
			}
		}
	}
}

// bareCharge is the NoTelemetry charge of a GPU line no telemetry covers: all its billed GPU
// time and its whole cost, as split would make it.
func bareCharge(ln *Line) Charge {
	ef, bi := ln.EffectiveCost(), ln.BilledCost()
	return Charge{Kind: NoTelemetry, Start: ln.Start(), Model: ln.Model, Owner: ln.Owner, Line: ln, Source: SourceBill,
		held: ln.units(), Cost: ef, IdleCost: gpucost.Money{Currency: ef.Currency},
		Billed: bi, IdleBilled: gpucost.Money{Currency: bi.Currency}}
}

// Build reads the period's bill lines, hourly rollups and inventory and prices every GPU-hour
// (see Figures): a bill line's effective and billed cost are split between the used and idle
// time of the series its telemetry shows, by time and to the nano-unit, and the billed GPU time
// beyond it is NoTelemetry; GPU time no bill line covers is priced at the catalog's on-demand
// price. It returns an error only when a store does.
func Build(ctx context.Context, st Store, cat Catalog, o Options) (*Snapshot, error) {
	b := &builder{cat: cat, o: o, provider: cmp.Or(o.Provider, "aws"),
		snap:     &Snapshot{Period: o.Period, series: map[string]*gpucost.Series{}, reader: analyze.NewOwnerReader(o.TagKeys)},
		invHosts: map[string][]string{}, invTags: map[string]gpucost.Labels{}, hostTags: map[string]gpucost.Owner{},
		entries: map[*cell][]int{}, prices: map[string]price{},
		unmatched: map[string]bool{}, commitments: map[committedKey]*LineResource{}}
	b.snap.Stats.CatalogFor = map[string]string{}
	b.startNano = newNanoTime(o.Period.Start)
	b.tags = analyze.TagOwners{Keys: o.TagKeys}
	if b.tags.Keys == nil {
		b.tags.Keys = analyze.DefaultTagKeys()
	}
	if err := b.inventory(ctx, st); err != nil {
		return nil, err
	}
	imports, err := st.CostImports(ctx)
	if err != nil {
		return nil, err
	}
	b.snap.Stats.Imports = len(imports)
	if err := b.bill(ctx, st); err != nil {
		return nil, err
	}
	b.index = cellIndex{}
	if err := b.telemetry(ctx, st); err != nil {
		return nil, err
	}
	for _, i := range b.byCatalog {
		b.catalogPrice(&b.snap.Charges[i])
	}
	b.split()
	b.snap.cells = b.cells
	return b.snap, nil
}

// cell is one GPU resource's bill over one charge period, which prices the telemetry it covers
// (builder.entries).
type cell struct {
	line Line
}

// priceOnly reports whether c's line starts before the period: it prices the GPU-hours in it,
// its cost is not the period's.
func (b *builder) priceOnly(c *cell) bool {
	switch {
	case b.o.Period.Billed:
		return false
	case b.startNano.ok:
		return c.line.start < b.startNano.n
	}
	return c.line.Start().Before(b.o.Period.Start)
}

// nanoTime is a time in Unix nanoseconds, where ok says the time lies well inside the years
// they hold, so that a Line's times compare with it as numbers.
type nanoTime struct {
	n  int64
	ok bool
}

func newNanoTime(t time.Time) nanoTime {
	if y := t.Year(); y < 1700 || y > 2200 {
		return nanoTime{}
	}
	return nanoTime{t.UnixNano(), true}
}

type price struct {
	m  gpucost.Money
	ok bool
}

type builder struct {
	cat      Catalog
	o        Options
	provider string
	snap     *Snapshot
	tags     analyze.TagOwners

	invHosts map[string][]string       // resource → hosts
	invTags  map[string]gpucost.Labels // resource → tags
	invGPUs  map[string]int
	hostTags map[string]gpucost.Owner // host → its resource's tag owner

	index       cellIndex // finds the cell a line merges into
	cells       cellBlocks
	entries     map[*cell][]int                // indexes of the snapshot's GPUTime charges each cell prices
	hostCells   map[string][]*cell             // by start; made for the first rollup (indexHosts)
	prices      map[string]price               // catalog, by series model
	merged      map[mergeKey]int               // the charge of each series in each line or day, once needed (mergedFor)
	byCatalog   []int                          // the charges the catalog prices
	tagIDs      tagIDs                         // the tags of the lines, numbered (resourceOf)
	commitments map[committedKey]*LineResource // (committed)
	lastGPU     lastLineGPU                    // the last line's catalog.LineGPU (lineGPU)
	unmatched   map[string]bool                // GPU resources with a line no telemetry covers

	// The previous rollup's series and charge: a scan gives a series' rollups together and in
	// time order, so most rollups add to the charge the one before added to (see last).
	cur     seriesInfo
	last    lastCharge
	pending chargeBlocks // the GPUTime charges while the telemetry is read

	startNano nanoTime // the period's start
	lastOwner ownerOf  // the owner of the last charge newCharge made in a cell
}

// ownerOf is the owner of a series' charges in the lines of one LineResource.
type ownerOf struct {
	ser   *gpucost.Series
	res   *LineResource
	owner gpucost.Owner
}

// seriesInfo is what the builder works out once per series: intern's argument and result, and
// what the series' rollups and charges need of it.
type seriesInfo struct {
	in, ser *gpucost.Series
	share   int64            // analyze.MIGShare
	sliced  bool             // analyze.TimeSliced
	merged  map[mergeKey]int // its charges, while it is new and current (mergedFor)
}

// lastCharge is the charge the previous rollup added to, and the span of hours that add to
// it: those its cell holds and no later-starting cell of the host takes (cellSpan).
type lastCharge struct {
	series   *gpucost.Series
	from, to int64 // Unix seconds; empty when from ≥ to
	charge   int
}

func (b *builder) inventory(ctx context.Context, st Inventory) error {
	inv, err := st.Inventory(ctx)
	if err != nil {
		return err
	}
	b.invGPUs = map[string]int{}
	for _, e := range inv {
		b.invHosts[e.ResourceID] = append(b.invHosts[e.ResourceID], e.Host)
		if len(e.Tags) > 0 {
			b.invTags[e.ResourceID] = e.Tags
			b.hostTags[e.Host] = analyze.TagOwner(e.Tags, b.tags.Keys)
		}
		if e.GPUs > 0 {
			b.invGPUs[e.ResourceID] = e.GPUs
		}
	}
	return nil
}

// telemetry reads the period's hour rollups: each is a GPUTime charge, priced by the bill line
// covering its host and hour where there is one, else by the catalog. The rollups of
// time-sliced series (analyze.TimeSliced) are kept apart and share their GPU's minutes.
func (b *builder) telemetry(ctx context.Context, st Telemetry) error {
	s := b.snap
	p := b.o.Period
	sliced := map[sliceKey][]slicedHour{}
	b.pending = chargeBlocks{base: len(s.Charges)}
	f := gpucost.RollupFilter{From: p.Start, To: p.End}
	hour := func(r *gpucost.Rollup) error {
		if r.Series != nil && p.Contains(r.Start) {
			b.hour(r.Series, r.Start, r.Coverage, r.Samples, r.UtilSum, sliced)
		}
		return nil
	}
	var err error
	if ds, ok := st.(gpucost.DayStore); ok {
		// A whole day of the period is one row, its hours charged one by one as they would be
		// (docs/architecture.md "Speed of the reports").
		err = ds.ScanHoursByDay(ctx, f, p.Start, p.End, hour, func(d *gpucost.DayRollup) error {
			if d.Series != nil {
				b.day(d, sliced)
			}
			return nil
		})
	} else {
		err = st.ScanRollups(ctx, time.Hour, f, hour)
	}
	if err != nil {
		return err
	}
	b.shareSliced(sliced)
	b.pending.flush(b, len(b.entries)) // split adds a NoTelemetry charge per cell with telemetry at most
	b.merged, b.cur = nil, seriesInfo{}
	return nil
}

// hour charges one hour of a series that starts at start, whose covered minutes are coverage
// and whose samples add up to utilSum.
func (b *builder) hour(in *gpucost.Series, start time.Time, coverage uint64, samples int, utilSum float64, sliced map[sliceKey][]slicedHour) {
	minutes := int64(bits.OnesCount64(coverage))
	if minutes == 0 {
		return
	}
	s := b.snap
	s.Stats.Telemetry = true
	s.Stats.Rollups++
	ser := b.intern(in)
	util := 0.0
	if samples > 0 {
		util = min(max(utilSum/float64(samples)/100, 0), 1)
	}
	if b.cur.sliced {
		k := sliceKey{ser.GPU.Host, ser.GPU.UUID, start.Unix()}
		sliced[k] = append(sliced[k], slicedHour{ser, start, analyze.SliceMember{Cov: coverage, Util: util * 100}})
		return
	}
	held := minutes * b.cur.share * unitsPerSeventhMinute
	b.charge(ser, start, held, int64(math.Round(float64(held)*util)))
}

// day charges the hours of a day rollup as hour would charge each, the hours of the period
// only: an hour in the span of the bill line the one before went to adds to its charge there
// and then, as charge would.
func (b *builder) day(d *gpucost.DayRollup, sliced map[sliceKey][]slicedHour) {
	p := b.o.Period
	if !p.Contains(d.Day) || !p.Contains(d.Day.Add(24*time.Hour-1)) {
		for i := range d.Hours {
			h := &d.Hours[i]
			if start := d.Day.Add(time.Duration(h.Hour) * time.Hour); p.Contains(start) {
				b.hour(d.Series, start, h.Coverage, h.Samples, h.UtilSum, sliced)
			}
		}
		return
	}
	day := d.Day.Unix()
	var ser *gpucost.Series
	for i := range d.Hours {
		h := &d.Hours[i]
		minutes := int64(bits.OnesCount64(h.Coverage))
		if minutes == 0 {
			continue
		}
		if ser == nil {
			ser = b.intern(d.Series)
		}
		if b.cur.sliced {
			b.hour(d.Series, d.Day.Add(time.Duration(h.Hour)*time.Hour), h.Coverage, h.Samples, h.UtilSum, sliced)
			continue
		}
		b.snap.Stats.Telemetry = true
		b.snap.Stats.Rollups++
		util := 0.0
		if h.Samples > 0 {
			util = min(max(h.UtilSum/float64(h.Samples)/100, 0), 1)
		}
		held := minutes * b.cur.share * unitsPerSeventhMinute
		used := int64(math.Round(float64(held) * util))
		if t := day + int64(3600*h.Hour); ser == b.last.series && t >= b.last.from && t < b.last.to {
			pc := b.pending.at(b.last.charge)
			pc.held += held
			pc.used += used
			continue
		}
		b.charge(ser, d.Day.Add(time.Duration(h.Hour)*time.Hour), held, used)
	}
}

// sliceKey is one GPU or MIG instance's hour.
type sliceKey struct {
	host, uuid string
	start      int64 // Unix seconds
}

// slicedHour is one hour rollup of a time-sliced series.
type slicedHour struct {
	ser    *gpucost.Series
	start  time.Time
	member analyze.SliceMember
}

// shareSliced charges the time-sliced series' hours: the series on one GPU share each of its
// minutes in proportion to their use (analyze.ShareSlices), so the GPU is counted once.
func (b *builder) shareSliced(sliced map[sliceKey][]slicedHour) {
	keys := slices.SortedFunc(maps.Keys(sliced), func(x, y sliceKey) int {
		return cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.host, y.host), cmp.Compare(x.uuid, y.uuid))
	})
	var ms []analyze.SliceMember
	var held, used []int64
	for _, k := range keys {
		hs := sliced[k]
		slices.SortFunc(hs, func(x, y slicedHour) int { return cmp.Compare(x.ser.Key(), y.ser.Key()) })
		ms = ms[:0]
		for _, h := range hs {
			ms = append(ms, h.member)
		}
		units := int64(analyze.MIGShare(hs[0].ser.GPU)) * unitsPerSeventhMinute
		held, used = analyze.ShareSlices(ms, units, held, used)
		for i, h := range hs {
			b.charge(h.ser, h.start, held[i], used[i])
		}
	}
}

// charge adds a series' held and used time in the hour starting at start to its charge in the
// bill line or day that prices it (a pendingCharge until the telemetry is read).
func (b *builder) charge(ser *gpucost.Series, start time.Time, held, used int64) {
	if t := start.Unix(); ser == b.last.series && t >= b.last.from && t < b.last.to {
		pc := b.pending.at(b.last.charge)
		pc.held += held
		pc.used += used
		return
	}
	// A series' GPU time is one charge per bill line that prices it, or per day where the
	// catalog does: no figure is finer than a day.
	c, from, to := b.cellSpan(ser.GPU.Host, start)
	k := mergeKey{ser, c, 0}
	if c == nil {
		k.day = start.Unix() / 86400
	}
	merged := b.mergedFor(ser)
	if i, ok := merged[k]; ok {
		b.last = lastCharge{ser, from, to, i}
		pc := b.pending.at(i)
		pc.held += held
		pc.used += used
		return
	}
	i := b.pending.next()
	b.last = lastCharge{ser, from, to, i}
	merged[k] = i
	if c != nil {
		b.entries[c] = append(b.entries[c], i)
	} else {
		b.byCatalog = append(b.byCatalog, i)
	}
	b.pending.add(pendingCharge{ser: ser, cell: c, day: k.day, held: held, used: used})
}

// mergedFor returns the map that finds ser's charges by mergeKey. While the series come one at
// a time, as the stores scan them, it is the current series' own small map (b.cur.merged): a
// series' charges are all made while it is current. The first charge of another series, one
// met again or a time-sliced one, switches to one map of all charges (b.merged), built from
// the pending ones, for the rest of the build.
func (b *builder) mergedFor(ser *gpucost.Series) map[mergeKey]int {
	if b.merged != nil {
		return b.merged
	}
	if ser == b.cur.ser && b.cur.merged != nil {
		return b.cur.merged
	}
	b.merged = make(map[mergeKey]int, b.pending.n)
	for i := b.pending.base; i < b.pending.next(); i++ {
		pc := b.pending.at(i)
		b.merged[mergeKey{pc.ser, pc.cell, pc.day}] = i // day is 0 where cell is set, as in charge
	}
	return b.merged
}

// newCharge returns the GPUTime charge of pc, model being its series' canonical model.
func (b *builder) newCharge(pc *pendingCharge, model string) Charge {
	s, p, ser := b.snap, b.o.Period, pc.ser
	ch := Charge{Kind: GPUTime, Series: ser, Model: model, held: pc.held, used: pc.used}
	if c := pc.cell; c != nil {
		ch.Start, ch.Line, ch.Source = later(c.line.Start(), p.Start), &c.line, SourceBill
		// A series' charges in the lines of one resource (a day each) have one owner.
		if o := &b.lastOwner; o.ser != ser || o.res != c.line.LineResource {
			*o = ownerOf{ser, c.line.LineResource, s.reader.Of(ser.Labels, c.line.Owner)}
		}
		ch.Owner = b.lastOwner.owner
	} else {
		ch.Start = later(time.Unix(pc.day*86400, 0).UTC(), p.Start)
		ch.Owner = s.reader.Of(ser.Labels, b.hostTags[ser.GPU.Host])
	}
	return ch
}

// mergeKey names the charge a rollup adds to: its series' in one bill line, or in one day
// without one.
type mergeKey struct {
	series *gpucost.Series
	cell   *cell
	day    int64
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// intern returns the snapshot's one copy of series s and makes it the current one (b.cur). The
// stores hand out one *Series per series in a scan, so the current series is tried before the
// key is built.
func (b *builder) intern(s *gpucost.Series) *gpucost.Series {
	if c := b.cur.ser; s == b.cur.in && s.GPU.UUID == c.GPU.UUID && s.GPU.Host == c.GPU.Host {
		return c
	}
	k := s.Key()
	have, ok := b.snap.series[k]
	var merged map[mergeKey]int
	if !ok {
		c := *s
		have = &c
		b.snap.series[k] = have
		if merged = b.cur.merged; merged == nil {
			merged = map[mergeKey]int{}
		}
		clear(merged) // the previous series' map: no one asks it again
	}
	b.cur = seriesInfo{in: s, ser: have, share: int64(analyze.MIGShare(have.GPU)), sliced: analyze.TimeSliced(have), merged: merged}
	return have
}

// indexHosts finds the cells of each telemetry host, by start. The bill alone needs none of
// it: a year of daily lines without telemetry would hold every line twice more in slices.
func (b *builder) indexHosts() {
	b.hostCells = map[string][]*cell{}
	for c := range b.cells.all() {
		for _, h := range c.line.hosts {
			b.hostCells[h] = append(b.hostCells[h], c)
			if low := strings.ToLower(h); low != h {
				b.hostCells[low] = append(b.hostCells[low], c) // hosts are matched ignoring case
			}
		}
	}
	for _, cs := range b.hostCells {
		slices.SortFunc(cs, func(x, y *cell) int { return cmp.Compare(x.line.start, y.line.start) })
	}
}

// cellSpan returns the cell covering host at t, if any (the latest starting at or before t that
// holds t), and the span [from, to) of Unix seconds around t for which it is the same: the cell
// holds them and no later-starting cell of the host does; empty when that is not known cheaply.
func (b *builder) cellSpan(host string, t time.Time) (c *cell, from, to int64) {
	if b.hostCells == nil {
		b.indexHosts()
	}
	cs := b.hostCells[host]
	if len(cs) == 0 {
		cs = b.hostCells[strings.ToLower(host)]
	}
	if len(cs) == 0 { // the catalog prices the host's time by the day
		day := t.Unix() / 86400 * 86400
		return nil, day, day + 86400
	}
	i, _ := slices.BinarySearchFunc(cs, t, func(c *cell, t time.Time) int {
		if c.line.Start().After(t) {
			return 1
		}
		return -1
	})
	for j := i - 1; j >= 0; j-- { // the latest cell starting at or before t that holds t
		if t.Before(cs[j].line.End()) {
			if j != i-1 { // an earlier-starting cell: a later one might hold the next hours
				return cs[j], 0, 0
			}
			to := cs[j].line.End().Unix()
			if i < len(cs) {
				to = min(to, cs[i].line.Start().Unix())
			}
			return cs[j], cs[j].line.Start().Unix(), to
		}
		if cs[j].line.Start().Before(t.Add(-32 * 24 * time.Hour)) { // no bill line is longer than a month
			break
		}
	}
	return nil, 0, 0
}

// catalogPrice prices GPU time no bill line covers at the catalog's on-demand price of a
// GPU-hour of its model (the provider's median region).
func (b *builder) catalogPrice(ch *Charge) {
	p, seen := b.prices[ch.Model]
	if !seen {
		m, offer, ok := b.cat.PricePerGPUHour(ch.Model, b.provider)
		p = price{m, ok}
		b.prices[ch.Model] = p
		if ok {
			b.snap.Stats.CatalogFor[ch.Model] = fmt.Sprintf("%s/GPU-h (%s %s %s, median region)",
				m.Dollars(), offer.Provider, offer.InstanceType, offer.Region)
			if offer.Provider == catalog.UserProvider {
				b.snap.Stats.CatalogFor[ch.Model] = fmt.Sprintf("%s/GPU-h (a user price: %s)", m.Dollars(), offer.Source)
			}
			if v, ok := catalog.ParseVGPU(ch.Model); ok {
				b.snap.Stats.CatalogFor[ch.Model] += fmt.Sprintf(", a vGPU of %d of the %s's %d GB", v.MemoryGB, v.Model, v.OfGB)
			}
		}
	}
	if !p.ok {
		b.snap.Stats.Unpriced += unitHours(ch.held)
		if b.snap.Stats.UnpricedBy == nil {
			b.snap.Stats.UnpricedBy = map[string]float64{}
		}
		b.snap.Stats.UnpricedBy[ch.Model] += unitHours(ch.held)
		zero := gpucost.Money{Currency: "USD"}
		ch.Cost, ch.IdleCost, ch.Billed, ch.IdleBilled = zero, zero, zero, zero
		return
	}
	ch.Source = SourceCatalog
	ch.Cost = scale(p.m, ch.held, unitsPerHour)
	usedCost := scale(p.m, ch.used, unitsPerHour)
	ch.IdleCost = ch.Cost.Sub(usedCost)
	ch.Billed, ch.IdleBilled = ch.Cost, ch.IdleCost
}

// split divides each cell's cost between the GPU time its telemetry held, used and idle, by
// time (see Price), and charges the rest of its billed GPU time as NoTelemetry.
func (b *builder) split() {
	s := b.snap
	var (
		weights, eff, bil []int64
		ap                analyze.Apportioner
		unmatched         = make([]bool, s.resources) // by LineResource.seq: those in b.unmatched
	)
	for c := range b.cells.all() {
		ln := &c.line
		if b.priceOnly(c) {
			b.priceBy(c)
			continue
		}
		entries := b.entries[c]
		if len(entries) == 0 {
			if !unmatched[ln.seq] {
				unmatched[ln.seq] = true
				b.unmatched[cmp.Or(ln.ResourceID, "(no resource id)")] = true
			}
			if ln.units() > 0 || ln.eff != 0 || ln.billed != 0 {
				ln.setBare()
			}
			continue
		}
		s.Stats.Matched++
		held := int64(0)
		weights = weights[:0]
		for _, i := range entries {
			ch := &s.Charges[i]
			held += ch.held
			weights = append(weights, ch.used, ch.held-ch.used)
		}
		rest := max(ln.units(), held) - held
		weights = append(weights, rest)
		eff = ap.Split(ln.eff, weights, eff)
		bil = ap.Split(ln.billed, weights, bil)
		ec, bc := ln.EffectiveCost().Currency, ln.BilledCost().Currency
		for j, i := range entries {
			ch := &s.Charges[i]
			ch.Cost = gpucost.Money{Nanos: eff[2*j] + eff[2*j+1], Currency: ec}
			ch.IdleCost = gpucost.Money{Nanos: eff[2*j+1], Currency: ec}
			ch.Billed = gpucost.Money{Nanos: bil[2*j] + bil[2*j+1], Currency: bc}
			ch.IdleBilled = gpucost.Money{Nanos: bil[2*j+1], Currency: bc}
		}
		last := len(weights) - 1
		if rest > 0 || eff[last] != 0 || bil[last] != 0 {
			s.Charges = append(s.Charges, Charge{Kind: NoTelemetry, Start: ln.Start(), Model: ln.Model, Owner: ln.Owner, Line: ln,
				Source: SourceBill, held: rest,
				Cost: gpucost.Money{Nanos: eff[last], Currency: ec}, IdleCost: gpucost.Money{Currency: ec},
				Billed: gpucost.Money{Nanos: bil[last], Currency: bc}, IdleBilled: gpucost.Money{Currency: bc}})
		}
	}
	if len(b.unmatched) > 0 {
		s.Stats.Unmatched = slices.Sorted(maps.Keys(b.unmatched))
	}
}

// priceBy prices the GPU-hours a line starting before the period covers at its effective (and
// billed) cost ÷ its billed GPU-hours.
func (b *builder) priceBy(c *cell) {
	ln, entries := &c.line, b.entries[c]
	capacity := ln.units()
	for _, i := range entries {
		capacity = max(capacity, b.snap.Charges[i].held) // never more than the line
	}
	if capacity == 0 {
		return
	}
	for _, i := range entries {
		ch := &b.snap.Charges[i]
		ch.outside = true
		ef, bi := ln.EffectiveCost(), ln.BilledCost()
		ch.Cost = scale(ef, ch.held, capacity)
		ch.IdleCost = ch.Cost.Sub(scale(ef, ch.used, capacity))
		ch.Billed = scale(bi, ch.held, capacity)
		ch.IdleBilled = ch.Billed.Sub(scale(bi, ch.used, capacity))
	}
}

// seriesModel is the canonical model of a series' GPU, a MIG instance's parent model.
func seriesModel(s *gpucost.Series) string {
	model := s.GPU.Model
	if s.GPU.Parent != "" || s.GPU.Profile != "" {
		model, _, _ = strings.Cut(model, " MIG")
	}
	if c, ok := catalog.Normalize(model); ok {
		return c
	}
	return model
}

// mergeLabels returns base with over's labels on top.
func mergeLabels(base, over gpucost.Labels) gpucost.Labels {
	out := make(gpucost.Labels, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// canonical returns the catalog's name of a GPU model, or the name as given.
func canonical(model string) string {
	if c, ok := catalog.Normalize(model); ok {
		return c
	}
	return model
}
