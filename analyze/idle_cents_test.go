package analyze

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// TestPeriodCents: the priced periods' cents add up to the report's cost rounded (three of
// $0.335 to $1.01, where rounding each prints $1.02), and an unpriced period's is zero.
func TestPeriodCents(t *testing.T) {
	third := gpucost.Money{Nanos: 335_000_000, Currency: "EUR"}
	r := IdleReport{Currency: "EUR", Cost: gpucost.Money{Nanos: 1_005_000_000, Currency: "EUR"}, Unpriced: 1, Periods: []IdlePeriod{
		{Cost: third, Priced: true}, {}, {Cost: third, Priced: true}, {Cost: third, Priced: true}}}
	got := r.PeriodCents()
	want := []string{"EUR 0.34", "USD 0.00", "EUR 0.34", "EUR 0.33"}
	if len(got) != len(want) {
		t.Fatalf("PeriodCents() = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].String() != want[i] {
			t.Errorf("PeriodCents()[%d] = %s, want %s", i, got[i], want[i])
		}
	}
}
