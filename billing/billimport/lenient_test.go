package billimport

import (
	"context"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// A FOCUS file as a spreadsheet writes it: amounts with a dollar sign and thousands
// separators, a date with slashes.
const spreadsheetFOCUS = "BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodEnd,ChargePeriodStart,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,Tags\n" +
	`"$10,000.00",1,USD,2024/09/01,Usage,,d,2024-09-02T00:00:00Z,2024-09-01T00:00:00Z,null,"$9,500.50",NULL,24,h,AWS,Compute,EC2,` + "\n" +
	`$2.50,1,USD,2024/09/01,Usage,,d,2024-09-03T00:00:00Z,2024-09-02T00:00:00Z,Null,$2.50,,24,h,AWS,Compute,EC2,` + "\n"

// TestImportLenient imports what a strict import refuses, with Options.Lenient, and says how
// many values it coerced.
func TestImportLenient(t *testing.T) {
	ctx := context.Background()
	db := newStore(t)
	im := &Importer{Store: db}
	path := writeFile(t, "spreadsheet.csv", []byte(spreadsheetFOCUS))
	_, err := im.Import(ctx, []Source{{Path: path, Name: "spreadsheet.csv"}}, Options{})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), `spreadsheet.csv:2: column 1 (BilledCost): "$10,000.00" is not a decimal number`) ||
		!strings.Contains(err.Error(), "import with --lenient, which reads it as 10000.00") {
		t.Fatalf("Import(strict) = %v, want the bad amount named and --lenient suggested", err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 0 {
		t.Fatalf("a refused import stored %d imports", len(imps))
	}
	res, err := im.Import(ctx, []Source{{Path: path, Name: "spreadsheet.csv"}}, Options{Lenient: true})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	if len(r.Totals) != 1 || r.Totals[0].BilledCost.Nanos != 10_002_500_000_000 {
		t.Errorf("Totals = %v, want BilledCost 10002.50 USD", r.Totals)
	}
	if r.Totals[0].EffectiveCost.Nanos != 9_503_000_000_000 {
		t.Errorf("EffectiveCost = %v, want 9503.00", r.Totals[0].EffectiveCost)
	}
	var got []string
	for _, c := range r.Coerced {
		got = append(got, c.String())
	}
	want := []string{
		"coerced 4 amounts in BilledCost, EffectiveCost: currency symbol and thousands separators removed",
		"coerced 2 dates in BillingPeriodStart: YYYY/MM/DD and RFC 1123 forms read as ISO 8601 (UTC)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("Coerced =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
