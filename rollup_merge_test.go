package gpucost

import (
	"math"
	"testing"
)

func same(a, b float64) bool { return a == b || a != a && b != b }

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
