package billing

// Merge adds the lines of b to a, as if the rows added to b had been added to a after a's own:
// an importer that reads the parts of one file side by side, one Aggregator each, merges them in
// the parts' order and gets the lines, their order and their totals that one Aggregator reading
// the whole file gets. The amounts sum exactly; ConsumedQuantity and PricingQuantity, floats,
// are summed per part first, so they may differ from one reading's in the last bit. Both must
// have the same Grain.
//
// a takes b's blocks of tuples and cells as they are, renumbered, rather than copying them: a
// line of b that no line of a shares costs the merge no memory, so a bill of distinct lines read
// in parts holds what one reading holds. A cell of b that sums into one of a's is left behind as
// a hole (no rows), which Lines skips. b is emptied. Neither may have had Lines called.
func (a *Aggregator) Merge(b *Aggregator) {
	if !b.started {
		return
	}
	if !a.started {
		a.Grain = b.Grain
		a.start()
	}
	b.cells, b.dims, b.ctxs, b.slots = nil, dimTable{}, nil, nil

	// a's lists end in whole blocks, the rest of its last block holes, and b's blocks follow.
	dimBase, cellBase := roundUp(a.ndims, dimBlock), roundUp(a.ncells, blockSize)
	a.holes += cellBase - a.ncells
	for i := a.ndims; i < dimBase; i++ {
		*a.dimAt(int32(i)) = dim{recent: -1} // no lines: dimRanks ranks it last
	}
	a.dimList, a.blocks = append(a.dimList, b.dimList...), append(a.blocks, b.blocks...)
	a.ndims, a.ncells = dimBase+b.ndims, cellBase+b.ncells
	a.holes += b.holes

	ids := a.adoptDims(b, dimBase, cellBase)
	for i := range b.ncells {
		ci := int32(cellBase + i)
		c := a.cell(ci)
		if c.rows == 0 {
			continue // a hole of b's
		}
		id := ids[c.dim]
		c.dim = id
		d := a.dimAt(id)
		if id >= int32(dimBase) { // b's tuple, adopted with its cells
			if d.recent != ci {
				a.cells[cellKey{c.start, c.end, id}] = ci
			}
			continue
		}
		if j, ok := a.cellAt(d, id, c.start, c.end); ok { // a's line: b's sums go into it
			s := a.cell(j)
			s.billed += c.billed
			s.effective += c.effective
			s.list += c.list
			s.contracted += c.contracted
			s.consumed += c.consumed
			s.pricing += c.pricing
			s.rows += c.rows
			*c = cell{}
			a.holes++
			continue
		}
		if d.recent >= 0 { // a's tuple in a period new to it: b's cell becomes its recent one
			old := a.cell(d.recent)
			a.cells[cellKey{old.start, old.end, id}] = d.recent
		}
		d.recent = ci
	}
	for _, t := range b.totals.Sorted() {
		a.totals.Add(t.BilledCost, t.EffectiveCost)
	}
	a.rows += b.rows
	*b = Aggregator{Grain: b.Grain}
}

// adoptDims renumbers b's dimension tuples, now a's from dimBase, into a's contexts, tags and
// extras, and returns each one's id in a: its own when a has no such tuple, else a's, its own
// slot left empty. Their recent cells are renumbered from cellBase.
func (a *Aggregator) adoptDims(b *Aggregator, dimBase, cellBase int) []int32 {
	ctxs := make([]int32, len(b.ctxList))
	for i := range b.ctxList {
		ctxs[i] = a.ctxID(&b.ctxList[i])
	}
	tags, extras := a.tags.ids(&b.tags), a.extra.ids(&b.extra)
	ids := make([]int32, b.ndims)
	for i := range b.ndims {
		id := int32(dimBase + i)
		d := a.dimAt(id)
		d.ctx, d.tags, d.extra = ctxs[d.ctx], mapID(tags, d.tags), mapID(extras, d.extra)
		k := dimKey{ctx: d.ctx, tags: d.tags, extra: d.extra, resourceID: d.resourceID, name: d.name, sku: d.sku}
		h := k.hash(a.seed)
		if old, ok := a.dims.find(h, func(j int32) bool { return j < int32(dimBase) && a.dimAt(j).is(&k) }); ok {
			ids[i] = old
			*d = dim{recent: -1}
			continue
		}
		ids[i] = id
		a.dims.insert(h, id)
		if d.recent >= 0 {
			d.recent += int32(cellBase)
		}
	}
	return ids
}

// cellAt returns the cell of tuple d (numbered id) for [start, end), if it has one.
func (a *Aggregator) cellAt(d *dim, id int32, start, end int64) (int32, bool) {
	if d.recent >= 0 {
		if c := a.cell(d.recent); c.start == start && c.end == end {
			return d.recent, true
		}
	}
	i, ok := a.cells[cellKey{start, end, id}]
	return i, ok
}

// ids returns the id in ids of each map of other, by other's id.
func (ids *mapIDs) ids(other *mapIDs) []int32 {
	out := make([]int32, len(other.values))
	for i, m := range other.values {
		out[i] = ids.id(m)
	}
	return out
}

// mapID is the id in numbering of a map numbered id elsewhere; -1, no map, stays -1.
func mapID(numbering []int32, id int32) int32 {
	if id < 0 {
		return -1
	}
	return numbering[id]
}

func roundUp(n, block int) int { return (n + block - 1) / block * block }
