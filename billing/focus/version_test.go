package focus

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// The 1.1 and 1.2 fixtures carry every column of their version (50 and 57, from the spec's
// column lists), CRLF line ends and the date forms real exports use.
func TestVersionDetected(t *testing.T) {
	for _, tc := range []struct {
		file        string
		version     string
		decidedBy   []string
		extra       []string
		rowsByCurr  map[string]int
		billedByCur map[string]int64
	}{
		{"testdata/focus_sample.csv", V1_0, nil, []string{"Id"}, map[string]int{"USD": 1000}, nil},
		{"testdata/focus_1_1.csv", V1_1,
			[]string{"CapacityReservationId", "CapacityReservationStatus", "CommitmentDiscountQuantity", "CommitmentDiscountUnit", "ServiceSubcategory", "SkuMeter", "SkuPriceDetails"},
			nil, map[string]int{"USD": 2, "EUR": 1}, map[string]int64{"USD": 18_964_000_000, "EUR": 0}},
		{"testdata/focus_1_2.csv", V1_2,
			[]string{"BillingAccountType", "InvoiceId", "PricingCurrency", "PricingCurrencyContractedUnitPrice", "PricingCurrencyEffectiveCost", "PricingCurrencyListUnitPrice", "SubAccountType"},
			[]string{"x_Team", "x_GPUModel"}, map[string]int{"USD": 2, "EUR": 1}, map[string]int64{"USD": 18_964_000_000, "EUR": 0}},
	} {
		st, err := ReadFile(tc.file, func(*gpucost.CostLine) error { return nil })
		if err != nil {
			t.Errorf("ReadFile(%s): %v", tc.file, err)
			continue
		}
		if st.Version != tc.version || !slices.Equal(st.VersionColumns, tc.decidedBy) || !slices.Equal(st.Kept, tc.extra) {
			t.Errorf("ReadFile(%s) = version %s from %v, extras %v; want %s from %v, extras %v",
				tc.file, st.Version, st.VersionColumns, st.Kept, tc.version, tc.decidedBy, tc.extra)
		}
		for cur, n := range tc.rowsByCurr {
			if st.Totals[cur].Rows != n {
				t.Errorf("ReadFile(%s) %s rows = %d, want %d", tc.file, cur, st.Totals[cur].Rows, n)
			}
		}
		for cur, n := range tc.billedByCur {
			if got := st.Totals[cur].BilledCost; got.Nanos != n || got.Currency != cur {
				t.Errorf("ReadFile(%s) billed %s = %v, want %d nano", tc.file, cur, got, n)
			}
		}
	}
}

// TestFixtureValues checks the forms of the 1.2 fixture: spot as Dynamic, offsets, date-only and
// " UTC" times, numeric tag values, extras, empty quantities.
func TestFixtureValues(t *testing.T) {
	var lines []gpucost.CostLine
	if _, err := ReadFile("testdata/focus_1_2.csv", func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	spot, azure, gcp := lines[0], lines[1], lines[2]
	if spot.PricingCategory != "Dynamic" || spot.ListCost.Nanos != 98_320_000_000 || spot.Extra["x_GPUModel"] != "H100" ||
		spot.Tags["user:project"] != "llm-pretrain" || !spot.ChargePeriodStart.Equal(time.Date(2025, 6, 14, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("spot line = %+v", spot)
	}
	if !azure.BillingPeriodStart.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) || azure.Tags["costcenter"] != "42" ||
		azure.EffectiveCost != (gpucost.Money{Nanos: 1_415_520_000_000, Currency: "EUR"}) || azure.CommitmentDiscountStatus != "Used" ||
		len(azure.Extra) != 1 || azure.PricingQuantity != 24 {
		t.Errorf("azure line = %+v", azure)
	}
	if gcp.BilledCost.Nanos != -12_500_000_000 || gcp.Tags != nil || gcp.Extra != nil || gcp.ConsumedQuantity != 0 ||
		!gcp.ChargePeriodEnd.Equal(time.Date(2025, 6, 3, 0, 0, 0, 0, time.UTC)) || gcp.Line != 4 {
		t.Errorf("gcp line = %+v", gcp)
	}
}

func TestHeaderVariants(t *testing.T) {
	row := "1,1,USD,2024-09-01T00:00:00Z,Usage,,d,2024-09-01T01:00:00Z,2024-09-01T00:00:00Z,0,1,1,1,h,AWS,Compute,EC2\n"
	head := "BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodEnd,ChargePeriodStart,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName\n"
	for _, tc := range []struct{ name, text, provider string }{
		{"minimal mandatory", head + row, "AWS"},
		{"byte order mark", "\ufeff" + head + row, "AWS"},
		{"lower-case names", strings.ToLower(head) + row, "AWS"},
		{"1.3 ServiceProviderName", strings.Replace(head, "ProviderName", "ServiceProviderName", 1) + row, "AWS"},
		{"no final newline", head + strings.TrimSuffix(row, "\n"), "AWS"},
		{"blank lines", head + "\n\r\n" + row + "\n", "AWS"},
	} {
		var got []string
		st, err := Read(strings.NewReader(tc.text), tc.name, func(l *gpucost.CostLine) error {
			got = append(got, l.Provider)
			return nil
		})
		if err != nil || st.Rows != 1 || len(got) != 1 || got[0] != tc.provider {
			t.Errorf("Read(%s) = %d rows %v, %v; want 1 row of %s", tc.name, st.Rows, got, err, tc.provider)
		}
		if tc.name == "1.3 ServiceProviderName" && (st.Version != V1_3 || !slices.Equal(st.VersionColumns, []string{"ServiceProviderName"})) {
			t.Errorf("Read(%s) version %s %v, want 1.3 [ServiceProviderName]", tc.name, st.Version, st.VersionColumns)
		}
	}
}
