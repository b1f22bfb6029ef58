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
