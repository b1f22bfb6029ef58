package analyze

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGiveLeftIsStableSort checks that hamilton.giveLeft gives the units left over to the parts
// a stable sort by remainder, largest first, would: random remainders with many ties, from 1 to
// 70 parts (past 64 it sorts).
func TestGiveLeftIsStableSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 5))
	for trial := range 5000 {
		n := 1 + rng.IntN(70)
		var h hamilton
		for i := range n {
			h.parts = append(h.parts, uint64(rng.IntN(3)))
			h.rems = append(h.rems, uint64(rng.IntN(1+trial%7)))
			h.order = append(h.order, i)
		}
		left := uint64(rng.IntN(n))
		want := slices.Clone(h.parts)
		order := slices.Clone(h.order)
		slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(h.rems[j], h.rems[i]) })
		for _, i := range order[:left] {
			want[i]++
		}
		rems := slices.Clone(h.rems)
		h.giveLeft(left)
		if !slices.Equal(h.parts, want) {
			t.Fatalf("giveLeft(%d) over remainders %v gave parts %v, want %v", left, rems, h.parts, want)
		}
	}
}
