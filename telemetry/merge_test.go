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
		kind              gpucost.MergeKind
		samples           int
		coverage, idle    uint64
		utilP50, memP95   float64
		utilSum, utilMean float64
	}{
		{"re-import", hourOf([]int{0, 1, 2}, 50, 100), hourOf([]int{1, 2}, 50, 100), gpucost.RollupUnchanged, 9, 0b111, 0, 50, 100, 450, 50},
		{"same again", hourOf([]int{0, 1}, 50, 100), hourOf([]int{0, 1}, 70, 100), gpucost.RollupUnchanged, 6, 0b11, 0, 50, 100, 300, 50},
		{"superset", hourOf([]int{1}, 50, 100), hourOf([]int{0, 1, 2}, 60, 200), gpucost.RollupReplaced, 9, 0b111, 0, 60, 200, 540, 60},
		{"disjoint", hourOf([]int{0, 1, 2}, 2, 100), hourOf([]int{3}, 90, 300), gpucost.RollupMerged, 12, 0b1111, 0b111, 2, 300, 288, 24},
		{"partial, incoming fuller", hourOf([]int{0, 1}, 10, 100), hourOf([]int{1, 2, 3}, 40, 100), gpucost.RollupConflict, 9, 0b1110, 0, 40, 100, 360, 40},
		{"partial, stored fuller", hourOf([]int{0, 1, 2}, 10, 100), hourOf([]int{2, 3}, 40, 100), gpucost.RollupConflict, 9, 0b111, 0, 10, 100, 90, 10},
		{"minute disjoint", minuteOf([]int{0, 10}, 2), minuteOf([]int{20, 30, 40}, 20), gpucost.RollupMerged, 5, 1<<0 | 1<<10 | 1<<20 | 1<<30 | 1<<40, 0, 12.8, math.NaN(), 64, 12.8},
		{"minute re-import", minuteOf([]int{0, 10, 20}, 2), minuteOf([]int{10}, 2), gpucost.RollupUnchanged, 3, 1<<0 | 1<<10 | 1<<20, 1, 2, math.NaN(), 6, 2},
	}
	for _, c := range cases {
		stored := c.stored
		storedHist := slices.Clone(stored.UtilHist)
		got, kind := gpucost.MergeRollups(c.stored, c.incoming)
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
	got, kind := gpucost.MergeRollups(a[len(a)-1], c[len(c)-1])
	want := whole[len(whole)-1]
	if kind != gpucost.RollupMerged {
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
	if got := gpucost.CombineRollups(idle, busy); got.IdleMask != 1 || got.IdleMinutes != 1 {
		t.Errorf("gpucost.CombineRollups(idle 3 samples, busy 1) idle = %d, want 1", got.IdleMask)
	}
	if got := gpucost.CombineRollups(minuteOf([]int{0}, 1), minuteOf([]int{30, 31}, 50)); got.IdleMask != 0 {
		t.Errorf("gpucost.CombineRollups(idle 1 sample, busy 2) idle = %d, want 0", got.IdleMask)
	}
}

func TestMergeHours(t *testing.T) {
	stored := hourOf([]int{0, 1, 2}, 2, 100)
	incoming := hourOf([]int{2, 3}, 2, 100)
	if _, kind := gpucost.MergeHours(stored, incoming, 0, 0); kind != gpucost.RollupConflict {
		t.Errorf("MergeHours without split minutes = %v, want conflict", kind)
	}
	got, kind := gpucost.MergeHours(stored, incoming, 1<<2, 0)
	if kind != gpucost.RollupMerged || got.Samples != 15 || got.Coverage != 0b1111 || got.IdleMask != 0b1011 || got.IdleMinutes != 3 {
		t.Errorf("gpucost.MergeHours(minute 2 split, busy) = %v samples %d coverage %#b idle %#b (%d)",
			kind, got.Samples, got.Coverage, got.IdleMask, got.IdleMinutes)
	}
	if _, kind := gpucost.MergeHours(stored, hourOf([]int{1, 2}, 2, 100), 1<<2, 0); kind != gpucost.RollupUnchanged {
		t.Errorf("MergeHours with minute 1 not split = %v, want MergeRollups's unchanged", kind)
	}
}

// TestMergeP95Spike checks that an hour merged minute by minute, as the agent writes it, keeps a
// 10-minute spike as its p95.
func TestMergeP95Spike(t *testing.T) {
	acc := hourOf([]int{0}, 50, 1000)
	for m := 1; m < 60; m++ {
		mem := 1000.0
		if m >= 20 && m < 30 {
			mem = 9000
		}
		acc, _ = gpucost.MergeRollups(acc, hourOf([]int{m}, 50, mem))
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
