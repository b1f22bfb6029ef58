package fleet

import "slices"

// Dimensions are the --by values ParseDimension takes besides label:KEY and tag:KEY, for
// shell completion.
func Dimensions() []string { return slices.Clone(dimensions) }
