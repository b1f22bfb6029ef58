package telemetry

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// hourOf returns the hour rollup of one GPU's samples at the given minutes of the hour, with
// utilisation util and memory mem.
func hourOf(minutes []int, util, mem float64) gpucost.Rollup {
	b := NewBatch(0)
	for _, m := range minutes {
		for s := 0; s < 60; s += 20 {
			smp := sample(gpu(0), time.Duration(m)*time.Minute+time.Duration(s)*time.Second, util)
			smp.MemUsedMiB = mem
			b.Add(smp)
		}
	}
	out := Rollup(b, 5)
	return out[len(out)-1]
}

// minuteOf returns the minute rollup of one GPU's samples at the given seconds of minute 0.
func minuteOf(seconds []int, util float64) gpucost.Rollup {
	b := NewBatch(0)
	for _, s := range seconds {
		b.Add(sample(gpu(0), time.Duration(s)*time.Second, util))
	}
	return Rollup(b, 5)[0]
}

func TestMerge(t *testing.T) {
	cases := []struct {
		name              string
		stored, incoming  gpucost.Rollup
		kind              MergeKind
		samples           int
		coverage, idle    uint64
		utilP50, memP95   float64
		utilSum, utilMean float64
	}{
		{"re-import", hourOf([]int{0, 1, 2}, 50, 100), hourOf([]int{1, 2}, 50, 100), Unchanged, 9, 0b111, 0, 50, 100, 450, 50},
		{"same again", hourOf([]int{0, 1}, 50, 100), hourOf([]int{0, 1}, 70, 100), Unchanged, 6, 0b11, 0, 50, 100, 300, 50},
		{"superset", hourOf([]int{1}, 50, 100), hourOf([]int{0, 1, 2}, 60, 200), Replaced, 9, 0b111, 0, 60, 200, 540, 60},
		{"disjoint", hourOf([]int{0, 1, 2}, 2, 100), hourOf([]int{3}, 90, 300), Merged, 12, 0b1111, 0b111, 2, 300, 288, 24},
		{"partial, incoming fuller", hourOf([]int{0, 1}, 10, 100), hourOf([]int{1, 2, 3}, 40, 100), Conflict, 9, 0b1110, 0, 40, 100, 360, 40},
		{"partial, stored fuller", hourOf([]int{0, 1, 2}, 10, 100), hourOf([]int{2, 3}, 40, 100), Conflict, 9, 0b111, 0, 10, 100, 90, 10},
		{"minute disjoint", minuteOf([]int{0, 10}, 2), minuteOf([]int{20, 30, 40}, 20), Merged, 5, 1<<0 | 1<<10 | 1<<20 | 1<<30 | 1<<40, 0, 12.8, math.NaN(), 64, 12.8},
		{"minute re-import", minuteOf([]int{0, 10, 20}, 2), minuteOf([]int{10}, 2), Unchanged, 3, 1<<0 | 1<<10 | 1<<20, 1, 2, math.NaN(), 6, 2},
	}
	for _, c := range cases {
		stored := c.stored
		storedHist := slices.Clone(stored.UtilHist)
		got, kind := Merge(c.stored, c.incoming)
		if kind != c.kind || got.Samples != c.samples || got.Coverage != c.coverage || got.IdleMask != c.idle ||
			!same(got.UtilP50, c.utilP50) || !same(got.MemP95MiB, c.memP95) || got.UtilSum != c.utilSum ||
			!same(got.UtilMean(), c.utilMean) {
			t.Errorf("%s: Merge = %v samples %d coverage %#b idle %#b p50 %v mem p95 %v sum %v mean %v; want %v %d %#b %#b %v %v %v %v",
				c.name, kind, got.Samples, got.Coverage, got.IdleMask, got.UtilP50, got.MemP95MiB, got.UtilSum, got.UtilMean(),
				c.kind, c.samples, c.coverage, c.idle, c.utilP50, c.memP95, c.utilSum, c.utilMean)
		}
		if got.IdleMinutes != popcount(got.IdleMask) {
			t.Errorf("%s: IdleMinutes = %d with IdleMask %#b", c.name, got.IdleMinutes, got.IdleMask)
		}
		if !slices.Equal(c.stored.UtilHist, storedHist) {
			t.Errorf("%s: Merge changed the stored histogram", c.name)
		}
	}
}

func TestCombineHourIsExact(t *testing.T) {
	b := NewBatch(0)
	for m := range 60 {
		b.Add(sample(gpu(0), time.Duration(m)*time.Minute, float64(m%7*15)))
	}
	whole := Rollup(b, 20)
	var first, second []gpucost.Sample
	for m := range 60 {
		s := sample(gpu(0), time.Duration(m)*time.Minute, float64(m%7*15))
		if m%3 == 0 {
			first = append(first, s)
		} else {
			second = append(second, s)
		}
	}
	a, c := rollupSamples(first, 20), rollupSamples(second, 20)
	got, kind := Merge(a[len(a)-1], c[len(c)-1])
	want := whole[len(whole)-1]
	if kind != Merged {
		t.Fatalf("Merge of interleaved minutes = %v, want merged", kind)
	}
	got.Series = want.Series
	if d := rollupDiff(&got, &want); d != "" {
		t.Errorf("merged hour: %s", d)
	}
}

func rollupSamples(ss []gpucost.Sample, idleBelow float64) []gpucost.Rollup {
	b := NewBatch(0)
	for _, s := range ss {
		b.Add(s)
	}
	return Rollup(b, idleBelow)
}

func TestCombineMinuteIdleByMajority(t *testing.T) {
	idle, busy := minuteOf([]int{0, 1, 2}, 1), minuteOf([]int{30}, 50) // mean 12.9 > 5 but idle holds 3 of 4
	if got := Combine(idle, busy); got.IdleMask != 1 || got.IdleMinutes != 1 {
		t.Errorf("Combine(idle 3 samples, busy 1) idle = %d, want 1", got.IdleMask)
	}
	if got := Combine(minuteOf([]int{0}, 1), minuteOf([]int{30, 31}, 50)); got.IdleMask != 0 {
		t.Errorf("Combine(idle 1 sample, busy 2) idle = %d, want 0", got.IdleMask)
	}
}

func TestMergeSplit(t *testing.T) {
	stored := hourOf([]int{0, 1, 2}, 2, 100)
	incoming := hourOf([]int{2, 3}, 2, 100)
	if _, kind := MergeSplit(stored, incoming, 0, 0); kind != Conflict {
		t.Errorf("MergeSplit without split minutes = %v, want conflict", kind)
	}
	got, kind := MergeSplit(stored, incoming, 1<<2, 0)
	if kind != Merged || got.Samples != 15 || got.Coverage != 0b1111 || got.IdleMask != 0b1011 || got.IdleMinutes != 3 {
		t.Errorf("MergeSplit(minute 2 split, busy) = %v samples %d coverage %#b idle %#b (%d)",
			kind, got.Samples, got.Coverage, got.IdleMask, got.IdleMinutes)
	}
	if _, kind := MergeSplit(stored, hourOf([]int{1, 2}, 2, 100), 1<<2, 0); kind != Unchanged {
		t.Errorf("MergeSplit with minute 1 not split = %v, want Merge's unchanged", kind)
	}
}

func TestMergeP95(t *testing.T) {
	cases := []struct {
		name       string
		p95a, maxa float64
		na         int
		p95b, maxb float64
		nb         int
		want       float64
	}{
		{"one side absent", math.NaN(), math.NaN(), 0, 7, 9, 10, 7},
		{"equal", 10, 10, 60, 10, 10, 60, 10},
		{"a spike of 3 of 60 minutes stays below p95", 10, 10, 57, 80, 80, 3, 10},
		{"a spike of 6 of 60 minutes is the p95", 10, 10, 54, 80, 80, 6, 80},
		{"a small part's high max counts little", 10, 10, 100, 20, 90, 1, 10},
	}
	for _, c := range cases {
		if got := mergeP95(c.p95a, c.maxa, c.na, c.p95b, c.maxb, c.nb); !same(got, c.want) {
			t.Errorf("%s: mergeP95(%v, %v, %d, %v, %v, %d) = %v, want %v", c.name, c.p95a, c.maxa, c.na, c.p95b, c.maxb, c.nb, got, c.want)
		}
	}
	// Merged minute by minute, as the agent writes an hour, a 10-minute spike keeps its p95.
	acc := hourOf([]int{0}, 50, 1000)
	for m := 1; m < 60; m++ {
		mem := 1000.0
		if m >= 20 && m < 30 {
			mem = 9000
		}
		acc, _ = Merge(acc, hourOf([]int{m}, 50, mem))
	}
	if acc.MemP95MiB != 9000 || acc.MemMaxMiB != 9000 {
		t.Errorf("hour merged minute by minute: MemP95MiB %v, MemMaxMiB %v; want 9000, 9000", acc.MemP95MiB, acc.MemMaxMiB)
	}
}

func same(a, b float64) bool { return a == b || a != a && b != b }

func popcount(v uint64) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}

func TestHistQuantiles(t *testing.T) {
	cases := []struct {
		counts   map[int]uint32
		p50, p95 float64
	}{
		{map[int]uint32{}, math.NaN(), math.NaN()},
		{map[int]uint32{7: 1}, 7, 7},
		{map[int]uint32{0: 1, 100: 1}, 0, 100},
		{map[int]uint32{0: 50, 100: 50}, 0, 100},
		{map[int]uint32{0: 49, 100: 51}, 100, 100},
		{map[int]uint32{10: 95, 90: 5}, 10, 10},
		{map[int]uint32{10: 94, 90: 6}, 10, 90},
	}
	for _, c := range cases {
		h := make([]uint32, HistBins)
		for bin, n := range c.counts {
			h[bin] = n
		}
		p50, p95 := HistQuantiles(h)
		if !same(p50, c.p50) || !same(p95, c.p95) {
			t.Errorf("HistQuantiles(%v) = %v, %v; want %v, %v", c.counts, p50, p95, c.p50, c.p95)
		}
	}
}

func TestSelectK(t *testing.T) {
	for n := 1; n < 200; n += 7 {
		for _, shape := range []string{"random", "equal", "sorted", "reversed"} {
			a := make([]float64, n)
			for i := range a {
				switch shape {
				case "random":
					a[i] = float64((i * 7919) % 101)
				case "equal":
					a[i] = 3
				case "sorted":
					a[i] = float64(i)
				case "reversed":
					a[i] = float64(n - i)
				}
			}
			sorted := slices.Sorted(slices.Values(a))
			for _, k := range []int{0, n / 2, n - 1} {
				b := slices.Clone(a)
				if got := selectK(b, k); got != sorted[k] {
					t.Errorf("selectK(%s n=%d, %d) = %v, want %v", shape, n, k, got, sorted[k])
				}
			}
		}
	}
}
