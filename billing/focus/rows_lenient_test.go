package focus

import (
	"strings"
	"testing"
)

// lenientRows has amounts and dates a strict read refuses, a lenient one reads, and one it does
// not (10/01/2025: day/month or month/day).
const lenientRows = `BilledCost,EffectiveCost,BillingCurrency,ChargePeriodStart,BillingPeriodEnd,x_Amount
"$10,000.00",9500.5,USD,2025/10/01,2025/11/01,"$1,000.00"
1.25,"$1.25",USD,10/01/2025,2025/11/01,x
`

// TestRowReaderLenient reads rows with SetLenient: the amounts and dates of the columns Read
// reads are given in canonical form, the rest as written; a date no read takes stays an error
// naming the file, line, column and what to do.
func TestRowReaderLenient(t *testing.T) {
	strict, err := NewRowReader(strings.NewReader(lenientRows), "sheet.csv")
	if err != nil {
		t.Fatal(err)
	}
	strict.Next()
	if _, _, err := strict.Costs(); err == nil || !strings.Contains(err.Error(), `sheet.csv:2: column 1 (BilledCost): "$10,000.00"`) ||
		!strings.Contains(err.Error(), "--lenient") {
		t.Errorf("Costs() read strictly = %v; want the place named and --lenient suggested", err)
	}

	rr, err := NewRowReader(strings.NewReader(lenientRows), "sheet.csv")
	if err != nil {
		t.Fatal(err)
	}
	rr.SetLenient(true)
	want := [][]string{
		{"10000.00", "9500.5", "USD", "2025-10-01T00:00:00Z", "2025/11/01", "$1,000.00"},
		{"1.25", "1.25", "USD", "10/01/2025", "2025/11/01", "x"},
	}
	for i, w := range want {
		if !rr.Next() {
			t.Fatalf("Next() = false at row %d: %v", i+1, rr.Err())
		}
		var got []string
		for _, v := range rr.Values() {
			got = append(got, string(v))
		}
		if strings.Join(got, "|") != strings.Join(w, "|") {
			t.Errorf("row %d Values() = %q, want %q", i+1, got, w)
		}
	}
	if _, err := rr.ChargePeriodStart(); err == nil || !strings.Contains(err.Error(), `sheet.csv:3: column 4 (ChargePeriodStart): "10/01/2025"`) ||
		!strings.Contains(err.Error(), "fix the value") {
		t.Errorf("ChargePeriodStart() of 10/01/2025 = %v; want the place named and what to do", err)
	}
}
