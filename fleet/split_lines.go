package fleet

import (
	"cmp"
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Lines passes each of the period's stored lines to write, or with allocated the lines
// AllocatedLines makes of its allocations (one per user and one for idle capacity), and returns
// how many it passed. It stops writing at the first error write returns, and returns it.
func (s *Split) Lines(ctx context.Context, allocated bool, write func(*gpucost.CostLine) error) (int, error) {
	var (
		rows int
		werr error
		as   []gpucost.Allocation
		src  *gpucost.CostLine
	)
	onLine := s.OnLine
	defer func() { s.OnLine = onLine }()
	s.OnLine = func() {
		switch {
		case src == nil || werr != nil:
		case !allocated:
			werr = write(src)
			rows++
		default:
			for _, l := range AllocatedLines(src, as) {
				if werr = write(&l); werr != nil {
					break
				}
				rows++
			}
		}
		as, src = as[:0], nil
	}
	err := s.Each(ctx, func(a *gpucost.Allocation, _ catalog.LineGPU, _ bool) {
		src = a.Line
		as = append(as, *a)
	})
	return rows, cmp.Or(err, werr)
}
