package billing

// DimRanks and DimRanksCompact are the two ways of ranking an aggregator's tuples, for tests.
func DimRanks(a *Aggregator) []int32 {
	defer func(n int) { compactRanksAt = n }(compactRanksAt)
	compactRanksAt = 1 << 30
	return a.dimRanks()
}

func DimRanksCompact(a *Aggregator) []int32 { return a.dimRanksCompact() }
