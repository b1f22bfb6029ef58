package fleet

import (
	"encoding/binary"
	"reflect"
	"slices"
	"unsafe"

	"github.com/gpucost/gpucost"
)

// tagIDs numbers the distinct tag sets of a bill's lines, so that the lines of one resource
// are found to carry the same tags by comparing two numbers (resourceOf). The stores share one
// map between the lines that hold the same tags and never change it once given
// (gpucost.CostStore.ScanCosts), so each map is numbered once, by its contents, and found
// again by its address: comparing a year of daily lines' tags map by map cost 0.8 of the 5
// cpu-s the year took (docs/architecture.md "Speed of the reports").
type tagIDs struct {
	byMap map[unsafe.Pointer]numbered // holds the map, so that its address is not reused
	byKey map[string]int
}

type numbered struct {
	m  gpucost.Labels
	id int
}

// maxByMap bounds the maps remembered by address: a bill whose every line has a map of its
// own forgets them now and then rather than keeping one per line.
const maxByMap = 1 << 14

// of returns the number of m's tag set: 0 for none, the same for equal sets.
func (t *tagIDs) of(m gpucost.Labels) int {
	if len(m) == 0 {
		return 0
	}
	p := reflect.ValueOf(m).UnsafePointer()
	if n, ok := t.byMap[p]; ok {
		return n.id
	}
	key := tagKey(m)
	id, ok := t.byKey[key]
	if !ok {
		if t.byKey == nil {
			t.byKey = map[string]int{}
		}
		id = len(t.byKey) + 1
		t.byKey[key] = id
	}
	if len(t.byMap) >= maxByMap || t.byMap == nil {
		t.byMap = make(map[unsafe.Pointer]numbered)
	}
	t.byMap[p] = numbered{m, id}
	return id
}

// tagKey is m's pairs in key order, each key and value after its length.
func tagKey(m gpucost.Labels) string {
	keys := make([]string, 0, len(m))
	n := 0
	for k, v := range m {
		keys = append(keys, k)
		n += len(k) + len(v) + 2*binary.MaxVarintLen64
	}
	slices.Sort(keys)
	b := make([]byte, 0, n)
	for _, k := range keys {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
		b = binary.AppendUvarint(b, uint64(len(m[k])))
		b = append(b, m[k]...)
	}
	return string(b)
}

// sameMap reports whether a and b are the same map (not merely equal ones); two nil maps are.
// A map value is the address of its runtime map, which reflect's UnsafePointer also gives,
// read here without making two reflect.Values a line.
func sameMap(a, b gpucost.Labels) bool {
	return *(*unsafe.Pointer)(unsafe.Pointer(&a)) == *(*unsafe.Pointer)(unsafe.Pointer(&b))
}
