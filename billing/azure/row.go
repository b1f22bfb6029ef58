package azure

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/intern"
	"github.com/gpucost/gpucost/billing/internal/readerr"
	"github.com/gpucost/gpucost/billing/internal/totals"

	"github.com/gpucost/gpucost"
)

// Cache bounds. A cache that reaches its bound is emptied (or, for dimensions, aged out a
// generation at a time), so memory stays flat however many distinct values a file holds.
const (
	mapLimit     = intern.MapLimit // distinct tag sets and extras
	dimsGenBytes = 16 << 20
)

// reader reads the rows of one file.
type reader struct {
	name  string
	opt   Options
	emit  func(*gpucost.CostLine) error
	plan  *plan
	sc    *csvscan.Scanner
	tally totals.Tally

	keyCols []int // the string cells a row's dimensions come from
	key     []byte
	lastKey []byte
	last    *dims
	dims    intern.Generations[*dims]
	strs    intern.Strings
	tags    map[string]gpucost.Labels
	extras  map[string]map[string]string
	scratch []byte
	times   [numTimes]timeCell
	line    gpucost.CostLine

	dataset     Dataset
	datasetFrom string
}

// decOne is the exchange rate of files without one.
var decOne = dec{m: 1, raw: []byte("1")}

// timeCell remembers the last value of a date column, which repeats from row to row.
type timeCell struct {
	raw []byte
	t   time.Time
}

// dims is what a row's string cells give: the CostLine with every field but the amounts,
// quantities and dates filled, and how the row is costed.
type dims struct {
	line       gpucost.CostLine
	cls        class
	block      float64 // the UnitOfMeasure's pricing block size
	chargeType string  // as written
}

func newReader(name string, o Options, emit func(*gpucost.CostLine) error) *reader {
	rd := &reader{name: name, opt: o, emit: emit, dims: newDimsCache(), tags: map[string]gpucost.Labels{},
		extras: map[string]map[string]string{}}
	if o.Dataset != "" {
		rd.dataset, rd.datasetFrom = o.Dataset, "the caller"
	}
	return rd
}

func (rd *reader) setPlan(p *plan, sc *csvscan.Scanner) {
	rd.plan, rd.sc = p, sc
	for f := field(0); f < tDate; f++ {
		if i := p.index[f]; i >= 0 {
			rd.keyCols = append(rd.keyCols, i)
		}
	}
}

// where names the current row for messages: file:line. Its columns are named by
// readerr.Column.
func (rd *reader) where() string { return fmt.Sprintf("%s:%d", rd.name, rd.sc.Line()) }

// cell returns the cell of f in the current record, unescaped; nil when the file has no column.
func (rd *reader) cell(f field) []byte {
	i := rd.plan.index[f]
	if i < 0 {
		return nil
	}
	return rd.sc.Field(i)
}

// bad describes the bad cell of f.
func (rd *reader) bad(f field, want string, cause error) error {
	i := rd.plan.index[f]
	if i < 0 {
		return cellError(rd.where(), readerr.Column(0, requiredName(f, rd.plan.schema)), "", want, cause)
	}
	b := rd.sc.Field(i)
	return cellError(rd.where(), readerr.Column(i+1, rd.plan.names[i]), string(b), want, cause)
}

// row reads the current record and emits its line.
func (rd *reader) row(line int) error {
	d, err := rd.dimensions()
	if err != nil {
		return err
	}
	start, err := rd.time(tDate)
	if err != nil {
		return err
	}
	if start.IsZero() {
		return rd.bad(tDate, wants[kTime], nil)
	}
	period, err := rd.time(tBillingPeriod)
	if err != nil {
		return err
	}
	if period.IsZero() { // no BillingPeriodStartDate: the calendar month
		period = time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	a, err := rd.amounts()
	if err != nil {
		return err
	}
	billed, effective, err := rd.costs(d, a, line)
	if err != nil {
		return err
	}
	rd.line = d.line
	l := &rd.line
	l.BillingPeriodStart, l.ChargePeriodStart, l.ChargePeriodEnd = period, start, start.AddDate(0, 0, 1)
	l.BilledCost.Nanos, l.EffectiveCost.Nanos, l.ListCost.Nanos, l.ContractedCost.Nanos = billed, effective, a.list, a.contracted
	l.PricingQuantity = a.quantity
	if d.cls.consumed {
		l.ConsumedQuantity = a.quantity
		if d.block != 1 {
			q := rd.cell(qQuantity)
			l.ConsumedQuantity = blocks(q, a.quantity, d.block)
		}
	}
	l.Line = line
	if err := rd.tally.Add(l, a.cost, d.chargeType); err != nil {
		return fmt.Errorf("%s: %w", rd.where(), err)
	}
	if err := rd.emit(l); err != nil {
		return fmt.Errorf("%s: %w", rd.where(), err)
	}
	return nil
}

// amounts are a row's numbers.
type amounts struct {
	cost, list, contracted int64
	quantity               float64
}

// amounts reads the cost, the quantity and the prices, and derives ListCost and ContractedCost as
// Microsoft's validation guide does (docs-mslearn/focus/validate.md): ListCost is
// PaygCostInBillingCurrency where the file has it (MCA), else PayGPrice × Quantity (EA), converted
// to the billing currency by ExchangeRatePricingToBilling on MCA files; ContractedCost is
// UnitPrice × Quantity, converted likewise, and the cost itself where UnitPrice is absent or empty.
func (rd *reader) amounts() (amounts, error) {
	var a amounts
	var err error
	if a.cost, err = rd.money(aCost, true); err != nil {
		return a, err
	}
	a.contracted = a.cost
	q := rd.cell(qQuantity)
	if len(q) > 0 {
		v, err := strconv.ParseFloat(unsafe.String(&q[0], len(q)), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return a, rd.bad(qQuantity, wants[kQuantity], nil)
		}
		a.quantity = v
	}
	p := rd.plan
	if p.has(aPaygCost) {
		if a.list, err = rd.money(aPaygCost, false); err != nil {
			return a, err
		}
	} else if p.has(dPaygPrice) {
		if a.list, _, err = rd.product(dPaygPrice, q); err != nil {
			return a, err
		}
	}
	if p.has(dUnitPrice) {
		n, ok, err := rd.product(dUnitPrice, q)
		if err != nil {
			return a, err
		}
		if ok {
			a.contracted = n
		}
	}
	return a, nil
}

// money parses an amount cell into nano-units; an empty cell is zero unless required.
func (rd *reader) money(f field, required bool) (int64, error) {
	b := rd.cell(f)
	if len(b) == 0 {
		if required {
			return 0, rd.bad(f, wants[kAmount], nil)
		}
		return 0, nil
	}
	n, err := gpucost.ParseNanos(b)
	if err != nil {
		return 0, rd.bad(f, wants[kAmount], nil)
	}
	return n, nil
}

// product returns price × quantity, times the exchange rate on MCA files, in nano-units; ok is
// false for an empty price. An empty rate is one.
func (rd *reader) product(price field, quantity []byte) (n int64, ok bool, err error) {
	b := rd.cell(price)
	if len(b) == 0 {
		return 0, false, nil
	}
	pd, ok := parseDec(b)
	if !ok {
		return 0, false, rd.bad(price, wants[kPrice], nil)
	}
	qd, ok := parseDec(quantity)
	if !ok {
		return 0, false, rd.bad(qQuantity, wants[kQuantity], nil)
	}
	ds := [3]dec{pd, qd, decOne}
	if rd.plan.mca && rd.plan.has(dExchangeRate) {
		r := rd.cell(dExchangeRate)
		if len(r) > 0 {
			if ds[2], ok = parseDec(r); !ok {
				return 0, false, rd.bad(dExchangeRate, wants[kPrice], nil)
			}
		}
	}
	if n, err = mulNanos(ds[:]...); err != nil {
		return 0, false, fmt.Errorf("%s: %w", rd.where(), err)
	}
	return n, true, nil
}

// time parses a date cell, reusing the previous row's result when the cell repeats; an empty
// cell is the zero time.
func (rd *reader) time(f field) (time.Time, error) {
	b := rd.cell(f)
	if len(b) == 0 {
		return time.Time{}, nil
	}
	c := &rd.times[f-tDate]
	if string(b) == string(c.raw) && !c.t.IsZero() {
		return c.t, nil
	}
	t, ok := parseDate(b)
	if !ok {
		c.raw = c.raw[:0]
		return time.Time{}, rd.bad(f, wants[kTime], nil)
	}
	c.t, c.raw = t, append(c.raw[:0], b...)
	return t, nil
}

// costs returns the row's BilledCost and EffectiveCost. Actual cost is BilledCost and amortized
// cost EffectiveCost (Microsoft's conversion guide); what one file does not say is taken so that
// each dataset's own total stays whole:
//
//   - usage a commitment covers bills nothing (actual cost is 0 for it, and the amortized cost
//     is billed on the purchase), and costs its amortized share;
//   - UnusedReservation and UnusedSavingsPlan rows, amortized only, bill nothing and cost the
//     unused share;
//   - a commitment's purchase or refund bills its cost; its EffectiveCost is 0 in an amortized
//     file (where the covered usage and unused rows carry it) and the cost in an actual file,
//     which holds no amortized shares to carry it;
//   - every other row bills and costs its CostInBillingCurrency.
//
// The rows that only one dataset holds name the dataset when the caller did not; a row the
// caller's dataset cannot hold is an error.
func (rd *reader) costs(d *dims, a amounts, line int) (billed, effective int64, err error) {
	billed, effective = a.cost, a.cost
	switch d.cls.kind {
	case kindUnused:
		if rd.opt.Dataset == Actual {
			return 0, 0, rd.contradiction("ChargeType "+d.chargeType+" appears only in amortized cost details", Amortized)
		}
		rd.evidence(Amortized, line, "ChargeType "+d.chargeType)
		billed = 0
	case kindCommitUsage:
		switch {
		case a.cost != 0 && rd.opt.Dataset == Actual:
			return 0, 0, rd.contradiction("usage a commitment covers costs nothing in actual cost details, but this row costs "+
				gpucost.Money{Nanos: a.cost, Currency: d.line.BilledCost.Currency}.Decimal(), Amortized)
		case a.cost != 0:
			rd.evidence(Amortized, line, "usage a commitment covers has a cost")
		case a.quantity > 0:
			rd.evidence(Actual, line, "usage a commitment covers costs nothing")
		}
		billed = 0
	case kindCommitPurchase:
		rd.evidence(Actual, line, "a commitment's "+strings.ToLower(d.chargeType))
		if rd.opt.Dataset == Amortized {
			effective = 0
		}
	}
	return billed, effective, nil
}

// evidence records what a row shows of the dataset, when the caller did not name it: the first
// row that shows one decides Stats.Dataset, and a later row showing the other is noted.
func (rd *reader) evidence(ds Dataset, line int, why string) {
	switch {
	case rd.opt.Dataset != "":
	case rd.dataset == "":
		rd.dataset, rd.datasetFrom = ds, fmt.Sprintf("line %d: %s", line, why)
	case rd.dataset != ds && !strings.Contains(rd.datasetFrom, "mixes"):
		rd.datasetFrom += fmt.Sprintf("; but line %d: %s, so the file mixes the actual and amortized datasets", line, why)
	}
}

func (rd *reader) contradiction(what string, ds Dataset) error {
	return gpucost.Errorf(gpucost.EInvalid, "%s: %s, but the file was read as %s cost; read it as %s cost, or let the rows tell",
		rd.where(), what, rd.opt.Dataset, ds)
}

// dimensions returns the row's dimensions, from the cache when its cells were seen before.
func (rd *reader) dimensions() (*dims, error) {
	key := rd.key[:0]
	for _, i := range rd.keyCols {
		f, e := rd.sc.Raw(i)
		n := len(f) << 1
		if e == csvscan.Doubled {
			n |= 1
		}
		key = append(binary.AppendUvarint(key, uint64(n)), f...)
	}
	rd.key = key
	if rd.last != nil && string(key) == string(rd.lastKey) {
		return rd.last, nil
	}
	d, ok := rd.dims.Get(key)
	if !ok {
		var err error
		if d, err = rd.parseDims(); err != nil {
			return nil, err
		}
		rd.dims.Put(key, d)
	}
	rd.last, rd.lastKey = d, append(rd.lastKey[:0], key...)
	return d, nil
}

// newDimsCache returns the cache of the dimensions of rows, keyed by their dimension cells.
func newDimsCache() intern.Generations[*dims] {
	return intern.Generations[*dims]{MaxBytes: dimsGenBytes, EntryBytes: int(unsafe.Sizeof(dims{})) + 64}
}
