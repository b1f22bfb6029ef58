package billing

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestDimTable inserts tuples whose hashes collide in every way the table must tell apart — the
// same hash, the same slot with another tag — past several growths, and finds each again.
func TestDimTable(t *testing.T) {
	var tab dimTable
	hash := func(id int32) uint64 { return uint64(id%7)<<32 | uint64(id%3) } // 7 tags, every index 0 at first
	const n = 5000
	for id := range int32(n) {
		if _, ok := tab.find(hash(id), func(got int32) bool { return got == id }); ok {
			t.Fatalf("find(%d) before insert: found", id)
		}
		tab.insert(hash(id), id)
	}
	for id := range int32(n) {
		got, ok := tab.find(hash(id), func(got int32) bool { return got == id })
		if !ok || got != id {
			t.Fatalf("find(%d) = %d, %v; want %d, true", id, got, ok, id)
		}
	}
	if tab.n != n || len(tab.slots)*3 < n*4 {
		t.Errorf("table of %d entries in %d slots: want %d in at least %d", tab.n, len(tab.slots), n, n*4/3)
	}
}

// TestAggregatePeriodsOutOfOrder adds the lines of one resource in days that come back to
// earlier ones, so that a tuple's recent cell moves and the cells it leaves are found again in
// the cells map, and checks each day sums its own rows.
func TestAggregatePeriodsOutOfOrder(t *testing.T) {
	day0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var a Aggregator
	days := []int{0, 1, 0, 2, 1, 0, 2, 2}
	want := map[time.Time]int64{}
	for i, d := range days {
		for _, res := range []string{"i-1", "i-2"} {
			from := day0.AddDate(0, 0, d).Add(time.Duration(i) * time.Hour)
			c := gpucost.USD(int64(i+1) * 1_000_000_000)
			a.Add(&gpucost.CostLine{ResourceID: res, SkuID: "SKU", ChargePeriodStart: from, ChargePeriodEnd: from.Add(time.Hour),
				BilledCost: c, EffectiveCost: c, ListCost: c, ContractedCost: c})
			want[day0.AddDate(0, 0, d)] += c.Nanos
		}
	}
	if a.Len() != 6 {
		t.Fatalf("Len() = %d, want 6 (3 days × 2 resources)", a.Len())
	}
	got := map[time.Time]int64{}
	rows := 0
	for l := range a.Lines() {
		got[l.ChargePeriodStart] += l.BilledCost.Nanos
		rows += l.Rows
	}
	for d, w := range want {
		if got[d] != w {
			t.Errorf("billed on %s = %d, want %d", d.Format(time.DateOnly), got[d], w)
		}
	}
	if rows != 2*len(days) {
		t.Errorf("rows summed = %d, want %d", rows, 2*len(days))
	}
}
