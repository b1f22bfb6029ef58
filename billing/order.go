package billing

import (
	"cmp"
	"math/bits"
	"runtime"
	"slices"
)

// Lines gives the lines in the order of their period start, resource, SKU, dimension tuple and
// period end. order finds it by sorting numbers: a line is one uint64, its cell's index in the
// low cellBits bits and above them its place, its period start's rank among the lines' distinct
// starts and then its tuple's rank (dimRanks). A radix sort puts a million such numbers in order
// in a few passes over them, where comparing the lines took about ten times as long, and the
// order then holds 8 bytes a line.

// maxOrderStarts is the most distinct period starts order ranks; past it (lines that span more
// than a grain each start on their own second) it compares the lines instead.
const maxOrderStarts = 1 << 16

// digitBits is the widest digit of the radix sort: 2,048 counters, 16 KiB.
const digitBits = 11

// orderCell returns the cell of an element of the order.
func (a *Aggregator) orderCell(o uint64) int32 {
	return int32(o & (1<<a.cellBits - 1))
}

// order returns the lines' cells in the order Lines gives them.
func (a *Aggregator) order() []uint64 {
	rank := a.dimRanks()
	if a.ndims >= collectAt {
		// The ranks' sort entries (24 bytes a tuple) are garbage now: collected before the order
		// takes its 8 bytes a line, and the sort as many again, they do not add to a large
		// import's peak.
		runtime.GC()
	}
	order, starts, ok := a.startIDs()
	if !ok {
		return a.orderByComparing(rank)
	}
	place := startPlaces(starts)
	a.cellBits = bits.Len(uint(a.ncells))
	rankBits, startBits := bits.Len(uint(a.ndims)), bits.Len(uint(len(starts)))
	if a.cellBits+rankBits+startBits > 64 {
		return a.orderByComparing(rank)
	}
	for j, o := range order {
		i := int32(uint32(o))
		key := uint64(place[o>>32])<<rankBits | uint64(rank[a.cell(i).dim])
		order[j] = key<<a.cellBits | uint64(i)
	}
	radixSort(order, a.cellBits, rankBits+startBits)
	a.sortTies(order)
	return order
}

// startIDs returns the lines' cells, each with its period start's number in the upper 32 bits,
// and the distinct starts by number; ok is false past maxOrderStarts.
func (a *Aggregator) startIDs() (order []uint64, starts []int64, ok bool) {
	order = make([]uint64, 0, a.Len())
	ids := map[int64]uint32{}
	last, lastID := int64(0), uint32(0)
	for i := range a.ncells {
		c := a.cell(int32(i))
		if c.rows == 0 {
			continue // a hole (merge.go)
		}
		if len(starts) == 0 || c.start != last {
			id, seen := ids[c.start]
			if !seen {
				if len(starts) == maxOrderStarts {
					return nil, nil, false
				}
				id = uint32(len(starts))
				ids[c.start] = id
				starts = append(starts, c.start)
			}
			last, lastID = c.start, id
		}
		order = append(order, uint64(lastID)<<32|uint64(i))
	}
	return order, starts, true
}

// startPlaces returns each start's rank among starts, by its number.
func startPlaces(starts []int64) []uint32 {
	ids := make([]uint32, len(starts))
	for i := range ids {
		ids[i] = uint32(i)
	}
	slices.SortFunc(ids, func(x, y uint32) int { return cmp.Compare(starts[x], starts[y]) })
	place := make([]uint32, len(starts))
	for r, id := range ids {
		place[id] = uint32(r)
	}
	return place
}

// radixSort sorts vs by their n bits from bit lo up, stably: least significant digit first,
// passing over the digits no two values differ in. The bits below lo keep the order they had.
func radixSort(vs []uint64, lo, n int) {
	if n == 0 || slices.IsSortedFunc(vs, func(x, y uint64) int { return cmp.Compare(x>>lo, y>>lo) }) {
		return
	}
	passes := (n + digitBits - 1) / digitBits
	w := (n + passes - 1) / passes
	mask := uint64(1)<<w - 1
	var count [1 << digitBits]int
	src, dst := vs, make([]uint64, len(vs))
	for shift := lo; shift < lo+n; shift += w {
		clear(count[:mask+1])
		for _, v := range src {
			count[v>>shift&mask]++
		}
		if count[src[0]>>shift&mask] == len(src) {
			continue // one digit: in order already
		}
		sum := 0
		for d := range count[:mask+1] {
			count[d], sum = sum, sum+count[d]
		}
		for _, v := range src {
			d := v >> shift & mask
			dst[count[d]] = v
			count[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &vs[0] {
		copy(vs, src)
	}
}

// sortTies orders by period end the lines of one tuple that start together: their places tie.
func (a *Aggregator) sortTies(order []uint64) {
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && order[j]>>a.cellBits == order[i]>>a.cellBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(order[i:j], func(x, y uint64) int {
				return cmp.Compare(a.cell(a.orderCell(x)).end, a.cell(a.orderCell(y)).end)
			})
		}
		i = j
	}
}

// orderByComparing is order for lines whose places do not fit beside their cells: it sorts them
// by comparing their starts, tuples' ranks and ends.
func (a *Aggregator) orderByComparing(rank []int32) []uint64 {
	type line struct {
		start      int64
		rank, cell int32
	}
	lines := make([]line, 0, a.Len())
	for i := range a.ncells {
		if c := a.cell(int32(i)); c.rows > 0 {
			lines = append(lines, line{c.start, rank[c.dim], int32(i)})
		}
	}
	slices.SortFunc(lines, func(x, y line) int {
		if c := cmp.Or(cmp.Compare(x.start, y.start), cmp.Compare(x.rank, y.rank)); c != 0 {
			return c
		}
		return cmp.Compare(a.cell(x.cell).end, a.cell(y.cell).end)
	})
	a.cellBits = 64
	order := make([]uint64, len(lines))
	for i, l := range lines {
		order[i] = uint64(l.cell)
	}
	return order
}
