package analyze

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// refRun is idleRun as it walked every run of every rollup, emitting each: the reference the
// skipping of short inner runs is checked against.
type refRun struct {
	next, start int64
	minutes     int
	emit        func(start time.Time, minutes int, open bool)
}

func (t *refRun) feed(at int64, mask uint64, n int) {
	if at != t.next {
		t.end(false)
	}
	t.next = at + int64(n)
	pos := 0
	if t.minutes > 0 {
		k := min(bits.TrailingZeros64(^mask), n)
		t.minutes += k
		if k == n {
			return
		}
		t.end(false)
		pos = k
	}
	for pos < n {
		rest := mask >> uint(pos)
		if rest == 0 {
			return
		}
		pos += bits.TrailingZeros64(rest)
		k := min(bits.TrailingZeros64(^(mask >> uint(pos))), n-pos)
		t.start, t.minutes = at+int64(pos), k
		if pos+k < n {
			t.end(false)
		}
		pos += k
	}
}

func (t *refRun) end(open bool) {
	if t.minutes > 0 {
		t.emit(minuteTime(t.start), t.minutes, open)
	}
	t.minutes = 0
}

type emitted struct {
	start   time.Time
	minutes int
	open    bool
}

// TestIdleRunSkipsOnlyShortRuns feeds random hours and minutes (all idle, all busy, sparse,
// dense, with gaps between rollups) to idleRun and to the reference that emits every run: the
// runs of at least min minutes must be the same, in the same order.
func TestIdleRunSkipsOnlyShortRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	const all = 1<<60 - 1
	masks := []func() uint64{
		func() uint64 { return all },
		func() uint64 { return 0 },
		func() uint64 { return rng.Uint64() & all },
		func() uint64 { return rng.Uint64() & rng.Uint64() & all },
		func() uint64 { return (rng.Uint64() | rng.Uint64() | rng.Uint64()) & all },
		func() uint64 { // one run of random place and length
			lo, k := rng.IntN(60), 1+rng.IntN(60)
			return (1<<uint(min(k, 60-lo)) - 1) << uint(lo)
		},
		func() uint64 { return all &^ (1 << uint(rng.IntN(60))) },
	}
	for trial := range 3000 {
		minIdle := []int{0, 1, 2, 3, 5, 30, 31, 59, 60, 61, 90}[trial%11]
		var got, want []emitted
		run := idleRun{next: noMinute, min: minIdle, emit: func(s time.Time, m int, open bool) {
			if m >= minIdle {
				got = append(got, emitted{s, m, open})
			}
		}}
		ref := refRun{next: noMinute, emit: func(s time.Time, m int, open bool) {
			if m >= minIdle {
				want = append(want, emitted{s, m, open})
			}
		}}
		at := int64(29_000_000)
		var fed []uint64
		for range 1 + rng.IntN(40) {
			n := 60
			if rng.IntN(8) == 0 {
				n = 1
			}
			mask := masks[rng.IntN(len(masks))]() & (1<<uint(n) - 1)
			if rng.IntN(10) == 0 {
				at += int64(1 + rng.IntN(90)) // a gap: the run breaks
			}
			run.feed(at, mask, n)
			ref.feed(at, mask, n)
			fed = append(fed, mask)
			at += int64(n)
		}
		run.reset()
		ref.end(true)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d, min %d, masks %x:\nidleRun emitted %v\nwant %v", trial, minIdle, fed, got, want)
		}
	}
}

func TestHasRun(t *testing.T) {
	for _, tc := range []struct {
		mask uint64
		k    int
		want bool
	}{
		{0, 0, false}, {1, 0, true}, {1, 1, true}, {1, 2, false}, {0b110, 2, true}, {0b1011, 3, false},
		{0b111_0111, 3, true}, {0b111_0111, 4, false}, {1<<30 - 1, 30, true}, {1<<29 - 1, 30, false},
		{(1<<30 - 1) << 20, 30, true}, {(1<<31 - 1) << 3, 31, true}, {1<<63 | 1<<62, 2, true},
		{1<<64 - 1, 64, true}, {1<<64 - 2, 64, false},
	} {
		if got := hasRun(tc.mask, tc.k); got != tc.want {
			t.Errorf("hasRun(%b, %d) = %v, want %v", tc.mask, tc.k, got, tc.want)
		}
	}
}
