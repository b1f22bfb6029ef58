package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpucost/gpucost"
)

// spreadsheetBill is a FOCUS bill as a spreadsheet writes it: amounts with currency signs and
// thousands separators, dates with slashes or in RFC 1123, in two currencies; and the
// canonical form export focus --all gives it back in after gpucost import billing --lenient:
// the amounts and dates the import coerced as plain decimals and RFC 3339 in UTC, every other
// cell as written (BillingPeriodEnd, which the import does not read, included).
const (
	spreadsheetBill = `BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodStart,ChargePeriodEnd,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,ResourceId,Tags,x_Note
"$10,000.00",111,USD,2025/10/01,2025/11/01,Usage,,p5 hours,2025/10/01,2025/10/02,NULL,"$9,500.50","$10,000.00",24,Hours,AWS,Compute,EC2,i-1,"{""team"":""ml""}","$ as written"
$1.25,111,USD,2025-10-01T00:00:00Z,2025-11-01T00:00:00Z,Usage,,p5 hours,"Thu, 02 Oct 2025 00:00:00 GMT",2025-10-03T00:00:00Z,,1.25,1.25,1,Hours,AWS,Compute,EC2,i-1,,plain
"€1,234.50",222,EUR,2025/10/01,2025/11/01,Usage,,a100 hours,2025/10/05 06:00:00,2025/10/05 07:00:00,null,€1234.5,12.00 EUR,1,Hours,Azure,Compute,VM,vm-2,"{""team"":""cv""}",
`
	canonicalBill = `BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodStart,ChargePeriodEnd,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,ResourceId,Tags,x_Note
10000.00,111,USD,2025-10-01T00:00:00Z,2025/11/01,Usage,,p5 hours,2025-10-01T00:00:00Z,2025-10-02T00:00:00Z,,9500.50,10000.00,24,Hours,AWS,Compute,EC2,i-1,"{""team"":""ml""}","$ as written"
1.25,111,USD,2025-10-01T00:00:00Z,2025-11-01T00:00:00Z,Usage,,p5 hours,2025-10-02T00:00:00Z,2025-10-03T00:00:00Z,,1.25,1.25,1,Hours,AWS,Compute,EC2,i-1,,plain
1234.50,222,EUR,2025-10-01T00:00:00Z,2025/11/01,Usage,,a100 hours,2025-10-05T06:00:00Z,2025-10-05T07:00:00Z,,1234.5,12.00,1,Hours,Azure,Compute,VM,vm-2,"{""team"":""cv""}",
`
)

// TestExportAllLenient imports a spreadsheet's FOCUS bill with --lenient, exports it with export
// focus --all as CSV and as Parquet, and checks that the export holds the coerced amounts and
// dates in canonical form and every other cell as written, and that a strict import of the
// export into a fresh store gives the same lines, totals per currency and periods.
func TestExportAllLenient(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "spreadsheet.csv")
	want := filepath.Join(dir, "want.csv")
	for path, text := range map[string]string{bill: spreadsheetBill, want: canonicalBill} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, dir, "import", "billing", "--lenient", bill)
	var list []struct{ Lenient bool }
	if err := json.Unmarshal([]byte(mustRun(t, dir, "import", "list", "--output", "json")), &list); err != nil || len(list) != 1 || !list[0].Lenient {
		t.Fatalf("import list --output json = %+v, %v; want one import, lenient", list, err)
	}
	wantHeader, wantRows := readRows(t, want)
	for _, out := range []string{"export.csv", "export.parquet"} {
		path := filepath.Join(dir, out)
		mustRun(t, dir, "export", "focus", "--all", "--out", path)
		header, rows := readRows(t, path)
		header, rows = inOrder(wantHeader, header, rows)
		if !slices.Equal(header, wantHeader) || len(rows) != len(wantRows) {
			t.Fatalf("%s: columns %v, %d rows; want %v, %d rows", out, header, len(rows), wantHeader, len(wantRows))
		}
		for i := range wantRows {
			for j, col := range header {
				if rows[i][j] != wantRows[i][j] {
					t.Errorf("%s row %d column %s = %q, want %q", out, i+1, col, rows[i][j], wantRows[i][j])
				}
			}
		}
		sameStoredLines(t, dir, path)
		fresh := t.TempDir()
		mustRun(t, fresh, "import", "billing", path)
		_, got := storedLines(t, fresh)
		wantTotals := []gpucost.CostTotal{
			{Currency: "EUR", BilledCost: gpucost.Money{Nanos: 1_234_500_000_000, Currency: "EUR"}, EffectiveCost: gpucost.Money{Nanos: 1_234_500_000_000, Currency: "EUR"}},
			{Currency: "USD", BilledCost: gpucost.Money{Nanos: 10_001_250_000_000, Currency: "USD"}, EffectiveCost: gpucost.Money{Nanos: 9_501_750_000_000, Currency: "USD"}},
		}
		if !slices.Equal(got, wantTotals) {
			t.Errorf("strict import of %s: totals %v, want %v", out, got, wantTotals)
		}
	}
}
