package focus

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestNullSpellings reads the null literal in any case, in CSV and in Parquet text columns,
// in a nullable column of each kind (FOCUS "Null Handling": nullable columns use NULL).
func TestNullSpellings(t *testing.T) {
	for _, null := range []string{"", "NULL", "null", "Null", "nULL", `"null"`} {
		text := goodHead + row(9, null) + row(6, null) + row(12, null) + row(17, null)
		var lines []gpucost.CostLine
		_, err := Read(strings.NewReader(text), "bill.csv", func(l *gpucost.CostLine) error { lines = append(lines, Clone(l)); return nil })
		if err != nil {
			t.Errorf("Read(nulls written %q) = %v, want nulls", null, err)
			continue
		}
		if len(lines) != 4 || lines[0].ContractedCost.Nanos != 0 || lines[1].ChargeDescription != "" || lines[2].PricingQuantity != 0 || lines[3].Tags != nil {
			t.Errorf("Read(nulls written %q) = %+v, want each null column empty", null, lines)
		}
	}
	for _, null := range []string{"NULL", "null", "Null"} {
		r := goodText("1.5")
		r.ChargeDescription, r.ContractedCost, r.PricingQuantity = null, null, null
		data := writeParquet(t, []textRow{r})
		var got []gpucost.CostLine
		_, err := ReadParquet(bytes.NewReader(data), int64(len(data)), "t.parquet", func(l *gpucost.CostLine) error { got = append(got, Clone(l)); return nil })
		if err != nil || len(got) != 1 || got[0].ChargeDescription != "" || got[0].PricingQuantity != 0 {
			t.Errorf("ReadParquet(text nulls written %q) = %+v, %v; want one line with those columns null", null, got, err)
		}
	}
}

// TestNullRequiredRefused keeps refusing a null, in any spelling, in a column every row needs.
func TestNullRequiredRefused(t *testing.T) {
	for _, tc := range []struct {
		col  int
		want string
	}{
		{0, "column 1 (BilledCost) is null"},
		{2, "column 3 (BillingCurrency) is null"},
		{8, "column 9 (ChargePeriodStart) is null"},
		{10, "column 11 (EffectiveCost) is null"},
	} {
		for _, null := range []string{"", "NULL", "null", "Null"} {
			_, err := Read(strings.NewReader(goodHead+row(tc.col, null)), "bill.csv", func(*gpucost.CostLine) error { return nil })
			if err == nil || !strings.Contains(err.Error(), "bill.csv:2: "+tc.want+" (empty or NULL); FOCUS requires it in every row") {
				t.Errorf("Read(column %d written %q) = %v, want %q", tc.col+1, null, err, tc.want)
			}
		}
	}
}
