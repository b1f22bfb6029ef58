package billing

// Merge adds the lines of b to a, as if the rows added to b had been added to a after a's own:
// an importer that reads the parts of one file side by side, one Aggregator each, merges them in
// the parts' order and gets the lines, their order and their totals that one Aggregator reading
// the whole file gets. The amounts sum exactly; ConsumedQuantity and PricingQuantity, floats,
// are summed per part first, so they may differ from one reading's in the last bit.
//
// b is emptied as it is merged: its cells are released block by block, so merging holds little
// more than a and b did. Neither may have had Lines called.
func (a *Aggregator) Merge(b *Aggregator) {
	if !b.started {
		return
	}
	if !a.started {
		a.Grain = b.Grain
		a.start()
	}
	b.cells, b.dims, b.ctxs, b.slots = nil, dimTable{}, nil, nil // b is only read in order from here
	for i := range b.ncells {
		bc := b.cell(int32(i))
		bd := b.dimAt(bc.dim)
		ctx := b.ctxList[bd.ctx]
		k := dimKey{
			tags: a.tags.id(b.tags.get(bd.tags)), extra: a.extra.id(b.extra.get(bd.extra)),
			resourceID: bd.resourceID, name: bd.name, sku: bd.sku,
		}
		id := a.dim(&ctx, &k)
		c := a.cellOf(a.dimAt(id), id, bc.start, bc.end)
		c.billed += bc.billed
		c.effective += bc.effective
		c.list += bc.list
		c.contracted += bc.contracted
		c.consumed += bc.consumed
		c.pricing += bc.pricing
		c.rows += bc.rows
		if (i+1)%blockSize == 0 {
			b.blocks[i/blockSize] = nil
		}
	}
	for _, t := range b.totals.Sorted() {
		a.totals.Add(t.BilledCost, t.EffectiveCost)
	}
	a.rows += b.rows
	*b = Aggregator{Grain: b.Grain}
}
