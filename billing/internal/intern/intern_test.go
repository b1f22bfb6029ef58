package intern

import (
	"strconv"
	"testing"
	"unsafe"
)

func TestStrings(t *testing.T) {
	var tab Strings
	if got := tab.Get(nil); got != "" {
		t.Errorf("Get(nil) = %q, want empty", got)
	}
	a, b := tab.Get([]byte("gpu")), tab.Get([]byte("gpu"))
	if a != "gpu" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("Get(gpu) twice = %q at %p, %q at %p; want one string", a, unsafe.StringData(a), b, unsafe.StringData(b))
	}
	for i := range StringLimit + 10 {
		tab.Get([]byte(strconv.Itoa(i)))
	}
	if n := tab.Len(); n > StringLimit {
		t.Errorf("after %d distinct strings Len() = %d, want at most %d", StringLimit+10, n, StringLimit)
	}
	if allocs := testing.AllocsPerRun(100, func() { tab.Get([]byte("7")) }); allocs != 0 {
		t.Errorf("Get of a held string allocates %v times, want 0", allocs)
	}
}

func TestMap(t *testing.T) {
	var m Map[int]
	if _, ok := m.Get([]byte("a")); ok {
		t.Errorf("empty Map.Get(a) found a value")
	}
	key := []byte("a")
	m.Put(key, 1)
	key[0] = 'b' // Put keeps a copy
	if v, ok := m.Get([]byte("a")); !ok || v != 1 {
		t.Errorf("Map.Get(a) = %v, %v; want 1, true", v, ok)
	}
	for i := range MapLimit + 10 {
		m.Put([]byte(strconv.Itoa(i)), i)
	}
	if n := m.Len(); n > MapLimit {
		t.Errorf("after %d keys Len() = %d, want at most %d", MapLimit+10, n, MapLimit)
	}
}

func TestGenerations(t *testing.T) {
	g := Generations[int]{MaxBytes: 100, EntryBytes: 10}
	g.Put([]byte("keep"), 1)
	for i := range 50 {
		g.Put([]byte(strconv.Itoa(i)), i)
		if v, ok := g.Get([]byte("keep")); !ok || v != 1 {
			t.Fatalf("after %d puts Get(keep) = %v, %v; want 1, true (used keys stay)", i+1, v, ok)
		}
	}
	if _, ok := g.Get([]byte("0")); ok {
		t.Errorf("Get(0) found a key two generations old")
	}
	if n := len(g.cur) + len(g.old); n > 2*(100/10+1)+1 {
		t.Errorf("Generations holds %d entries, want at most two generations", n)
	}
}
