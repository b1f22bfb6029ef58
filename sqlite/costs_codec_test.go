package sqlite

import (
	"math"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
)

// nulString is a string SQLite keeps and PostgreSQL text cannot: the chunk codec must keep it.
const nulString = "x\x00y"

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
		want = append(want, storetest.Clone(&l))
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
	var (
		l      gpucost.CostLine
		shared [numMapCols]sharedMaps
	)
	for i, c := range chunks {
		if err := dict.add(1, c.strs); err != nil {
			t.Fatalf("chunk %d: strings: %v", i, err)
		}
		if err := cf.decode(&d, &dict, c.data, c.minStart, c.maxStart); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		err := d.emit(&l, &shared, func(l *gpucost.CostLine) error {
			got = append(got, storetest.Clone(l))
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
			g := storetest.NewLineGen(seed, pool, nulString)
			n, maxLines, maxStrings := 1+g.IntN(500), 1+g.IntN(300), uint32(1+g.IntN(2000))
			if seed == 0 && pool == 3 {
				n, maxLines, maxStrings = costChunkLines+1, 0, 0
			}
			chunks, want := encodeLines(n, maxLines, maxStrings, g.Line)
			got := decodeChunks(t, chunks, gpucost.CostFilter{})
			if len(got) != n {
				t.Fatalf("pool %d seed %d: %d lines back, want %d", pool, seed, len(got), n)
			}
			for i := range got {
				if d := storetest.LineDiff(&got[i], &want[i]); d != "" {
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
		g := storetest.NewLineGen(uint64(pool), pool, nulString)
		chunks, _ := encodeLines(1+pool, 0, 0, g.Line)
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
		d.emit(&l, &[numMapCols]sharedMaps{}, func(*gpucost.CostLine) error { return nil })
	})
}
