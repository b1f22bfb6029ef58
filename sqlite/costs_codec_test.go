package sqlite

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// lineGen makes random cost lines for property tests. Each generator draws its strings, amounts
// and maps from pools of its own size, so some chunks have one value per column, some a few and
// some a new value on every line; it also hands out shared maps and changes them in place, as a
// reader that reuses maps might.
type lineGen struct {
	rng    *rand.Rand
	pool   int // distinct values per column; 0 for a new one each line
	shared []map[string]string
}

func newLineGen(seed uint64, pool int) *lineGen {
	g := &lineGen{rng: rand.New(rand.NewPCG(seed, 7)), pool: pool}
	for i := range 3 {
		g.shared = append(g.shared, map[string]string{"team": fmt.Sprint("t", i)})
	}
	return g
}

var oddStrings = []string{"", "AWS", "Microsoft", "Google Cloud", "i-0abc", "x\x00y", "ünïcödé €", strings.Repeat("long", 300),
	"a=b,c=d", "USD", "EUR"}

func (g *lineGen) str() string {
	if g.rng.IntN(8) == 0 {
		return oddStrings[g.rng.IntN(len(oddStrings))]
	}
	if g.pool == 0 {
		return fmt.Sprintf("s%d", g.rng.Uint64())
	}
	return fmt.Sprintf("v%d", g.rng.IntN(g.pool))
}

func (g *lineGen) int64() int64 {
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

func (g *lineGen) time() time.Time {
	if g.rng.IntN(6) == 0 {
		return time.Time{}
	}
	const year1, year9999 = -62135596800, 253402300799
	if g.rng.IntN(3) == 0 {
		return time.Unix(year1+g.rng.Int64N(year9999-year1), g.rng.Int64N(1e9)).UTC()
	}
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, g.rng.IntN(max(g.pool, 2)))
	return day
}

func (g *lineGen) float() float64 {
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

func (g *lineGen) tags() map[string]string {
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

// line returns a random line. Its maps may be shared with earlier lines and changed later:
// clone copies what it holds now.
func (g *lineGen) line() gpucost.CostLine {
	var l gpucost.CostLine
	for _, p := range strFields(&l) {
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

// clone returns a copy of l that shares none of its maps.
func clone(l *gpucost.CostLine) gpucost.CostLine {
	c := *l
	c.Tags, c.Extra = maps.Clone(l.Tags), maps.Clone(l.Extra)
	return c
}

// lineDiff describes how got differs from want, "" if it does not. Quantities compare by their
// bits, so NaN equals NaN.
func lineDiff(got, want *gpucost.CostLine) string {
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

// encodedChunk is a chunk as the store keeps it.
type encodedChunk struct {
	strs, data         []byte
	minStart, maxStart int64
}

// encodeLines encodes n lines from next, as they come, in chunks of at most maxLines, with an
// import dictionary that starts afresh past maxStrings. It returns the chunks and copies of the
// lines.
func encodeLines(n, maxLines int, maxStrings uint32, next func() gpucost.CostLine) ([]encodedChunk, []gpucost.CostLine) {
	e := chunkEncoder{maxLines: maxLines}
	e.dict.maxStrings = maxStrings
	var chunks []encodedChunk
	flush := func() {
		c := encodedChunk{minStart: e.minStart, maxStart: e.maxStart}
		c.strs, c.data = e.encode(nil, nil)
		chunks = append(chunks, c)
	}
	var want []gpucost.CostLine
	for range n {
		if e.full() {
			flush()
		}
		l := next()
		e.add(&l)
		want = append(want, clone(&l))
	}
	if e.n > 0 {
		flush()
	}
	return chunks, want
}

// decodeChunks decodes chunks of one import with filter f and returns copies of the lines.
func decodeChunks(t *testing.T, chunks []encodedChunk, f gpucost.CostFilter) []gpucost.CostLine {
	t.Helper()
	cf := newCostFilter(f)
	var dict scanDict
	var d chunkDecoder
	var got []gpucost.CostLine
	var l gpucost.CostLine
	for i, c := range chunks {
		if err := dict.add(1, c.strs); err != nil {
			t.Fatalf("chunk %d: strings: %v", i, err)
		}
		if err := cf.decode(&d, &dict, c.data, c.minStart, c.maxStart); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		err := d.emit(&l, func(l *gpucost.CostLine) error {
			got = append(got, clone(l))
			l.Provider, l.ResourceID, l.Tags = "scribbled", "scribbled", nil // fn may change its line
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return got
}

func TestCostChunkRoundTrip(t *testing.T) {
	for _, pool := range []int{1, 3, 300, 0} {
		for seed := range uint64(12) {
			g := newLineGen(seed, pool)
			n, maxLines, maxStrings := 1+g.rng.IntN(500), 1+g.rng.IntN(300), uint32(1+g.rng.IntN(2000))
			if seed == 0 && pool == 3 {
				n, maxLines, maxStrings = costChunkLines+1, 0, 0
			}
			chunks, want := encodeLines(n, maxLines, maxStrings, g.line)
			got := decodeChunks(t, chunks, gpucost.CostFilter{})
			if len(got) != n {
				t.Fatalf("pool %d seed %d: %d lines back, want %d", pool, seed, len(got), n)
			}
			for i := range got {
				if d := lineDiff(&got[i], &want[i]); d != "" {
					t.Fatalf("pool %d seed %d line %d (%d to a chunk, dictionary of %d): %s", pool, seed, i, maxLines, maxStrings, d)
				}
			}
		}
	}
}

// TestCostChunkConstantColumns checks that a chunk whose columns each hold one value stays
// small: a byte a line for the start, which varies, and a few hundred for the rest.
func TestCostChunkConstantColumns(t *testing.T) {
	var e chunkEncoder
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	tags := gpucost.Labels{"team": "ml"}
	for i := range 1000 {
		l := gpucost.CostLine{Provider: "AWS", ResourceID: "i-1", ChargePeriodStart: day.AddDate(0, 0, i%30),
			ChargePeriodEnd: day.AddDate(0, 0, i%30+1), BilledCost: gpucost.USD(2_359_680_000_000),
			ConsumedQuantity: 24, Tags: tags, Line: i + 2, Rows: 24}
		e.add(&l)
	}
	if strs, data := e.encode(nil, nil); len(data) > 1300 || len(strs) > 100 {
		t.Errorf("1,000 lines with the charge period start varying took %d bytes and %d of strings, want ≤ 1,300 and 100", len(data), len(strs))
	}
}

func FuzzDecodeCostChunk(f *testing.F) {
	for _, pool := range []int{1, 3, 0} {
		g := newLineGen(uint64(pool), pool)
		chunks, _ := encodeLines(1+pool, 0, 0, g.line)
		f.Add(chunks[0].strs, chunks[0].data)
	}
	f.Fuzz(func(t *testing.T, strs, data []byte) {
		var dict scanDict
		if dict.add(1, strs) != nil {
			return
		}
		var d chunkDecoder
		if newCostFilter(gpucost.CostFilter{}).decode(&d, &dict, data, math.MinInt64, math.MaxInt64) != nil {
			return
		}
		var l gpucost.CostLine
		d.emit(&l, func(*gpucost.CostLine) error { return nil })
	})
}
