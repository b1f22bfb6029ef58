package storetest

import (
	"fmt"
	"iter"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// LineGen makes random cost lines for property tests. Each generator draws its strings, amounts
// and maps from pools of its own size, so that some runs of lines have one value per column, some
// a few and some a new value on every line; it also hands out shared maps and changes them in
// place, as a reader that reuses maps might.
type LineGen struct {
	rng    *rand.Rand
	pool   int // distinct values per column; 0 for a new one each line
	shared []map[string]string
	odd    []string
}

// NewLineGen returns a generator seeded with seed that draws from pools of pool values (0: a new
// value every time). Its odd strings are oddStrings and extra (say, strings only one store keeps).
func NewLineGen(seed uint64, pool int, extra ...string) *LineGen {
	g := &LineGen{rng: rand.New(rand.NewPCG(seed, 7)), pool: pool, odd: append(oddStrings[:len(oddStrings):len(oddStrings)], extra...)}
	for i := range 3 {
		g.shared = append(g.shared, map[string]string{"team": fmt.Sprint("t", i)})
	}
	return g
}

// oddStrings are strings every store keeps exactly. (A NUL byte is left out: PostgreSQL text
// cannot hold one, and the PostgreSQL store rejects such a line; the SQLite store's own tests
// cover it.)
var oddStrings = []string{"", "AWS", "Microsoft", "Google Cloud", "i-0abc", "ünïcödé €", strings.Repeat("long", 300),
	"a=b,c=d", `"quoted" \ back`, "USD", "EUR"}

func (g *LineGen) str() string {
	if g.rng.IntN(8) == 0 {
		return g.odd[g.rng.IntN(len(g.odd))]
	}
	if g.pool == 0 {
		return fmt.Sprintf("s%d", g.rng.Uint64())
	}
	return fmt.Sprintf("v%d", g.rng.IntN(g.pool))
}

// IntN returns a random int in [0, n) from the generator's source.
func (g *LineGen) IntN(n int) int { return g.rng.IntN(n) }

func (g *LineGen) int64() int64 {
	switch g.rng.IntN(10) {
	case 0:
		return []int64{0, -1, 1, math.MinInt64, math.MaxInt64}[g.rng.IntN(5)]
	case 1, 2:
		return g.rng.Int64() - g.rng.Int64()
	case 3, 4:
		return -g.rng.Int64N(1e12)
	}
	if g.pool == 0 {
		return g.rng.Int64N(1e13)
	}
	return int64(g.rng.IntN(g.pool)) * 1_234_567_891
}

func (g *LineGen) time() time.Time {
	if g.rng.IntN(6) == 0 {
		return time.Time{}
	}
	const year1, year9999 = -62135596800, 253402300799
	if g.rng.IntN(3) == 0 {
		return time.Unix(year1+g.rng.Int64N(year9999-year1), g.rng.Int64N(1e9)).UTC()
	}
	return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, g.rng.IntN(max(g.pool, 2)))
}

func (g *LineGen) float() float64 {
	switch g.rng.IntN(12) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Inf(g.rng.IntN(2)*2 - 1)
	case 3, 4, 5:
		return 24
	}
	return g.rng.NormFloat64() * 1e3
}

func (g *LineGen) tags() map[string]string {
	switch g.rng.IntN(8) {
	case 0:
		return nil
	case 1:
		return map[string]string{}
	case 2: // a shared map, sometimes changed since it was last handed out
		m := g.shared[g.rng.IntN(len(g.shared))]
		if g.rng.IntN(2) == 0 {
			m["env"] = g.str()
		}
		return m
	}
	m := map[string]string{}
	for range g.rng.IntN(4) {
		m[g.str()] = g.str()
	}
	return m
}

// Line returns a random line. Its maps may be shared with earlier lines and changed later:
// Clone copies what it holds now.
func (g *LineGen) Line() gpucost.CostLine {
	var l gpucost.CostLine
	for _, p := range []*string{&l.Provider, &l.BillingAccountID, &l.SubAccountID, &l.ChargeCategory, &l.ChargeClass,
		&l.ChargeFrequency, &l.PricingCategory, &l.CommitmentDiscountID, &l.CommitmentDiscountStatus,
		&l.CommitmentDiscountType, &l.CommitmentDiscountCategory, &l.ResourceID, &l.ResourceName, &l.ResourceType,
		&l.InstanceType, &l.ServiceName, &l.ServiceCategory, &l.RegionID, &l.AvailabilityZone, &l.SkuID,
		&l.SkuPriceID, &l.ChargeDescription, &l.ConsumedUnit, &l.PricingUnit,
		&l.BilledCost.Currency, &l.EffectiveCost.Currency, &l.ListCost.Currency, &l.ContractedCost.Currency} {
		*p = g.str()
	}
	if g.rng.IntN(2) == 0 { // amounts in one currency, as readers give them
		c := l.BilledCost.Currency
		l.EffectiveCost.Currency, l.ListCost.Currency, l.ContractedCost.Currency = c, c, c
	}
	l.BillingPeriodStart, l.ChargePeriodStart = g.time(), g.time()
	l.ChargePeriodEnd = l.ChargePeriodStart.Add(24 * time.Hour)
	if g.rng.IntN(5) == 0 {
		l.ChargePeriodEnd = g.time()
	}
	l.BilledCost.Nanos, l.EffectiveCost.Nanos = g.int64(), g.int64()
	l.ListCost.Nanos, l.ContractedCost.Nanos = g.int64(), g.int64()
	l.ConsumedQuantity, l.PricingQuantity = g.float(), g.float()
	l.Tags, l.Extra = g.tags(), g.tags()
	l.Line, l.Rows = int(g.int64()), g.rng.IntN(100)
	return l
}

// Clone returns a copy of l that shares none of its maps.
func Clone(l *gpucost.CostLine) gpucost.CostLine {
	c := *l
	c.Tags, c.Extra = maps.Clone(l.Tags), maps.Clone(l.Extra)
	return c
}

// LineDiff describes how got differs from want, "" if it does not. Quantities compare by their
// bits, so NaN equals NaN.
func LineDiff(got, want *gpucost.CostLine) string {
	g, w := *got, *want
	for _, q := range [][2]*float64{{&g.ConsumedQuantity, &w.ConsumedQuantity}, {&g.PricingQuantity, &w.PricingQuantity}} {
		if math.Float64bits(*q[0]) != math.Float64bits(*q[1]) {
			return fmt.Sprintf("quantity %v, want %v", *q[0], *q[1])
		}
		*q[0], *q[1] = 0, 0
	}
	if !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("\n got %#v\nwant %#v", g, w)
	}
	return ""
}

// SeqOf yields each of lines through one reused *CostLine, as readers do.
func SeqOf(lines []gpucost.CostLine) iter.Seq[*gpucost.CostLine] {
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for i := range lines {
			l = lines[i]
			if !yield(&l) {
				return
			}
		}
	}
}

// BillLines returns a bill of days × resources lines from three providers, some charge periods
// starting off the second.
func BillLines(days, resources int) []gpucost.CostLine {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []gpucost.CostLine
	for d := range days {
		for r := range resources {
			start := t0.AddDate(0, 0, d)
			if r%7 == 3 {
				start = start.Add(time.Duration(r) * time.Millisecond)
			}
			out = append(out, gpucost.CostLine{
				Provider:   []string{"AWS", "Google Cloud", "Microsoft"}[r%3],
				ResourceID: fmt.Sprintf("res-%03d", r), ChargePeriodStart: start, ChargePeriodEnd: start.AddDate(0, 0, 1),
				BilledCost: gpucost.USD(int64(d*1000 + r)), Tags: gpucost.Labels{"team": fmt.Sprint("t", r%4)},
				ConsumedQuantity: 24, Rows: 24,
			})
		}
	}
	return out
}
