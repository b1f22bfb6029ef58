package focus

import (
	"bytes"
	"maps"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Stats says what a read found: the stats every bill reader reports (totals.Stats: Format
// "csv", "csv.gz" or "parquet", the FOCUS Version, Rows, and Totals by billing currency, exact
// sums of the rows read, so an import can print them and a re-read can be checked against them
// to the nano-unit), and what only FOCUS has. Of the columns outside the FOCUS specification (x_
// columns and any other), Kept are those, in file order, whose values are in CostLine.Extra, and
// Unknown those that Options.Extra did not choose, read past.
type Stats struct {
	totals.Stats

	// VersionColumns are the columns that decided Version: the latest version that introduced
	// one of the header's columns, 1.0 when none of a later version is present. Since the
	// columns new in 1.1 and 1.2 are optional, a 1.2 export that carries none of them reads as
	// 1.0; the columns it has mean the same in every version.
	VersionColumns []string

	// ChargePeriodStart is the earliest start and ChargePeriodEnd the latest end of a charge.
	ChargePeriodStart, ChargePeriodEnd time.Time
}

// builder fills one CostLine from the values of a row, whatever the file format, and keeps the
// statistics. Values are interned per column.
type builder struct {
	file   string
	line   gpucost.CostLine
	set    uint64 // bit f is set when field f had a value in this row
	strs   [numFields]strCache
	extras []strCache // by position among the extra columns
	names  []string   // extra column names, by position
	times  [3]timeCache
	tags   tagCache
	pairs  pairCache
	stats  Stats

	extra  map[string]string // the Extra map, reused from row to row while it is filled
	shared extraSets         // what a line carries: one map per distinct set of values

	tally totals.Tally

	lenient bool             // Options.Lenient
	coerced totals.Coercions // what a lenient read rewrote
	signs   []signAt         // the currency signs taken off this row's amounts
	scratch []byte           // a coerced amount's text
}

func newBuilder(file string, l *layout, format string) *builder {
	b := &builder{file: file, names: l.extra}
	b.extras = make([]strCache, len(l.extra))
	if len(l.extra) > 0 {
		b.extra = make(map[string]string, len(l.extra))
	}
	for f := range b.strs {
		b.strs[f].enum = kindOf(field(f)) == kEnum
	}
	b.stats = Stats{Stats: totals.Stats{Format: format, Version: l.version, Kept: l.extra, Unknown: l.dropped}, VersionColumns: l.versionColumns}
	return b
}

// timeCache remembers the last time text of a column and what it meant.
type timeCache struct {
	raw  [40]byte
	n    int
	last time.Time
}

func (c *timeCache) get(b []byte) (time.Time, bool) {
	if len(b) == c.n && c.n > 0 && bytes.Equal(b, c.raw[:c.n]) {
		return c.last, true
	}
	t, ok := parseTime(b)
	if ok && len(b) <= len(c.raw) {
		c.n = copy(c.raw[:], b)
		c.last = t
	}
	return t, ok
}

// extraSets hands out one Extra map per distinct set of extra values, so that lines with the
// same extras share a map that never changes once emitted (what importers rely on to sum lines
// by their extras), while the builder refills its own map row after row.
type extraSets struct {
	byKey map[string]map[string]string
	key   []byte
}

// maxExtraSets bounds the cache: a file whose extras are unique per row gets maps that are
// shared less, not unbounded memory.
const maxExtraSets = 1 << 14

func (c *extraSets) of(m map[string]string, names []string) map[string]string {
	if len(m) == 0 {
		return nil
	}
	c.key = c.key[:0]
	for _, name := range names {
		if v, ok := m[name]; ok {
			c.key = append(c.key, name...)
			c.key = append(c.key, 0)
			c.key = append(c.key, v...)
			c.key = append(c.key, 0)
		}
	}
	if shared, ok := c.byKey[string(c.key)]; ok {
		return shared
	}
	if c.byKey == nil || len(c.byKey) >= maxExtraSets {
		c.byKey = map[string]map[string]string{}
	}
	shared := maps.Clone(m)
	c.byKey[string(c.key)] = shared
	return shared
}

// begin starts a row. The line and its Extra map are reused: every field the file has is
// written for each row.
func (b *builder) begin(n int) {
	b.line.Line = n
	b.set = 0
	b.signs = b.signs[:0]
	b.line.Tags = nil
	if b.line.Extra != nil {
		clear(b.extra)
		b.line.Extra = nil
	}
}

// setExtra stores the value of the i'th extra column (not null).
func (b *builder) setExtra(i int, v []byte) {
	b.line.Extra = b.extra
	b.extra[b.names[i]] = b.extras[i].get(v)
}

// stringOf returns the text field f of l.
func stringOf(l *gpucost.CostLine, f field) *string {
	switch f {
	case fProvider:
		return &l.Provider
	case fBillingAccountID:
		return &l.BillingAccountID
	case fSubAccountID:
		return &l.SubAccountID
	case fBillingCurrency:
		return &l.BilledCost.Currency
	case fChargeCategory:
		return &l.ChargeCategory
	case fChargeClass:
		return &l.ChargeClass
	case fChargeFrequency:
		return &l.ChargeFrequency
	case fPricingCategory:
		return &l.PricingCategory
	case fCommitmentDiscountID:
		return &l.CommitmentDiscountID
	case fCommitmentDiscountStatus:
		return &l.CommitmentDiscountStatus
	case fCommitmentDiscountType:
		return &l.CommitmentDiscountType
	case fCommitmentDiscountCategory:
		return &l.CommitmentDiscountCategory
	case fResourceID:
		return &l.ResourceID
	case fResourceName:
		return &l.ResourceName
	case fResourceType:
		return &l.ResourceType
	case fServiceName:
		return &l.ServiceName
	case fServiceCategory:
		return &l.ServiceCategory
	case fRegionID:
		return &l.RegionID
	case fAvailabilityZone:
		return &l.AvailabilityZone
	case fSkuID:
		return &l.SkuID
	case fSkuPriceID:
		return &l.SkuPriceID
	case fChargeDescription:
		return &l.ChargeDescription
	case fConsumedUnit:
		return &l.ConsumedUnit
	case fPricingUnit:
		return &l.PricingUnit
	case fInstanceType:
		return &l.InstanceType
	}
	panic("focus: field is not a string")
}

// timeIndex is the timeCache of a time field.
func timeIndex(f field) int { return int(f - fBillingPeriodStart) }

func (b *builder) floatField(f field) *float64 { return quantityField(&b.line, f) }

func quantityField(l *gpucost.CostLine, f field) *float64 {
	if f == fConsumedQuantity {
		return &l.ConsumedQuantity
	}
	return &l.PricingQuantity
}

// rowNeeds are the fields every row must have: without them a line cannot be counted.
var rowNeeds = []field{fBilledCost, fEffectiveCost, fBillingCurrency, fChargePeriodStart, fChargePeriodEnd}

// finish completes the row: it checks the values every row needs, puts the billing currency on
// the amounts and adds them to the totals. missing names a needed field the row lacks.
func (b *builder) finish() (missing field, err error) { return b.finishLine(&b.line, b.set) }

// finishLine is finish for line l whose set fields are set.
func (b *builder) finishLine(l *gpucost.CostLine, set uint64) (missing field, err error) {
	for _, f := range rowNeeds {
		if set&(1<<f) == 0 {
			return f, nil
		}
	}
	l.Extra = b.shared.of(l.Extra, b.names)
	cur := l.BilledCost.Currency
	l.EffectiveCost.Currency, l.ListCost.Currency, l.ContractedCost.Currency = cur, cur, cur
	if err := b.tally.Add(l, 0, ""); err != nil {
		return 0, gpucost.Errorf(gpucost.EInvalid, "%s: the %s total passes the range of an amount (±9.2 billion); split the file", b.file, cur)
	}
	if s := l.ChargePeriodStart; b.stats.ChargePeriodStart.IsZero() || s.Before(b.stats.ChargePeriodStart) {
		b.stats.ChargePeriodStart = s
	}
	if e := l.ChargePeriodEnd; e.After(b.stats.ChargePeriodEnd) {
		b.stats.ChargePeriodEnd = e
	}
	return 0, nil
}

// result returns the statistics so far.
func (b *builder) result() Stats {
	s := b.stats
	b.tally.Fill(&s.Stats, false)
	s.Coerced = b.coerced.List()
	return s
}
