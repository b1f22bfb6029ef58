package azure

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// costGen writes a synthetic cost details CSV of a GPU fleet for benchmarks: realistic cells in
// the columns of a real export (EA 2024-08-01 or MCA 2023-12-01-preview), across resources,
// days, subscriptions, teams, pricing models and meters. It is an io.Reader, so a file of any
// size streams without being held in memory.
type costGen struct {
	*billtest.Stream
	cols      []string
	index     map[string]int
	resources int
	mca       bool
	buf       []byte // the row being written
	cells     []string
}

// eaColumns and mcaColumns are the column sets of the two schemas, in export order.
func eaColumns() []string {
	return strings.Fields(`InvoiceSectionName AccountName AccountOwnerId SubscriptionId SubscriptionName ResourceGroup
	ResourceLocation Date ProductName MeterCategory MeterSubCategory MeterId MeterName MeterRegion UnitOfMeasure Quantity
	EffectivePrice CostInBillingCurrency CostCenter ConsumedService ResourceId Tags OfferId AdditionalInfo ServiceInfo1
	ServiceInfo2 ResourceName ReservationId ReservationName UnitPrice ProductOrderId ProductOrderName Term PublisherType
	PublisherName ChargeType Frequency PricingModel AvailabilityZone BillingAccountId BillingAccountName BillingCurrencyCode
	BillingPeriodStartDate BillingPeriodEndDate BillingProfileId BillingProfileName InvoiceSectionId IsAzureCreditEligible
	PartNumber PayGPrice PlanName ServiceFamily CostAllocationRuleName benefitId benefitName AccountId
	ResourceLocationNormalized`)
}

func mcaColumns() []string {
	return strings.Fields(`invoiceId previousInvoiceId billingAccountId billingAccountName billingProfileId
	billingProfileName invoiceSectionId invoiceSectionName resellerName resellerMpnId costCenter billingPeriodEndDate
	billingPeriodStartDate servicePeriodEndDate servicePeriodStartDate date serviceFamily productOrderId productOrderName
	consumedService meterId meterName meterCategory meterSubCategory meterRegion ProductId ProductName SubscriptionId
	subscriptionName publisherType publisherId publisherName resourceGroupName ResourceId resourceLocation location
	effectivePrice quantity unitOfMeasure chargeType billingCurrency pricingCurrency costInBillingCurrency
	costInPricingCurrency costInUsd paygCostInBillingCurrency paygCostInUsd exchangeRatePricingToBilling exchangeRateDate
	isAzureCreditEligible serviceInfo1 serviceInfo2 additionalInfo tags PayGPrice frequency term reservationId
	reservationName pricingModel unitPrice costAllocationRuleName benefitId benefitName provider`)
}

func newCostGen(mca bool, rows, resources int) *costGen {
	cols := eaColumns()
	if mca {
		cols = mcaColumns()
	}
	g := &costGen{cols: cols, index: map[string]int{}, resources: resources, mca: mca,
		cells: make([]string, len(cols))}
	g.Stream = billtest.NewStream(strings.Join(cols, ",")+"\n", rows, 128, g.appendRow)
	for i, c := range cols {
		g.index[strings.ToLower(c)] = i
	}
	return g
}

var genSizes = []struct {
	size, series, meter, price string
	vcpus                      int
}{
	{"Standard_NC24ads_A100_v4", "NCadsA100v4 Series", "NC24ads A100 v4", "3.673", 24},
	{"Standard_ND96isr_H100_v5", "NDsr H100 v5 Series", "ND96isr H100 v5", "98.32", 96},
	{"Standard_NC4as_T4_v3", "NCasT4 v3 Series", "NC4as T4 v3", "0.526", 4},
	{"Standard_NC8as_T4_v3", "NCasT4 v3 Series", "NC8as T4 v3", "0.752", 8},
	{"Standard_NV36ads_A10_v5", "NVadsA10 v5 Series", "NV36ads A10 v5", "3.2", 36},
	{"Standard_NC40ads_H100_v5", "NCadsH100v5 Series", "NC40ads H100 v5", "6.98", 40},
	{"Standard_D8s_v5", "Dsv5 Series", "D8s v5", "0.384", 8},
	{"Standard_E16ds_v5", "Edsv5 Series", "E16ds v5", "1.152", 16},
}

// appendRow appends row i to dst.
func (g *costGen) appendRow(dst []byte, i int) []byte {
	g.buf = dst
	g.writeRow(i)
	return g.buf
}

func (g *costGen) set(col, v string) {
	if i, ok := g.index[strings.ToLower(col)]; ok {
		g.cells[i] = v
	}
}

// writeRow appends row i: resource i % resources on day i / resources.
func (g *costGen) writeRow(i int) {
	clear(g.cells)
	r := i % g.resources
	day := time.Date(2024, 9, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, (i/g.resources)%30)
	sz := genSizes[r%len(genSizes)]
	sub := fmt.Sprintf("%08x-6a4e-4f0b-9c7d-1e2f3a4b5c%02x", 0x3f2b8c1d+r%12, r%12)
	team := billtest.Teams[r%len(billtest.Teams)]
	rg := "rg-" + team
	vm := fmt.Sprintf("gpu-%s-%04d", strings.ToLower(sz.meter[:4]), r)
	qty := strconv.Itoa(24 - r%5)
	cost := mulText(sz.price, qty)
	date := day.Format("01/02/2006")
	if g.mca {
		date = day.Format("2006-01-02")
	}
	for _, kv := range [][2]string{
		{"InvoiceSectionName", "AI Platform"}, {"AccountName", "ML Engineering"}, {"AccountOwnerId", "ml-owner@contoso.com"},
		{"SubscriptionId", sub}, {"SubscriptionName", "sub-" + team}, {"ResourceGroup", rg}, {"resourceGroupName", rg},
		{"ResourceLocation", "EastUS"}, {"location", "US East"}, {"Date", date},
		{"ProductName", "Virtual Machines " + sz.series + " - " + sz.meter + " - US East"},
		{"MeterCategory", "Virtual Machines"}, {"MeterSubCategory", sz.series}, {"MeterId", fmt.Sprintf("5e7d1c2b-%04x-4a3b-8c2d-1e0f9a8b7c6d", r%len(genSizes))},
		{"MeterName", sz.meter}, {"MeterRegion", "US East"}, {"UnitOfMeasure", "1 Hour"}, {"Quantity", qty},
		{"EffectivePrice", sz.price}, {"CostInBillingCurrency", cost}, {"CostCenter", "CC-4100"}, {"ConsumedService", "Microsoft.Compute"},
		{"ResourceId", "/subscriptions/" + sub + "/resourceGroups/" + rg + "/providers/Microsoft.Compute/virtualMachines/" + vm},
		{"Tags", `"team": "` + team + `","project": "proj-` + strconv.Itoa(r%40) + `","env": "prod"`},
		{"OfferId", "MS-AZR-0017P"},
		{"AdditionalInfo", `{"UsageType":"ComputeHR","ImageType":"Canonical","ServiceType":"` + sz.size +
			`","VMName":"","VMProperties":"Microsoft.Compute/virtualMachines","VCPUs":` + strconv.Itoa(sz.vcpus) + `,"CPUs":0}`},
		{"ResourceName", vm}, {"UnitPrice", sz.price}, {"PublisherType", "Azure"}, {"PublisherName", "Microsoft"},
		{"ChargeType", "Usage"}, {"Frequency", "UsageBased"}, {"PricingModel", "OnDemand"}, {"BillingAccountId", "8611537"},
		{"BillingAccountName", "Contoso"}, {"BillingCurrencyCode", "USD"}, {"BillingPeriodStartDate", "09/01/2024"},
		{"BillingPeriodEndDate", "09/30/2024"}, {"BillingProfileId", "8611537"}, {"BillingProfileName", "Contoso"},
		{"InvoiceSectionId", "412873"}, {"IsAzureCreditEligible", "True"}, {"PartNumber", "AAH-" + strconv.Itoa(r%len(genSizes))},
		{"PayGPrice", sz.price}, {"ServiceFamily", "Compute"}, {"AccountId", "231908"}, {"ResourceLocationNormalized", "East US"},
	} {
		g.set(kv[0], kv[1])
	}
	if g.mca {
		g.mcaCells(sz.price, qty, cost)
	}
	g.variant(r, sz.meter)
	g.appendCSV()
}

// mcaCells fills the columns only MCA files have.
func (g *costGen) mcaCells(price, qty, cost string) {
	for _, kv := range [][2]string{
		{"billingProfileId", "ABCD-EF12-GH3-IJK4"}, {"billingCurrency", "USD"}, {"pricingCurrency", "USD"},
		{"costInPricingCurrency", cost}, {"costInUsd", cost}, {"paygCostInBillingCurrency", mulText(price, qty)},
		{"paygCostInUsd", mulText(price, qty)}, {"exchangeRatePricingToBilling", "1"}, {"exchangeRateDate", "2024-09-01"},
		{"ProductId", "DZH318Z0BQ4F"}, {"provider", "Azure"},
	} {
		g.set(kv[0], kv[1])
	}
}

// variant turns some rows into spot, reservation-covered, savings plan-covered and disk rows.
func (g *costGen) variant(r int, meter string) {
	switch r % 20 {
	case 14:
		g.set("MeterName", meter+" Spot")
		g.set("PricingModel", "Spot")
		g.set("CostInBillingCurrency", "9.8318")
	case 15:
		g.set("PricingModel", "Reservation")
		g.set("CostInBillingCurrency", "0")
		g.set("EffectivePrice", "0")
		g.set("benefitId", "/providers/Microsoft.Capacity/reservationOrders/7f3a9c2e-1b4d-4e8a-9c6f-2d5e8b1a4c7f/reservations/c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f")
		g.set("benefitName", "gpu-1y")
	case 16:
		g.set("PricingModel", "SavingsPlan")
		g.set("CostInBillingCurrency", "0")
		g.set("benefitId", "/providers/Microsoft.BillingBenefits/savingsPlanOrders/5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9/savingsPlans/0a9b8c7d-6e5f-4a3b-2c1d-0e9f8a7b6c5d")
	case 17:
		g.set("MeterCategory", "Storage")
		g.set("MeterSubCategory", "Premium SSD Managed Disks")
		g.set("MeterName", "P30 LRS Disk")
		g.set("UnitOfMeasure", "1/Month")
		g.set("Quantity", "0.0333333333")
		g.set("CostInBillingCurrency", "4.505666662")
		g.set("AdditionalInfo", "")
		g.set("ResourceId", g.cells[g.index["resourceid"]]+"_OsDisk_1")
	}
}

// mulText returns a × b for two decimal strings, as a decimal string.
func mulText(a, b string) string {
	x, _ := strconv.ParseFloat(a, 64)
	y, _ := strconv.ParseFloat(b, 64)
	return strconv.FormatFloat(x*y, 'f', -1, 64)
}

// appendCSV writes the cells as one CSV record, quoting those that need it.
func (g *costGen) appendCSV() {
	for j, c := range g.cells {
		if j > 0 {
			g.buf = append(g.buf, ',')
		}
		if !strings.ContainsAny(c, ",\"\n") {
			g.buf = append(g.buf, c...)
			continue
		}
		g.buf = append(g.buf, '"')
		g.buf = append(g.buf, strings.ReplaceAll(c, `"`, `""`)...)
		g.buf = append(g.buf, '"')
	}
	g.buf = append(g.buf, '\n')
}
