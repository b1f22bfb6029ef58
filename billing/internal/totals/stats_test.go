package totals

import (
	"math"
	"testing"

	"github.com/gpucost/gpucost"
)

func line(cur string, billed, effective, list, contracted int64) *gpucost.CostLine {
	m := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: cur} }
	return &gpucost.CostLine{BilledCost: m(billed), EffectiveCost: m(effective), ListCost: m(list), ContractedCost: m(contracted)}
}

// Tally sums every amount per currency, never across currencies, and counts rows by type.
func TestTally(t *testing.T) {
	var tl Tally
	for _, l := range []struct {
		l      *gpucost.CostLine
		source int64
		typ    string
	}{
		{line("USD", 10, 8, 12, 9), 10, "Usage"},
		{line("EUR", 5, 5, 5, 5), 6, "Usage"},
		{line("USD", -2, -2, 0, -2), -2, "Credit"},
	} {
		if err := tl.Add(l.l, l.source, l.typ); err != nil {
			t.Fatal(err)
		}
	}
	var st Stats
	tl.Fill(&st, true)
	usd := st.Totals["USD"]
	if st.Rows != 3 || usd.Rows != 2 || usd.BilledCost.Nanos != 8 || usd.EffectiveCost.Nanos != 6 || usd.ListCost.Nanos != 12 ||
		usd.ContractedCost.Nanos != 7 || usd.Source.Nanos != 8 || usd.Source.Currency != "USD" || st.Totals["EUR"].Source.Nanos != 6 {
		t.Errorf("Fill = %+v; want USD 2 rows billed 8 effective 6 list 12 contracted 7 source 8, EUR source 6", st)
	}
	if st.Types["Usage"] != 2 || st.Types["Credit"] != 1 {
		t.Errorf("Types = %v, want Usage 2, Credit 1", st.Types)
	}
	if got := st.CostTotals(); len(got) != 2 || got[0].Currency != "EUR" || got[1].BilledCost.Nanos != 8 || got[1].EffectiveCost.Nanos != 6 {
		t.Errorf("CostTotals = %v, want EUR then USD billed 8 effective 6", got)
	}
	var none Stats
	tl.Fill(&none, false)
	if none.Types != nil {
		t.Errorf("Fill(types false) Types = %v, want nil", none.Types)
	}
	if err := tl.Add(line("USD", math.MaxInt64, 0, 0, 0), 0, ""); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Add past the range of Money = %v, want EInvalid", err)
	}
}

func TestCoercions(t *testing.T) {
	var c Coercions
	if c.List() != nil {
		t.Errorf("List() of nothing = %v, want nil", c.List())
	}
	for range 1204 {
		c.Add("amounts", "currency symbol and thousands separators removed", "BilledCost")
	}
	c.Add("dates", "read as ISO 8601", "ChargePeriodStart")
	c.Add("amounts", "currency symbol and thousands separators removed", "EffectiveCost")
	got := c.List()
	if len(got) != 2 {
		t.Fatalf("List() = %v, want 2 kinds", got)
	}
	if want := "coerced 1,205 amounts in BilledCost, EffectiveCost: currency symbol and thousands separators removed"; got[0].String() != want {
		t.Errorf("List()[0] = %q, want %q", got[0], want)
	}
	if want := "coerced 1 date in ChargePeriodStart: read as ISO 8601"; got[1].String() != want {
		t.Errorf("List()[1] = %q, want %q", got[1], want)
	}
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-1234, "-1,234"}} {
		if got := thousands(tt.n); got != tt.want {
			t.Errorf("thousands(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
