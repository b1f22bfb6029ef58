package fleet

import (
	"iter"
	"math"
	"unsafe"
)

// cellIndex finds the cell of a resource and charge period: the bill merges the lines of one
// resource and charge period into one cell. The stores give a resource's lines in time order,
// so a line's cell is nearly always the resource's last one or a new one: only the last cell
// and the latest start of each resource are kept, until a line comes out of time order; then
// one map of all cells is made and kept up to date for the rest of the bill. A map of all
// cells from the start cost 130 of the 380 ns a line took on a year of daily lines, and 60
// bytes a line.
type cellIndex struct {
	slots  map[string]*resSlot // by resource id
	all    map[cellKey]*cell   // every cell, once a line came out of order
	recent *slotCache          // made on first use
}

// slotCache finds a resource id's slot by the address of the id's bytes: the stores give the
// lines of an import the same copy of each string (sqlite's dictionary of the import), so a
// year of daily lines asks for each id 365 times with a few copies of it, and a lookup of the
// copy's address costs a fraction of hashing and comparing the id in the map of slots. An
// entry holds the id it was made for, so that its address is not reused by another string.
type slotCache [1 << 14]struct {
	id string
	s  *resSlot
}

// resSlot is what the bill's reading keeps of one resource id, found with one map lookup a
// line: the LineResources of its SKUs (resourceOf), its last cell, while the lines come in
// time order, and the catalog's answer for its last line.
type resSlot struct {
	last   lastCell // c is nil until the resource's first cell
	shared []*sharedResource
	gpu    slotGPU // the catalog's answer for its last line (builder.lineGPU)
}

type lastCell struct {
	c      *cell
	latest int64 // the latest start of the resource's cells, Unix seconds
}

type cellKey struct {
	resource   string
	start, end int64 // Unix seconds
}

// slot returns the slot of resource id, made on first use.
func (x *cellIndex) slot(id string) *resSlot {
	if x.recent == nil {
		x.recent = new(slotCache)
	}
	p := unsafe.StringData(id)
	e := &x.recent[(uint64(uintptr(unsafe.Pointer(p)))*0x9E3779B97F4A7C15)>>(64-14)]
	if e.s != nil && unsafe.StringData(e.id) == p && len(e.id) == len(id) {
		return e.s // the same bytes, so the same id
	}
	s := x.slots[id]
	if s == nil {
		if x.slots == nil {
			x.slots = map[string]*resSlot{}
		}
		s = &resSlot{last: lastCell{latest: math.MinInt64}}
		x.slots[id] = s
	}
	e.id, e.s = id, s
	return s
}

// find returns the cell of resource id over [start, end), nil if none yet; cells yields every
// cell made, should the index need them all.
func (x *cellIndex) find(id string, start, end int64, cells *cellBlocks) *cell {
	return x.findIn(x.slots[id], id, start, end, cells)
}

// findIn is find with the slot of id, nil if it has none.
func (x *cellIndex) findIn(s *resSlot, id string, start, end int64, cells *cellBlocks) *cell {
	if x.all != nil {
		return x.all[cellKey{id, start, end}]
	}
	switch {
	case s == nil || s.last.c == nil:
		return nil
	case s.last.c.line.Start().Unix() == start && s.last.c.line.End().Unix() == end:
		return s.last.c
	case start > s.last.latest: // every cell of the resource starts earlier
		return nil
	}
	x.all = make(map[cellKey]*cell, cells.n)
	for c := range cells.all() {
		if id := c.line.ResourceID; id != "" { // lines without a resource id are never merged
			x.all[cellKey{id, c.line.Start().Unix(), c.line.End().Unix()}] = c
		}
	}
	return x.all[cellKey{id, start, end}]
}

// add adds the cell c of resource id over [start, end), which find did not find.
func (x *cellIndex) add(id string, start, end int64, c *cell) {
	x.addIn(x.slot(id), id, start, end, c)
}

// addIn is add with the slot of id.
func (x *cellIndex) addIn(s *resSlot, id string, start, end int64, c *cell) {
	if x.all != nil {
		x.all[cellKey{id, start, end}] = c
		return
	}
	s.last = lastCell{c, max(s.last.latest, start)}
}

// cellBlocks holds the cells in the order made, in blocks of a fixed size: a cell is its Line
// alone (48 bytes), with no slice of pointers to find them all by.
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
