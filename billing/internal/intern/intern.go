// Package intern holds the bounded caches the bill readers share strings and parsed cells
// through: bills repeat a handful of accounts, services, SKUs and tag sets over millions of
// rows, so each distinct byte sequence becomes one string or one parsed value. A cache that
// reaches its bound is emptied and refilled, so memory stays flat however many distinct values a
// file holds.
package intern

// Cache bounds.
const (
	StringLimit = 1 << 16 // distinct strings in a Strings (~8 MB at most)
	MapLimit    = 1 << 14 // distinct keys in a Map: tag sets, attribute sets, extras
)

// Strings hands out one string per distinct byte sequence, so the lines of a file share their
// strings instead of allocating them per row. The zero value is ready to use.
type Strings struct{ m map[string]string }

// Get returns the string of b; "" for an empty b.
func (t *Strings) Get(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := t.m[string(b)]; ok {
		return s
	}
	switch {
	case t.m == nil:
		t.m = make(map[string]string, 1024)
	case len(t.m) >= StringLimit:
		clear(t.m)
	}
	s := string(b)
	t.m[s] = s
	return s
}

// Len returns the number of strings held.
func (t *Strings) Len() int { return len(t.m) }

// Map caches values under byte-sequence keys, emptied when it reaches MapLimit keys. The zero
// value is ready to use.
type Map[V any] struct{ m map[string]V }

// Get returns the value cached under key.
func (bm *Map[V]) Get(key []byte) (V, bool) {
	v, ok := bm.m[string(key)]
	return v, ok
}

// Put caches v under a copy of key.
func (bm *Map[V]) Put(key []byte, v V) {
	switch {
	case bm.m == nil:
		bm.m = make(map[string]V, 256)
	case len(bm.m) >= MapLimit:
		clear(bm.m)
	}
	bm.m[string(key)] = v
}

// Len returns the number of keys held.
func (bm *Map[V]) Len() int { return len(bm.m) }

// Generations keeps recent values in two generations: when the current one is full it becomes
// the old one, and an old entry used again moves back to the current one. Unlike emptying a full
// cache, this keeps hitting when rows cycle through somewhat more distinct keys than one
// generation holds, and it bounds memory to two generations. Set the bounds before first use.
type Generations[V any] struct {
	MaxBytes   int // bound of one generation: its keys plus EntryBytes per entry
	EntryBytes int // what one entry holds besides its key
	cur, old   map[string]V
	bytes      int
}

// Get returns the value cached under key.
func (g *Generations[V]) Get(key []byte) (V, bool) {
	if v, ok := g.cur[string(key)]; ok {
		return v, true
	}
	v, ok := g.old[string(key)]
	if ok {
		g.Put(key, v)
	}
	return v, ok
}

// Put caches v under a copy of key, in the current generation.
func (g *Generations[V]) Put(key []byte, v V) {
	if g.bytes > g.MaxBytes || g.cur == nil {
		g.old, g.cur, g.bytes = g.cur, make(map[string]V, len(g.cur)), 0
	}
	g.cur[string(key)] = v
	g.bytes += len(key) + g.EntryBytes
}
