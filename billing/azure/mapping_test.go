package azure

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

func byLine(lines []gpucost.CostLine) map[int]gpucost.CostLine {
	m := map[int]gpucost.CostLine{}
	for _, c := range lines {
		m[c.Line] = c
	}
	return m
}

// TestReadMappings checks the FOCUS reading of each kind of row in the EA exports.
func TestReadMappings(t *testing.T) {
	actual, _ := readAll(t, fixture{name: "ea_actual.csv"})
	amortized, _ := readAll(t, fixture{name: "ea_amortized.csv"})
	act, amo := byLine(actual), byLine(amortized)
	const ri = "/providers/Microsoft.Capacity/reservationOrders/7f3a9c2e-1b4d-4e8a-9c6f-2d5e8b1a4c7f/reservations/c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f"
	tests := []struct {
		name                                    string
		line                                    gpucost.CostLine
		category, class, frequency, pricing     string
		commitment, status, ctype, ccat         string
		instance, service                       string
		billed, effective, list, contracted     string
		consumed                                float64
		consumedUnit, pricingUnit, resourceType string
	}{
		{"on-demand A100", act[2], "Usage", "", "Usage-Based", "Standard", "", "", "", "", "Standard_NC24ads_A100_v4", "Virtual Machines",
			"83.76", "83.76", "88.152", "83.76", 24, "Hours", "Hours", "microsoft.compute/virtualmachines"},
		{"spot T4", act[4], "Usage", "", "Usage-Based", "Dynamic", "", "", "", "", "Standard_NC4as_T4_v3", "Virtual Machines",
			"2.7615", "2.7615", "2.7615", "2.7615", 17.5, "Hours", "Hours", "microsoft.compute/virtualmachines"},
		{"reserved H100, actual: bills and costs nothing", act[5], "Usage", "", "Usage-Based", "Committed", ri, "Used", "Reservation", "Usage",
			"Standard_ND96isr_H100_v5", "Virtual Machines", "0", "0", "2163.04", "2054.8", 22, "Hours", "Hours", "microsoft.compute/virtualmachines"},
		{"reserved H100, amortized: costs its share", amo[5], "Usage", "", "Usage-Based", "Committed", ri, "Used", "Reservation", "Usage",
			"Standard_ND96isr_H100_v5", "Virtual Machines", "0", "1350.8", "2163.04", "2054.8", 22, "Hours", "Hours", "microsoft.compute/virtualmachines"},
		{"savings plan A100, amortized", amo[6], "Usage", "", "Usage-Based", "Committed",
			"/providers/Microsoft.BillingBenefits/savingsPlanOrders/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9/savingsPlans/0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d",
			"Used", "Savings Plan", "Spend", "Standard_NC48ads_A100_v4", "Virtual Machines", "0", "125.5512", "193.656", "184.08", 24, "Hours", "Hours",
			"microsoft.compute/virtualmachines"},
		{"AKS scale set", act[7], "Usage", "", "Usage-Based", "Standard", "", "", "", "", "Standard_NC8as_T4_v3", "Virtual Machine Scale Sets",
			"51.4368", "51.4368", "54.144", "51.4368", 72, "Hours", "Hours", "microsoft.compute/virtualmachinescalesets"},
		{"Azure ML compute", act[8], "Usage", "", "Usage-Based", "Standard", "", "", "", "", "Standard_NV36ads_A10_v5", "Azure Machine Learning",
			"15.96", "15.96", "16.8", "15.96", 5.25, "Hours", "Hours", "microsoft.machinelearningservices/workspaces"},
		{"low-priority Batch", act[9], "Usage", "", "Usage-Based", "Dynamic", "", "", "", "", "Standard_NC6s_v3", "Batch",
			"24.48", "24.48", "24.48", "24.48", 40, "Hours", "Hours", "microsoft.batch/batchaccounts"},
		{"10K storage operations: consumed in units", act[11], "Usage", "", "Usage-Based", "Standard", "", "", "", "", "", "Storage Accounts",
			"0.000015", "0.000015", "0.000015", "0.000015", 3, "Units", "10000 Units", "microsoft.storage/storageaccounts"},
		{"10-hour license blocks", act[13], "Usage", "", "Usage-Based", "Standard", "", "", "", "", "", "Virtual Machines",
			"3.5328", "3.5328", "4.416", "3.5328", 24, "Hours", "10 Hours", "microsoft.compute/virtualmachines"},
		{"reservation purchase, actual", act[14], "Purchase", "", "Recurring", "Committed", ri, "", "Reservation", "Usage", "", "Azure Reservations",
			"44208", "44208", "0", "44208", 0, "", "Hours", ""},
		{"reservation refund", act[16], "Purchase", "Correction", "One-Time", "Committed",
			"/providers/Microsoft.Capacity/reservationOrders/b7c6d5e4-f3a2-4b1c-9d8e-7f6a5b4c3d2e/reservations/e9f8a7b6-c5d4-4e3f-a2b1-c0d9e8f7a6b5",
			"", "Reservation", "Usage", "", "Azure Reservations", "-1250", "-1250", "0", "-1250", 0, "", "Hours", ""},
		{"rounding adjustment", act[17], "Adjustment", "", "One-Time", "", "", "", "", "", "", "", "-0.0036", "-0.0036", "0", "0", 0, "", "", ""},
		{"marketplace purchase", act[18], "Purchase", "", "Recurring", "Standard", "", "", "", "", "", "", "2500", "2500", "2500", "2500", 0, "", "Months", ""},
		{"unused reservation", amo[14], "Usage", "", "Usage-Based", "Committed", ri, "Unused", "Reservation", "Usage", "Standard_ND96isr_H100_v5",
			"Virtual Machines", "0", "122.8", "196.64", "186.8", 0, "", "Hours", ""},
		{"unused savings plan", amo[15], "Usage", "", "Usage-Based", "Committed",
			"/providers/Microsoft.BillingBenefits/savingsPlanOrders/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9/savingsPlans/0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d",
			"Unused", "Savings Plan", "Spend", "", "Azure Savings Plan for Compute", "0", "5", "0", "5", 0, "", "Hours", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.line
			got := []string{c.ChargeCategory, c.ChargeClass, c.ChargeFrequency, c.PricingCategory, c.CommitmentDiscountID,
				c.CommitmentDiscountStatus, c.CommitmentDiscountType, c.CommitmentDiscountCategory, c.InstanceType, c.ServiceName,
				c.BilledCost.Decimal(), c.EffectiveCost.Decimal(), c.ListCost.Decimal(), c.ContractedCost.Decimal(),
				c.ConsumedUnit, c.PricingUnit, c.ResourceType}
			want := []string{tt.category, tt.class, tt.frequency, tt.pricing, tt.commitment, tt.status, tt.ctype, tt.ccat,
				tt.instance, tt.service, tt.billed, tt.effective, tt.list, tt.contracted, tt.consumedUnit, tt.pricingUnit, tt.resourceType}
			if !slices.Equal(got, want) {
				t.Errorf("line %d:\n got %q\nwant %q", c.Line, got, want)
			}
			if c.ConsumedQuantity != tt.consumed {
				t.Errorf("line %d ConsumedQuantity = %v, want %v", c.Line, c.ConsumedQuantity, tt.consumed)
			}
		})
	}
}

// TestReadIdentity checks the identity, period, tag and extra columns.
func TestReadIdentity(t *testing.T) {
	lines, _ := readAll(t, fixture{name: "ea_actual.csv"})
	c := byLine(lines)[2]
	want := gpucost.CostLine{Provider: "Microsoft", BillingAccountID: "8611537", SubAccountID: "3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d",
		ResourceID:   "/subscriptions/3f2b8c1d-6a4e-4f0b-9c7d-1e2f3a4b5c6d/resourcegroups/ml-training/providers/microsoft.compute/virtualmachines/gpu-a100-01",
		ResourceName: "gpu-a100-01", RegionID: "eastus", SkuID: "meter-standard_nc24ads_a100_v4-ondemand", PricingQuantity: 24,
		ChargeDescription: "Virtual Machines NCadsA100v4 Series - NC24ads A100 v4 - US East", ServiceCategory: "Compute"}
	if c.Provider != want.Provider || c.BillingAccountID != want.BillingAccountID || c.SubAccountID != want.SubAccountID ||
		c.ResourceID != want.ResourceID || c.ResourceName != want.ResourceName || c.RegionID != want.RegionID ||
		c.SkuID != want.SkuID || c.PricingQuantity != want.PricingQuantity || c.ChargeDescription != want.ChargeDescription ||
		c.ServiceCategory != want.ServiceCategory {
		t.Errorf("line 2 = %+v, want the identity columns of %+v", c, want)
	}
	day := time.Date(2024, 9, 14, 0, 0, 0, 0, time.UTC)
	if !c.ChargePeriodStart.Equal(day) || !c.ChargePeriodEnd.Equal(day.AddDate(0, 0, 1)) ||
		!c.BillingPeriodStart.Equal(time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("line 2 periods = %v–%v (billing %v), want the day 09/14/2024 and the period from 09/01/2024", c.ChargePeriodStart, c.ChargePeriodEnd, c.BillingPeriodStart)
	}
	if want := (gpucost.Labels{"team": "ml-research", "project": "llm-pretrain"}); c.Tags.String() != want.String() {
		t.Errorf("braceless Tags = %v, want %v", c.Tags, want)
	}
	if c.Extra["x_ResourceGroupName"] != "ml-training" || c.Extra["x_SkuMeterCategory"] != "Virtual Machines" ||
		c.Extra["x_SkuMeterName"] != "NC24ads A100 v4" || c.Extra["x_CostCenter"] != "CC-4100" {
		t.Errorf("line 2 Extra = %v", c.Extra)
	}
	mca, _ := readAll(t, fixture{name: "mca_actual_eur.csv"})
	if m := mca[0]; m.BillingAccountID != "ABCD-EF12-GH3-IJK4" || m.BilledCost.Currency != "EUR" || m.SkuID != "DZH318Z00015" {
		t.Errorf("MCA line 2: billing %q currency %q sku %q, want the billing profile, EUR and ProductId", m.BillingAccountID, m.BilledCost.Currency, m.SkuID)
	}
	legacy, _ := readAll(t, fixture{name: "ea_portal_legacy.csv"})
	if l := legacy[1]; l.CommitmentDiscountID != "/providers/Microsoft.Capacity/reservationOrders/8a9b0c1d-2e3f-4a5b-6c7d-8e9f0a1b2c3d/reservations/2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f" ||
		l.PricingCategory != "Committed" || l.RegionID != "westus2" || !l.BillingPeriodStart.Equal(time.Date(2023, 11, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("legacy reserved line = %+v, want the id built from ReservationId and ProductOrderId, Committed, westus2, period 2023-11-01", l)
	}
}

// TestDataset checks that the rows tell the dataset, that the caller's word is taken, and that
// a row the caller's dataset cannot hold is an error.
func TestDataset(t *testing.T) {
	tests := []struct {
		file    string
		opt     Options
		dataset Dataset
		dialect string
		err     string
	}{
		{"ea_actual.csv", Options{}, Actual, "EA actual", ""},
		{"ea_amortized.csv", Options{}, Amortized, "EA amortized", ""},
		{"mca_actual_eur.csv", Options{}, Actual, "MCA actual", ""},
		{"payg_usage_gbp.csv", Options{}, "", "pay-as-you-go", ""},
		{"payg_usage_gbp.csv", Options{Dataset: Amortized}, Amortized, "pay-as-you-go amortized", ""},
		{"ea_actual.csv", Options{Dataset: Actual}, Actual, "EA actual", ""},
		{"ea_amortized.csv", Options{Dataset: Actual}, Actual, "EA actual", "ea_amortized.csv:5: usage a commitment covers costs nothing in actual cost details, but this row costs 1350.8, but the file was read as actual cost; read it as amortized"},
		{"ea_actual.csv", Options{Dataset: "blended"}, "", "", `dataset "blended"`},
	}
	for _, tt := range tests {
		t.Run(tt.file+"/"+string(tt.opt.Dataset), func(t *testing.T) {
			st, err := tt.opt.ReadFile("testdata/"+tt.file, func(*gpucost.CostLine) error { return nil })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || gpucost.ErrorCode(err) != gpucost.EInvalid {
					t.Fatalf("ReadFile = %v, want an EInvalid error containing %q", err, tt.err)
				}
				return
			}
			if err != nil || st.Dataset != tt.dataset || st.Version != tt.dialect {
				t.Errorf("ReadFile = %q (%q, from %q), %v; want %q (%q)", st.Version, st.Dataset, st.DatasetFrom, err, tt.dialect, tt.dataset)
			}
		})
	}
	// An unused row read as actual cost.
	b, err := os.ReadFile("testdata/ea_amortized.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(b, []byte("\r\n"))
	only := bytes.Join([][]byte{lines[0], lines[13], nil}, []byte("\n"))
	_, err = Options{Dataset: Actual}.Read(bytes.NewReader(only), "unused.csv", func(*gpucost.CostLine) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "unused.csv:2: ChargeType UnusedReservation appears only in amortized cost details") {
		t.Errorf("UnusedReservation read as actual: %v", err)
	}
	// A commitment purchase read as amortized cost: Microsoft's rule, EffectiveCost 0.
	var purchase gpucost.CostLine
	_, err = Options{Dataset: Amortized}.ReadFile("testdata/ea_actual.csv", func(c *gpucost.CostLine) error {
		if c.Line == 14 {
			purchase = *c
		}
		return nil
	})
	if err != nil || purchase.BilledCost.Decimal() != "44208" || !purchase.EffectiveCost.IsZero() {
		t.Errorf("purchase read as amortized = billed %v effective %v, %v; want 44208 and 0", purchase.BilledCost, purchase.EffectiveCost, err)
	}
	// Rows of both datasets: the first decides, the file is said to mix them.
	mixed := append(append([]byte(nil), bytes.TrimRight(b, "\r\n")...), []byte("\r\n"+strings.SplitN(string(mustRead(t, "testdata/ea_actual.csv")), "\n", 16)[14]+",fin-ml")...)
	st, err := Read(bytes.NewReader(mixed), "mixed.csv", func(*gpucost.CostLine) error { return nil })
	if err != nil || st.Dataset != Amortized || !strings.Contains(st.DatasetFrom, "mixes the actual and amortized datasets") {
		t.Errorf("mixed file = %q from %q, %v", st.Dataset, st.DatasetFrom, err)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLineReused documents that emit gets the same *CostLine each time.
func TestLineReused(t *testing.T) {
	billtest.LineReused(t, func(emit func(*gpucost.CostLine) error) error {
		_, err := ReadFile("testdata/ea_actual.csv", emit)
		return err
	})
}

func TestDetect(t *testing.T) {
	for _, fx := range fixtures {
		b := mustRead(t, "testdata/"+fx.name)
		if !Detect(b) || !Detect(b[:bytes.IndexByte(b, '\n')]) || !Detect(billtest.Gzip(t, b)) {
			t.Errorf("Detect(%s) = false, want true for the file, its header and its gzip", fx.name)
		}
	}
	for name, header := range map[string]string{
		"FOCUS":     "BilledCost,BillingCurrency,ChargePeriodStart,EffectiveCost,ResourceId,ServiceName,Tags\n",
		"AWS CUR":   "line_item_usage_start_date,line_item_unblended_cost,line_item_currency_code,product_instance_type\n",
		"GCP":       "billing_account_id,service.description,sku.description,usage_start_time,cost,currency\n",
		"empty":     "",
		"not CSV":   "\x00\x01\x02",
		"no meters": "Date,Cost,Currency\n",
	} {
		if Detect([]byte(header)) {
			t.Errorf("Detect(%s header) = true, want false", name)
		}
	}
	if !Detect([]byte("Date,MeterCategory,Quantity\n")) {
		t.Errorf("Detect(a cost details header lacking the cost column) = false; the format is still Azure's, and Read names what is missing")
	}
}

// TestSchema checks that each header variant is told apart.
func TestSchema(t *testing.T) {
	ea := strings.SplitN(string(mustRead(t, "testdata/ea_actual.csv")), "\n", 2)[0]
	mca := strings.TrimPrefix(strings.SplitN(string(mustRead(t, "testdata/mca_actual_eur.csv")), "\n", 2)[0], "\ufeff")
	tests := []struct {
		name, header, schema string
	}{
		{"EA", ea, SchemaEA},
		{"EA, camelCase", strings.ToLower(ea[:1]) + ea[1:], SchemaEA},
		{"MCA", mca, SchemaMCA},
		{"MCA, PascalCase", strings.ToUpper(mca[:1]) + strings.ReplaceAll(mca, ",c", ",C")[1:], SchemaMCA},
		{"MPA", mca + ",partnerName,customerTenantId", SchemaMPA},
		{"pay-as-you-go, EA-style columns with BillingCurrency", strings.Replace(ea, "BillingCurrencyCode", "BillingCurrency", 1), SchemaPAYG},
		{"pay-as-you-go usage", "SubscriptionGuid,UsageDateTime,MeterCategory,UsageQuantity,PreTaxCost,InstanceId,Currency", SchemaPAYG},
		{"EA usage 2019", "DepartmentName,AccountName,SubscriptionGuid,UsageDateTime,MeterCategory,UsageQuantity,PreTaxCost,InstanceId", SchemaEA},
	}
	for _, tt := range tests {
		p, err := newPlan(strings.Split(tt.header, ","), "USD")
		if err != nil || p.schema != tt.schema {
			t.Errorf("newPlan(%s) = %v, %v; want schema %s", tt.name, p, err, tt.schema)
		}
	}
}
