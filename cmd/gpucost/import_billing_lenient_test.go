package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A FOCUS file with dollar amounts and slashed dates is refused with the place and --lenient
// suggested; --lenient imports it and says how many values it coerced.
func TestImportBillingLenient(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "spreadsheet.csv")
	text := "BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodEnd,ChargePeriodStart,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,Tags\n" +
		`"$10,000.00",1,USD,2024/09/01,Usage,,d,2024-09-02T00:00:00Z,2024-09-01T00:00:00Z,null,"$10,000.00",NULL,24,h,AWS,Compute,EC2,` + "\n"
	if err := os.WriteFile(bill, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(t, dir, "import", "billing", bill)
	if code != exitInvalid || !strings.Contains(errOut, `spreadsheet.csv:2: column 1 (BilledCost): "$10,000.00"`) || !strings.Contains(errOut, "--lenient") {
		t.Fatalf("import billing (strict): exit %d\n%s\nwant exit %d naming line, column and --lenient", code, errOut, exitInvalid)
	}
	code, out, errOut := runCLI(t, dir, "import", "billing", "--lenient", bill)
	if code != exitOK {
		t.Fatalf("import billing --lenient: exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"10000.00", "coerced 2 amounts in BilledCost, EffectiveCost: currency symbol and thousands separators removed",
		"coerced 1 date in BillingPeriodStart"} {
		if !strings.Contains(out, want) {
			t.Errorf("import billing --lenient lacks %q:\n%s", want, out)
		}
	}
}
