package awscur

import "math/bits"

// wordTable caches values under keys of a few machine words (dictionary entries, string
// addresses): an open-addressing hash table that, unlike a map with string keys, hashes the words
// without turning them into bytes and compares a stored hash before a key. Like the other
// caches it is bounded: a table that reaches its limit is emptied and refilled. The zero value
// holds up to mapLimit keys.
type wordTable[V any] struct {
	slots []wordSlot[V] // a power of two of them, at most half full
	words []uint64      // the keys, end to end
	n     int
}

type wordSlot[V any] struct {
	hash     uint64 // 0 for an empty slot
	off, len int32  // the key in words
	v        V
}

// hashWords hashes a key; never 0. It sums the words times odd constants, products that do not
// wait on each other, and folds the sum once.
func hashWords(key []uint64) uint64 {
	h := uint64(len(key)) * 0x9e3779b97f4a7c15
	for i, w := range key {
		h += w * hashMul[i&(len(hashMul)-1)]
	}
	hi, lo := bits.Mul64(h, 0xbf58476d1ce4e5b9)
	return (hi ^ lo) | 1
}

var hashMul = [...]uint64{0xa0761d6478bd642f, 0xe7037ed1a0b428db, 0x8ebc6af09c88c6e3, 0x589965cc75374cc3,
	0x1d8e4e27c47d124f, 0xff51afd7ed558ccd, 0xc4ceb9fe1a85ec53, 0x94d049bb133111eb}

// get returns the value under key.
func (t *wordTable[V]) get(key []uint64, h uint64) (V, bool) {
	if t.n > 0 {
		mask := uint64(len(t.slots) - 1)
		for i := h & mask; ; i = (i + 1) & mask {
			s := &t.slots[i]
			if s.hash == 0 {
				break
			}
			if s.hash == h && int(s.len) == len(key) && wordsEqual(t.words[s.off:s.off+s.len], key) {
				return s.v, true
			}
		}
	}
	var zero V
	return zero, false
}

// replace stores v under key, which get found.
func (t *wordTable[V]) replace(key []uint64, h uint64, v V) {
	mask := uint64(len(t.slots) - 1)
	for i := h & mask; t.slots[i].hash != 0; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.hash == h && int(s.len) == len(key) && wordsEqual(t.words[s.off:s.off+s.len], key) {
			s.v = v
			return
		}
	}
}

// put stores v under key, which get did not find.
func (t *wordTable[V]) put(key []uint64, h uint64, v V) {
	switch {
	case t.n >= mapLimit || len(t.words)+len(key) > 1<<31-1:
		clear(t.slots)
		t.words, t.n = t.words[:0], 0
	case 2*(t.n+1) > len(t.slots):
		t.grow()
	}
	t.insert(wordSlot[V]{hash: h, off: int32(len(t.words)), len: int32(len(key)), v: v})
	t.words = append(t.words, key...)
	t.n++
}

func (t *wordTable[V]) insert(s wordSlot[V]) {
	mask := uint64(len(t.slots) - 1)
	i := s.hash & mask
	for t.slots[i].hash != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = s
}

func (t *wordTable[V]) grow() {
	old := t.slots
	t.slots = make([]wordSlot[V], max(2*len(old), 256))
	for _, s := range old {
		if s.hash != 0 {
			t.insert(s)
		}
	}
}

func wordsEqual(a, b []uint64) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
