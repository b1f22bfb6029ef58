package plan

import "sort"

// sortBy sorts s by cmp as slices.SortFunc does, through sort.Slice: the same pattern-defeating
// quicksort, but one implementation for every element type instead of one per type, which
// keeps the binary within its size limit (docs/architecture.md "Binary size").
func sortBy[T any](s []T, cmp func(a, b T) int) {
	sort.Slice(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}

// sortStableBy sorts s by cmp, keeping equal elements in order, as slices.SortStableFunc does.
func sortStableBy[T any](s []T, cmp func(a, b T) int) {
	sort.SliceStable(s, func(i, j int) bool { return cmp(s[i], s[j]) < 0 })
}
