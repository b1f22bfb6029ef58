package gpucost

import "testing"

func TestCostTotals(t *testing.T) {
	var ts CostTotals
	if got := ts.Sorted(); got == nil || len(got) != 0 {
		t.Errorf("empty Sorted() = %#v, want an empty list", got)
	}
	ts.Add(Money{Nanos: 5, Currency: "USD"}, Money{Nanos: 4, Currency: "USD"})
	ts.Add(Money{Nanos: 7, Currency: "EUR"}, Money{Nanos: 7, Currency: "EUR"})
	ts.Add(Money{Nanos: -2}, Money{Nanos: 1}) // no currency is USD, as Money reads it
	got := ts.Sorted()
	if len(got) != 2 || got[0].Currency != "EUR" || got[1].Currency != "USD" ||
		got[1].BilledCost != (Money{Nanos: 3, Currency: "USD"}) || got[1].EffectiveCost != (Money{Nanos: 5, Currency: "USD"}) ||
		got[0].BilledCost.Nanos != 7 {
		t.Errorf("Sorted() = %+v, want EUR 7/7 then USD 3/5, currencies never added", got)
	}
}
