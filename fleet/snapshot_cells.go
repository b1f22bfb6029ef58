package fleet

import (
	"iter"
	"math"
)

// resourceCells are the cells of one resource, in the order read: the bill merges the lines of
// one resource and charge period into one cell (cellOf). The stores give a resource's lines in
// time order, so a line's cell is the resource's last one or a new one; one map of all cells
// cost 130 of the 380 ns a line took on a year of daily lines, and 60 bytes a line.
type resourceCells struct {
	cells    []*cell
	latest   int64              // the latest start of the cells, Unix seconds
	byPeriod map[[2]int64]*cell // by start and end, once a line came out of time order
}

func newResourceCells() *resourceCells { return &resourceCells{latest: math.MinInt64} }

// find returns the cell of the charge period [start, end) (Unix seconds), nil if none yet.
func (rc *resourceCells) find(start, end int64) *cell {
	if n := len(rc.cells); n > 0 {
		if c := rc.cells[n-1]; c.line.Start.Unix() == start && c.line.End.Unix() == end {
			return c
		}
	}
	if rc.byPeriod == nil {
		if start > rc.latest { // every cell starts earlier
			return nil
		}
		rc.byPeriod = make(map[[2]int64]*cell, len(rc.cells))
		for _, c := range rc.cells {
			rc.byPeriod[[2]int64{c.line.Start.Unix(), c.line.End.Unix()}] = c
		}
	}
	return rc.byPeriod[[2]int64{start, end}]
}

// add adds the cell of the charge period [start, end), which find did not find.
func (rc *resourceCells) add(c *cell, start, end int64) {
	rc.cells = append(rc.cells, c)
	rc.latest = max(rc.latest, start)
	if rc.byPeriod != nil {
		rc.byPeriod[[2]int64{start, end}] = c
	}
}

// cellBlocks holds the cells in the order made, in blocks of a fixed size: a cell is its Line
// alone (128 bytes), with no slice of pointers to find them all by.
type cellBlocks struct {
	blocks [][]cell
	n      int
}

const cellBlock = 1 << 12

// add returns a new cell holding ln, after the others.
func (cb *cellBlocks) add(ln Line) *cell {
	if cb.n%cellBlock == 0 {
		cb.blocks = append(cb.blocks, make([]cell, 0, cellBlock))
	}
	last := &cb.blocks[len(cb.blocks)-1]
	*last = append(*last, cell{line: ln})
	cb.n++
	return &(*last)[len(*last)-1]
}

// all yields the cells in the order made.
func (cb *cellBlocks) all() iter.Seq[*cell] {
	return func(yield func(*cell) bool) {
		for _, bl := range cb.blocks {
			for i := range bl {
				if !yield(&bl[i]) {
					return
				}
			}
		}
	}
}
