package gpucost

import (
	"cmp"
	"math"
	"slices"
)

// Apportion returns amounts rounded to places decimals so that, currency by currency, the
// rounded amounts add up to their exact sum rounded as Round rounds it. Each amount is rounded
// down or up: every one is rounded down, and the units that leaves over go to the amounts that
// rounding down cut most (the largest-remainder method; ties go to the larger amount, then to
// the earlier one). Rounding each row on its own does not promise this: three rows of 0.335
// print as 0.34 each, 1.02 in all, under a total of 1.01. docs/architecture.md ("Rounding")
// says where gpucost prints amounts this way.
func Apportion(amounts []Money, places int) []Money {
	out := slices.Clone(amounts)
	for _, idx := range byCurrency(amounts) {
		var sum Money
		for _, i := range idx {
			sum.Nanos += amounts[i].Nanos
		}
		apportionTo(out, idx, places, sum.Round(places).Nanos)
	}
	return out
}

// ApportionSplit rounds a table of totals, each split into part and rest (a group's cost, its
// idle cost and its cost less idle), to places decimals so that every printed figure adds up:
// each row's rest + part is its total, the parts add up to their exact sum rounded, and the
// totals to theirs, currency by currency. Parts and rests are each rounded down or up (Apportion);
// a total, their sum, is within two units of the last place of its exact value.
func ApportionSplit(totals, parts []Money, places int) (total, part, rest []Money) {
	part = Apportion(parts, places)
	rest = make([]Money, len(totals))
	for i := range totals {
		rest[i] = totals[i].Sub(parts[i])
	}
	for _, idx := range byCurrency(totals) {
		var sumTotal, sumPart Money
		for _, i := range idx {
			sumTotal.Nanos += totals[i].Nanos
			sumPart.Nanos += parts[i].Nanos
		}
		apportionTo(rest, idx, places, sumTotal.Round(places).Nanos-sumPart.Round(places).Nanos)
	}
	total = make([]Money, len(totals))
	for i := range totals {
		total[i] = rest[i].Add(part[i])
		total[i].Currency = totals[i].Currency
	}
	return total, part, rest
}

// byCurrency returns the indexes of amounts grouped by currency, in order of first appearance.
func byCurrency(amounts []Money) [][]int {
	var order []string
	groups := map[string][]int{}
	for i, m := range amounts {
		c := m.currency()
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], i)
	}
	out := make([][]int, len(order))
	for j, c := range order {
		out[j] = groups[c]
	}
	return out
}

// apportionTo rounds ms[i] for i in idx to places decimals so that they add up to target
// nano-units, a whole number of the last place: all down, then a unit each to the largest
// remainders. A target out of reach (below every amount rounded down, or above every one
// rounded up) gets as near as it can.
func apportionTo(ms []Money, idx []int, places int, target int64) {
	if places >= 9 {
		return
	}
	unit := int64(math.Pow10(9 - places))
	rem := make(map[int]int64, len(idx))
	sum := int64(0)
	for _, i := range idx {
		n := ms[i].Nanos
		down := n / unit * unit
		if n < 0 && down != n {
			down -= unit
		}
		rem[i] = n - down
		ms[i].Nanos = down
		sum += down
	}
	k := min(max((target-sum)/unit, 0), int64(len(idx)))
	order := slices.Clone(idx)
	slices.SortStableFunc(order, func(a, b int) int {
		if c := cmp.Compare(rem[b], rem[a]); c != 0 {
			return c
		}
		return cmp.Compare(abs(ms[b].Nanos), abs(ms[a].Nanos))
	})
	for _, i := range order[:k] {
		ms[i].Nanos += unit
	}
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
