package awscur

import "testing"

// TestWordTable puts keys that share their hash and keys of different lengths, finds each, replaces
// one, and checks that a table past its limit empties and keeps working.
func TestWordTable(t *testing.T) {
	var tab wordTable[int]
	keys := [][]uint64{{1}, {1, 2}, {2, 1}, {1, 2, 3}, {}, {1 << 63, 5}}
	for i, k := range keys {
		if _, ok := tab.get(k, hashWords(k)); ok {
			t.Fatalf("get(%v) before put: found", k)
		}
		tab.put(k, hashWords(k), i)
	}
	same := []uint64{9, 9}
	tab.put(same, 7, 100) // another key under a hash taken by none: probing finds both
	tab.put([]uint64{8}, 7, 101)
	for i, k := range keys {
		if v, ok := tab.get(k, hashWords(k)); !ok || v != i {
			t.Errorf("get(%v) = %d, %v; want %d, true", k, v, ok, i)
		}
	}
	if v, ok := tab.get(same, 7); !ok || v != 100 {
		t.Errorf("get(%v) under a shared hash = %d, %v; want 100, true", same, v, ok)
	}
	if v, ok := tab.get([]uint64{8}, 7); !ok || v != 101 {
		t.Errorf("get([8]) under a shared hash = %d, %v; want 101, true", v, ok)
	}
	tab.replace(keys[1], hashWords(keys[1]), 42)
	if v, _ := tab.get(keys[1], hashWords(keys[1])); v != 42 {
		t.Errorf("get(%v) after replace = %d, want 42", keys[1], v)
	}
	for i := range mapLimit + 10 {
		k := []uint64{uint64(i), 77}
		tab.put(k, hashWords(k), i)
	}
	if tab.n > mapLimit {
		t.Errorf("table holds %d keys; want at most %d", tab.n, mapLimit)
	}
	last := []uint64{mapLimit + 9, 77}
	if v, ok := tab.get(last, hashWords(last)); !ok || v != mapLimit+9 {
		t.Errorf("get(%v) after emptying = %d, %v; want %d, true", last, v, ok, mapLimit+9)
	}
}
