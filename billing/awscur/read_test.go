package awscur

import (
	"flag"
	"fmt"
	"math/big"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtures are the CUR files in testdata, built from the AWS table dictionary: a CUR 2.0 export
// of GPU usage (on-demand, spot, RI and Savings Plan covered, fees, tax, credit, refund, EDP
// discount), a legacy CUR, and a CUR 2.0 with negotiated-discount columns and two currencies.
var fixtures = []string{"cur2_sample.csv", "legacy_cur.csv", "cur2_net_eur.csv"}

// readAll reads a file and returns copies of its lines.
func readAll(t testing.TB, path string) ([]gpucost.CostLine, Stats) {
	t.Helper()
	return billtest.Collect(t, path, func(emit func(*gpucost.CostLine) error) (Stats, error) { return ReadFile(path, emit) })
}

func TestReadGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			lines, st := readAll(t, filepath.Join("testdata", name))
			var b strings.Builder
			for i := range lines {
				b.WriteString(billtest.Line(&lines[i]) + "\n")
			}
			fmt.Fprintf(&b, "# dialect=%s format=%s rows=%d unknown=%v\n", st.Version, st.Format, st.Rows, st.Unknown)
			for _, cur := range st.Currencies() {
				tot := st.Totals[cur]
				fmt.Fprintf(&b, "# %s billed=%s effective=%s list=%s unblended=%s rows=%d\n", cur,
					tot.BilledCost.Decimal(), tot.EffectiveCost.Decimal(), tot.ListCost.Decimal(), tot.Source.Decimal(), tot.Rows)
			}
			billtest.Golden(t, filepath.Join("testdata", strings.TrimSuffix(name, ".csv")+".golden"), b.String(), *update)
		})
	}
}

// canonicalName writes the legacy names of the fixtures as CUR 2.0 names, by hand.
func canonicalName(h string) string {
	legacy := map[string]string{
		"lineItem/LineItemType": "line_item_line_item_type", "lineItem/UnblendedCost": "line_item_unblended_cost",
		"lineItem/CurrencyCode": "line_item_currency_code", "pricing/publicOnDemandCost": "pricing_public_on_demand_cost",
		"reservation/EffectiveCost": "reservation_effective_cost", "savingsPlan/SavingsPlanEffectiveCost": "savings_plan_savings_plan_effective_cost",
	}
	if c, ok := legacy[h]; ok {
		return c
	}
	return h
}

// expectedCosts applies the FOCUS rules to a raw row independently of the reader: BilledCost is
// net unblended where given, else unblended; EffectiveCost per the FinOps Foundation converter.
func expectedCosts(t testing.TB, row map[string]string) (billed, effective, list *big.Rat) {
	net := row["line_item_net_unblended_cost"] != ""
	billed = billtest.Rat(t, row["line_item_unblended_cost"])
	if net {
		billed = billtest.Rat(t, row["line_item_net_unblended_cost"])
	}
	either := func(gross, netCol string) *big.Rat {
		if net && row[netCol] != "" {
			return billtest.Rat(t, row[netCol])
		}
		return billtest.Rat(t, row[gross])
	}
	switch row["line_item_line_item_type"] {
	case "SavingsPlanCoveredUsage":
		effective = either("savings_plan_savings_plan_effective_cost", "savings_plan_net_savings_plan_effective_cost")
	case "SavingsPlanRecurringFee":
		effective = new(big.Rat).Sub(billtest.Rat(t, row["savings_plan_total_commitment_to_date"]), billtest.Rat(t, row["savings_plan_used_commitment"]))
	case "SavingsPlanNegation", "SavingsPlanUpfrontFee":
		effective = new(big.Rat)
	case "DiscountedUsage":
		effective = either("reservation_effective_cost", "reservation_net_effective_cost")
	case "RIFee":
		effective = new(big.Rat).Add(
			either("reservation_unused_amortized_upfront_fee_for_billing_period", "reservation_net_unused_amortized_upfront_fee_for_billing_period"),
			either("reservation_unused_recurring_fee", "reservation_net_unused_recurring_fee"))
	case "Fee":
		effective = billed
		if row["reservation_reservation_a_r_n"] != "" {
			effective = new(big.Rat)
		}
	default:
		effective = billed
	}
	return billed, effective, billtest.Rat(t, row["pricing_public_on_demand_cost"])
}

// TestReadExactSums checks every line's amounts and the per-currency totals against sums computed
// here from the raw cells with math/big.
func TestReadExactSums(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", name)
			lines, st := readAll(t, path)
			rows := billtest.RawRows(t, path, canonicalName)
			if len(lines) != len(rows) || st.Rows != len(rows) {
				t.Fatalf("read %d lines (Stats.Rows %d), want %d", len(lines), st.Rows, len(rows))
			}
			type tot struct{ billed, effective, list, unblended, rows int64 }
			want := map[string]*tot{}
			for i, row := range rows {
				billed, effective, list := expectedCosts(t, row)
				c := &lines[i]
				cur := row["line_item_currency_code"]
				check := func(what string, got gpucost.Money, r *big.Rat) {
					if got.Nanos != billtest.Nanos(r) || got.Currency != cur {
						t.Errorf("line %d %s = %v (%d nanos), want %s %s", c.Line, what, got, got.Nanos, cur, r.FloatString(10))
					}
				}
				check("BilledCost", c.BilledCost, billed)
				check("EffectiveCost", c.EffectiveCost, effective)
				check("ListCost", c.ListCost, list)
				w := want[cur]
				if w == nil {
					w = &tot{}
					want[cur] = w
				}
				w.billed += billtest.Nanos(billed)
				w.effective += billtest.Nanos(effective)
				w.list += billtest.Nanos(list)
				w.unblended += billtest.Nanos(billtest.Rat(t, row["line_item_unblended_cost"]))
				w.rows++
			}
			if len(st.Totals) != len(want) {
				t.Errorf("Stats.Totals has currencies %v, want %d", st.Currencies(), len(want))
			}
			for cur, w := range want {
				got := st.Totals[cur]
				if got.BilledCost.Nanos != w.billed || got.EffectiveCost.Nanos != w.effective || got.ListCost.Nanos != w.list ||
					got.Source.Nanos != w.unblended || int64(got.Rows) != w.rows || got.BilledCost.Currency != cur {
					t.Errorf("Stats.Totals[%s] = %+v, want billed %d effective %d list %d unblended %d rows %d",
						cur, got, w.billed, w.effective, w.list, w.unblended, w.rows)
				}
			}
		})
	}
}

// TestReadMappings checks the FOCUS reading of each kind of line in the CUR 2.0 sample.
func TestReadMappings(t *testing.T) {
	lines, st := readAll(t, "testdata/cur2_sample.csv")
	byLine := map[int]gpucost.CostLine{}
	for _, c := range lines {
		byLine[c.Line] = c
	}
	const sp = "arn:aws:savingsplans::111122223333:savingsplan/0b8e5c4d-7a21-4f3e-8d6c-2a9b1c0d3e4f"
	const ri = "arn:aws:ec2:us-east-1:444455556666:reserved-instances/6f2c1a7e-3b1d-4a8e-9c55-1f0e2d3c4b5a"
	tests := []struct {
		name                                string
		line                                int
		category, frequency, pricing        string
		commitment, status, ctype, ccat     string
		instance, service, resourceType     string
		billed, effective, list, contracted string
		consumed                            float64
	}{
		{"on-demand p4d", 2, "Usage", "Usage-Based", "Standard", "", "", "", "", "p4d.24xlarge", "Amazon Elastic Compute Cloud", "instance", "32.7726", "32.7726", "32.7726", "32.7726", 1},
		{"spot by usage type, no instance type column", 5, "Usage", "Usage-Based", "Dynamic", "", "", "", "", "p4d.24xlarge", "Amazon Elastic Compute Cloud", "instance", "9.8318", "9.8318", "32.7726", "9.8318", 1},
		{"spot by market option", 6, "Usage", "Usage-Based", "Dynamic", "", "", "", "", "g5.2xlarge", "Amazon Elastic Compute Cloud", "instance", "0.4421", "0.4421", "1.212", "0.4421", 1},
		{"RI covered usage", 7, "Usage", "Usage-Based", "Committed", ri, "Used", "Reserved Instance", "Usage", "g5.12xlarge", "Amazon Elastic Compute Cloud", "instance", "0", "3.204", "5.672", "5.672", 1},
		{"RI fee carries the unused part", 8, "Purchase", "Recurring", "Committed", ri, "Unused", "Reserved Instance", "Usage", "g5.12xlarge", "Amazon Elastic Compute Cloud", "", "2306.88", "12.816", "0", "2306.88", 0},
		{"SP covered usage", 9, "Usage", "Usage-Based", "Committed", sp, "Used", "Savings Plan", "Spend", "p5.48xlarge", "Amazon Elastic Compute Cloud", "instance", "98.32", "63.908", "98.32", "98.32", 1},
		{"SP negation", 10, "Usage", "Usage-Based", "Committed", sp, "Used", "Savings Plan", "Spend", "p5.48xlarge", "Amazon Elastic Compute Cloud", "instance", "-98.32", "0", "0", "0", 0},
		{"SP recurring fee", 11, "Purchase", "Recurring", "Committed", sp, "Unused", "Savings Plan", "Spend", "", "Savings Plans for AWS Compute usage", "savingsplan", "70", "6.092", "0", "70", 0},
		{"SP upfront fee", 12, "Purchase", "One-Time", "Committed", sp, "", "Savings Plan", "Spend", "", "Savings Plans for AWS Compute usage", "savingsplan", "100000", "0", "0", "100000", 0},
		{"RI upfront fee", 13, "Purchase", "One-Time", "Committed", ri, "", "Reserved Instance", "Usage", "", "Amazon Elastic Compute Cloud", "", "15000", "0", "0", "15000", 0},
		{"tax", 14, "Tax", "Recurring", "", "", "", "", "", "", "Amazon Elastic Compute Cloud", "", "245.67", "245.67", "0", "245.67", 0},
		{"credit kept negative", 15, "Credit", "One-Time", "Other", "", "", "", "", "", "Amazon Elastic Compute Cloud", "", "-500", "-500", "0", "-500", 0},
		{"refund kept negative", 16, "Adjustment", "One-Time", "Other", "", "", "", "", "", "Amazon Elastic Compute Cloud", "", "-12.5", "-12.5", "0", "-12.5", 0},
		{"EDP discount", 17, "Usage", "Usage-Based", "Other", "", "", "", "", "p4d.24xlarge", "Amazon Elastic Compute Cloud", "instance", "-3.27726", "-3.27726", "0", "-3.27726", 0},
		{"decimals past the ninth", 18, "Usage", "Usage-Based", "Standard", "", "", "", "", "", "Amazon Simple Storage Service", "", "0.000000123", "0.000000123", "0.000000123", "0.000000123", 0.0000053676864},
		{"SageMaker training", 19, "Usage", "Usage-Based", "Standard", "", "", "", "", "ml.p4d.24xlarge", "Amazon SageMaker", "training-job", "37.688", "37.688", "37.688", "37.688", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := byLine[tt.line]
			if !ok {
				t.Fatalf("no line %d", tt.line)
			}
			got := []string{c.ChargeCategory, c.ChargeFrequency, c.PricingCategory, c.CommitmentDiscountID,
				c.CommitmentDiscountStatus, c.CommitmentDiscountType, c.CommitmentDiscountCategory, c.InstanceType,
				c.ServiceName, c.ResourceType, c.BilledCost.Decimal(), c.EffectiveCost.Decimal(), c.ListCost.Decimal(),
				c.ContractedCost.Decimal()}
			want := []string{tt.category, tt.frequency, tt.pricing, tt.commitment, tt.status, tt.ctype, tt.ccat,
				tt.instance, tt.service, tt.resourceType, tt.billed, tt.effective, tt.list, tt.contracted}
			if !slices.Equal(got, want) {
				t.Errorf("line %d:\n got %q\nwant %q", tt.line, got, want)
			}
			if c.ConsumedQuantity != tt.consumed {
				t.Errorf("line %d ConsumedQuantity = %v, want %v", tt.line, c.ConsumedQuantity, tt.consumed)
			}
		})
	}

	if !slices.Equal(st.Unknown, []string{"x_finance_alias"}) {
		t.Errorf("Stats.Unknown = %v, want [x_finance_alias] reported once", st.Unknown)
	}
	if st.Types["Usage"] != 10 || st.Types["SavingsPlanNegation"] != 1 || st.Version != DialectCUR2 || st.Format != "csv" {
		t.Errorf("Stats = %+v", st)
	}
}

// TestReadIdentity checks the identity, period, tag and extra columns of the CUR 2.0 sample.
func TestReadIdentity(t *testing.T) {
	lines, _ := readAll(t, "testdata/cur2_sample.csv")
	byLine := map[int]gpucost.CostLine{}
	for _, c := range lines {
		byLine[c.Line] = c
	}
	first := byLine[2]
	wantFirst := gpucost.CostLine{Provider: "AWS", BillingAccountID: "111122223333", SubAccountID: "444455556666",
		RegionID: "us-east-1", AvailabilityZone: "us-east-1a", SkuID: "XJ8YT9Q4WCRPXK2Z",
		SkuPriceID: "XJ8YT9Q4WCRPXK2Z.JRTCKXETXF.6YS6EN2CT7", ResourceID: "i-0a1b2c3d4e5f60001",
		ConsumedUnit: "Hrs", PricingUnit: "Hrs", PricingQuantity: 1}
	if first.Provider != wantFirst.Provider || first.BillingAccountID != wantFirst.BillingAccountID ||
		first.SubAccountID != wantFirst.SubAccountID || first.RegionID != wantFirst.RegionID ||
		first.AvailabilityZone != wantFirst.AvailabilityZone || first.SkuID != wantFirst.SkuID ||
		first.SkuPriceID != wantFirst.SkuPriceID || first.ResourceID != wantFirst.ResourceID ||
		first.ConsumedUnit != wantFirst.ConsumedUnit || first.PricingUnit != wantFirst.PricingUnit ||
		first.PricingQuantity != wantFirst.PricingQuantity {
		t.Errorf("line 2 = %+v, want the identity columns of %+v", first, wantFirst)
	}
	if want := time.Date(2025, 6, 3, 14, 0, 0, 0, time.UTC); !first.ChargePeriodStart.Equal(want) ||
		!first.ChargePeriodEnd.Equal(want.Add(time.Hour)) || !first.BillingPeriodStart.Equal(time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("line 2 periods = %v–%v (billing %v)", first.ChargePeriodStart, first.ChargePeriodEnd, first.BillingPeriodStart)
	}
	wantTags := gpucost.Labels{"user_team": "ml-research", "user_project": "llm-pretrain", "costCategory/Team": "Research"}
	if first.Tags.String() != wantTags.String() {
		t.Errorf("line 2 Tags = %v, want %v (keys as AWS wrote them)", first.Tags, wantTags)
	}
	if got := byLine[22].Tags["user_Name"]; got != `datasets "scratch" — café` {
		t.Errorf("line 22 tag user_Name = %q, want the JSON-escaped value decoded", got)
	}
	if got := byLine[21].Tags; got != nil {
		t.Errorf("untagged line 21 Tags = %v, want nil", got)
	}
	if got := first.Extra; got["x_UsageType"] != "USE1-BoxUsage:p4d.24xlarge" || got["x_Operation"] != "RunInstances" || got["x_ServiceCode"] != "AmazonEC2" {
		t.Errorf("line 2 Extra = %v, want x_UsageType, x_Operation and x_ServiceCode", got)
	}
}

// TestReadLegacy checks that legacy CUR names read like CUR 2.0 ones and tag keys keep their form.
func TestReadLegacy(t *testing.T) {
	lines, st := readAll(t, "testdata/legacy_cur.csv")
	if st.Version != DialectLegacy || len(lines) != 4 {
		t.Fatalf("Stats = %+v, %d lines; want legacy CUR, 4 lines", st, len(lines))
	}
	want := gpucost.Labels{"user:team": "vision", "user:Project": "Detector", "costCategory/Team": "Research"}
	if lines[0].Tags.String() != want.String() {
		t.Errorf("legacy Tags = %v, want %v", lines[0].Tags, want)
	}
	if lines[1].PricingCategory != "Dynamic" || lines[1].InstanceType != "g4dn.12xlarge" {
		t.Errorf("legacy spot line = %s %s, want Dynamic g4dn.12xlarge", lines[1].PricingCategory, lines[1].InstanceType)
	}
	if lines[2].EffectiveCost.Decimal() != "0.331" || lines[3].EffectiveCost.Decimal() != "0.3419" {
		t.Errorf("legacy effective costs = %s, %s; want 0.331 (RI), 0.3419 (SP)", lines[2].EffectiveCost.Decimal(), lines[3].EffectiveCost.Decimal())
	}
}

// TestLineReused documents that emit gets the same *CostLine each time.
func TestLineReused(t *testing.T) {
	billtest.LineReused(t, func(emit func(*gpucost.CostLine) error) error {
		_, err := ReadFile("testdata/cur2_sample.csv", emit)
		return err
	})
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		cols    []string
		dialect string
		ok      bool
	}{
		{"CUR 2.0", []string{"line_item_line_item_type", "line_item_unblended_cost", "resource_tags"}, DialectCUR2, true},
		{"legacy", []string{"lineItem/LineItemType", "lineItem/UnblendedCost"}, DialectLegacy, true},
		{"FOCUS", []string{"BilledCost", "EffectiveCost", "ChargeCategory"}, "", false},
	}
	for _, tt := range tests {
		d, ok := Detect(tt.cols)
		if d != tt.dialect || ok != tt.ok {
			t.Errorf("Detect(%s) = %q, %v; want %q, %v", tt.name, d, ok, tt.dialect, tt.ok)
		}
	}
}
