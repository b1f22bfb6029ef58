package billing

// DimRanks and DimRanksCompact are the two ways of ranking an aggregator's tuples, for tests.
func DimRanks(a *Aggregator) []int32 {
	defer func(n int) { compactRanksAt = n }(compactRanksAt)
	compactRanksAt = 1 << 30
	return a.dimRanks()
}

func DimRanksCompact(a *Aggregator) []int32 { return a.dimRanksCompact() }

// OrderCells returns the cells of a's lines in the order Lines gives them, by the radix sort or,
// if compare, by comparing the lines.
func OrderCells(a *Aggregator, compare bool) []int32 {
	var order []uint64
	if compare {
		order = a.orderByComparing(a.dimRanks())
	} else {
		order = a.order()
	}
	out := make([]int32, len(order))
	for i, o := range order {
		out[i] = a.orderCell(o)
	}
	return out
}
