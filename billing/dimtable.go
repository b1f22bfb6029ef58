package billing

// dimTable finds dimension tuples by hash: an open-addressed table of 8-byte entries, each the
// upper half of a tuple's hash and its id + 1, at most three-quarters full — 11 to 21 bytes a
// tuple where a map[uint64]int32 and a collision chain take about twice that
// (BenchmarkAggregatorUnmergeable measures the whole per-line cost).
type dimTable struct {
	slots []uint64
	n     int
}

// find returns the id of the tuple whose hash is h and for which same(id) holds.
func (t *dimTable) find(h uint64, same func(id int32) bool) (int32, bool) {
	if len(t.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(t.slots) - 1)
	tag := h >> 32
	for i := tag & mask; ; i = (i + 1) & mask {
		e := t.slots[i]
		if e == 0 {
			return 0, false
		}
		if e>>32 == tag && same(int32(uint32(e)-1)) {
			return int32(uint32(e) - 1), true
		}
	}
}

// insert adds the tuple id, not in the table, whose hash is h.
func (t *dimTable) insert(h uint64, id int32) {
	if (t.n+1)*4 > len(t.slots)*3 {
		t.grow()
	}
	t.put(h>>32, uint64(uint32(id)+1))
	t.n++
}

// put stores the entry of tag (the upper half of a hash) and id+1 at the first free slot from
// the one tag indexes: the entry alone says where it goes when the table grows.
func (t *dimTable) put(tag, id1 uint64) {
	mask := uint64(len(t.slots) - 1)
	i := tag & mask
	for t.slots[i] != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = tag<<32 | id1
}

// grow doubles the table.
func (t *dimTable) grow() {
	old := t.slots
	t.slots = make([]uint64, max(1024, 2*len(old)))
	for _, e := range old {
		if e != 0 {
			t.put(e>>32, e&0xFFFFFFFF)
		}
	}
}
