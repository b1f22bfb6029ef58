package focus

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/lenient"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

func readLenient(text string) ([]gpucost.CostLine, Stats, error) {
	var lines []gpucost.CostLine
	st, err := ReadWith(strings.NewReader(text), "bill.csv", Options{Lenient: true}, func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	})
	return lines, st, err
}

// TestLenientCoerces reads amounts with currency symbols and thousands separators and non-ISO
// dates, and counts them per kind and column.
func TestLenientCoerces(t *testing.T) {
	r1 := row(0, `"$10,000.00"`)
	r2 := strings.Replace(row(10, `"USD 1,234.5"`), "2024-09-01T00:00:00Z,Usage", "2024/09/01,Usage", 1)
	r3 := strings.Replace(row(0, "-$0.25"), ",2024-09-01T00:00:00Z,0,", `,"Sun, 01 Sep 2024 00:00:00 GMT",0,`, 1)
	lines, st, err := readLenient(goodHead + r1 + r2 + r3 + goodRow)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 4 || lines[0].BilledCost.Nanos != 10_000_000_000_000 || lines[1].EffectiveCost.Nanos != 1_234_500_000_000 || lines[2].BilledCost.Nanos != -250_000_000 {
		t.Errorf("coerced amounts = %v, %v, %v; want 10000, 1234.5, -0.25", lines[0].BilledCost, lines[1].EffectiveCost, lines[2].BilledCost)
	}
	sep1 := lines[3].ChargePeriodStart
	if !lines[1].BillingPeriodStart.Equal(sep1) || !lines[2].ChargePeriodStart.Equal(sep1) {
		t.Errorf("coerced dates = %v, %v; want %v", lines[1].BillingPeriodStart, lines[2].ChargePeriodStart, sep1)
	}
	want := []totals.Coercion{
		{Kind: lenient.AmountKind, How: lenient.AmountHow, Columns: []string{"BilledCost", "EffectiveCost"}, Count: 3},
		{Kind: lenient.DateKind, How: lenient.DateHow, Columns: []string{"BillingPeriodStart", "ChargePeriodStart"}, Count: 2},
	}
	if len(st.Coerced) != len(want) {
		t.Fatalf("Stats.Coerced = %+v, want %+v", st.Coerced, want)
	}
	for i, c := range st.Coerced {
		if c.String() != want[i].String() || c.Count != want[i].Count {
			t.Errorf("Stats.Coerced[%d] = %q, want %q", i, c, want[i])
		}
	}
	if got := st.Totals["USD"].BilledCost.Nanos; got != 10_000_000_000_000+1_500_000_000-250_000_000+1_500_000_000 {
		t.Errorf("BilledCost total = %d nano-units, want the coerced amounts summed", got)
	}
}

// TestLenientStillRefuses keeps what could mean two things an error with --lenient.
func TestLenientStillRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"ambiguous date", goodHead + row(3, "01/02/2025"), []string{`bill.csv:2: column 4 (BillingPeriodStart): "01/02/2025" is not an ISO 8601`, "ambiguous, day/month or month/day"}},
		{"day-first date", goodHead + row(8, "13/09/2024"), []string{`bill.csv:2: column 9 (ChargePeriodStart): "13/09/2024"`, "ambiguous"}},
		{"symbol not the currency", goodHead + row(0, "€10.00"), []string{`bill.csv:2: column 1 (BilledCost): "€10.00" is not an amount in USD, the row's BillingCurrency`}},
		{"code not the currency", goodHead + row(11, "10.00 EUR"), []string{`bill.csv:2: column 12 (ListCost): "10.00 EUR" is not an amount in USD`}},
		{"decimal comma", goodHead + row(0, `"1.234,50"`), []string{`bill.csv:2: column 1 (BilledCost): "1.234,50" is not a decimal number`}},
		{"not an amount", goodHead + row(0, "lots"), []string{`column 1 (BilledCost): "lots" is not a decimal number`}},
	} {
		_, _, err := readLenient(tc.text)
		if err == nil {
			t.Errorf("ReadWith(lenient, %s) = nil error, want %q", tc.name, tc.want)
			continue
		}
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ReadWith(lenient, %s) code %s, want %s", tc.name, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
		msg, at := err.Error(), 0
		for _, w := range tc.want {
			i := strings.Index(msg[at:], w)
			if i < 0 {
				t.Errorf("ReadWith(lenient, %s) error\n  %s\nwant it to contain, in order, %q", tc.name, msg, tc.want)
				break
			}
			at += i + len(w)
		}
		if strings.Contains(msg, "--lenient") {
			t.Errorf("ReadWith(lenient, %s) error %q suggests --lenient, which is on", tc.name, msg)
		}
	}
}

// TestStrictCountsNothing: without Options.Lenient a file of ISO values coerces nothing.
func TestStrictCountsNothing(t *testing.T) {
	st, err := Read(strings.NewReader(goodHead+goodRow), "bill.csv", func(*gpucost.CostLine) error { return nil })
	if err != nil || st.Coerced != nil {
		t.Errorf("Read = %+v, %v; want no coercions", st.Coerced, err)
	}
}
