package sqlite

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortItems: sortItems orders rowItems as a full sort would, whether they come in
// stretches of one series (a writer's rollups), interleaved, or shuffled.
func TestSortItems(t *testing.T) {
	item := func(hour bool, series, row int64, slot, i int) rowItem {
		return rowItem{hour: hour, key: minuteRows.key(series, row), series: series, row: row, slot: slot, i: i}
	}
	// stretches: series 7 then 1 then 4, minutes then hours, each in time order.
	var stretches []rowItem
	for _, hour := range []bool{false, true} {
		for _, s := range []int64{7, 1, 4} {
			for m := range 120 {
				stretches = append(stretches, item(hour, s, 100+int64(m/60), m%60, len(stretches)))
			}
		}
	}
	shuffled := slices.Clone(stretches)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
	// One series twice: its second stretch overlaps its first, so stretch order is not enough.
	twice := slices.Concat(stretches[:120], stretches[60:90])
	for k := range twice {
		twice[k].i = k
	}
	for _, c := range []struct {
		name  string
		items []rowItem
	}{
		{"none", nil},
		{"one", stretches[:1]},
		{"stretches of one series", stretches},
		{"shuffled", shuffled},
		{"a series twice", twice},
	} {
		want := slices.Clone(c.items)
		slices.SortFunc(want, cmpItems)
		if got := sortItems(slices.Clone(c.items)); !slices.Equal(got, want) {
			t.Errorf("%s: sortItems(%d items) is not in the order of cmpItems", c.name, len(c.items))
		}
	}
}
