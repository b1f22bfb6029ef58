package fleet

import (
	"testing"

	"github.com/gpucost/gpucost"
)

// TestRealizedCents: three measured steps of $0.335 add up to their total of $1.01 ($1.005),
// where rounding each prints $1.02; a step in another currency, not in the total, and one still
// measuring are each rounded on their own.
func TestRealizedCents(t *testing.T) {
	third := gpucost.USD(335_000_000)
	eur := gpucost.Money{Nanos: 335_000_000, Currency: "EUR"}
	rep := RealizedReport{Measured: 3, Predicted: gpucost.USD(1_005_000_000), Realized: gpucost.USD(1_005_000_000)}
	for range 3 {
		rep.Steps = append(rep.Steps, RealizedStep{AppliedStep: gpucost.AppliedStep{Predicted: third}, Status: RealizedMeasured, Realized: third})
	}
	rep.Steps = append(rep.Steps,
		RealizedStep{AppliedStep: gpucost.AppliedStep{Predicted: eur}, Status: RealizedMeasured, Realized: eur},
		RealizedStep{AppliedStep: gpucost.AppliedStep{Predicted: third}, Status: RealizedMeasuring})
	c := rep.Cents()
	want := []string{"USD 0.34", "USD 0.34", "USD 0.33", "EUR 0.34", "USD 0.34"}
	for i, w := range want {
		if c.Predicted[i].String() != w {
			t.Errorf("Cents().Predicted[%d] = %s, want %s", i, c.Predicted[i], w)
		}
	}
	if c.TotalPredicted.String() != "USD 1.01" || c.TotalRealized.String() != "USD 1.01" || c.Realized[2].String() != "USD 0.33" {
		t.Errorf("Cents() = %+v; want totals of USD 1.01 that the first three steps add up to", c)
	}
}
