package gcp

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

// byLine indexes lines by their source line.
func byLine(lines []gpucost.CostLine) map[int]gpucost.CostLine {
	m := map[int]gpucost.CostLine{}
	for _, c := range lines {
		m[c.Line] = c
	}
	return m
}

// TestReadMappings checks the FOCUS reading of each kind of row in the detailed JSON export.
func TestReadMappings(t *testing.T) {
	lines, _ := readAll(t, "testdata/detailed_export.jsonl")
	rows := byLine(lines)
	const cudFlex = "subscriptions/1fd3b130-40f8-4a79-ac6f-5753aaa0ceeb"
	tests := []struct {
		name                                string
		line                                int
		category, class, frequency, pricing string
		commitment, status, ccat            string
		instance, billed, list, contracted  string
		consumed                            float64
	}{
		{"A100 on demand", 1, "Usage", "", "Usage-Based", "Standard", "", "", "", "a2-highgpu-1g", "2.93391", "2.93391", "2.93391", 3600},
		{"cores netted to zero by a resource-based CUD credit", 2, "Usage", "", "Usage-Based", "Committed", "Committed Usage Discount: A2 Cpu", "Used", "Usage", "a2-highgpu-1g", "0", "0.379332", "0.379332", 43200},
		{"resource-based commitment fee", 4, "Purchase", "", "Recurring", "Committed", "subscriptions/5f1d2c3b-8a9e-4b7c-9d0e-1f2a3b4c5d6e", "", "Usage", "", "0.238981", "0.238981", "0.238981", 0},
		{"Spot A100", 5, "Usage", "", "Usage-Based", "Dynamic", "", "", "", "a2-highgpu-1g", "1.4341", "2.93391", "1.4341", 3600},
		{"L4 with a legacy spend-based CUD credit", 6, "Usage", "", "Usage-Based", "Committed", "8d6e0c45-2b5a-4f1e-9c3d-7a8b9c0d1e2f", "Used", "Spend", "g2-standard-8", "0.403229", "0.56004", "0.56004", 3600},
		{"T4 with a sustained use discount stays Standard", 7, "Usage", "", "Usage-Based", "Standard", "", "", "", "n1-standard-8", "0.28", "0.35", "0.35", 3600},
		{"preemptible T4", 8, "Usage", "", "Usage-Based", "Dynamic", "", "", "", "n1-standard-8", "0.0875", "0.18375", "0.0875", 1800},
		{"eight H100s", 9, "Usage", "", "Usage-Based", "Standard", "", "", "", "a3-highgpu-8g", "33.60609", "33.60609", "33.60609", 28800},
		{"two credits on one row", 13, "Usage", "", "Usage-Based", "Standard", "", "", "", "", "0.625", "6.25", "6.25", 1099511627776},
		{"tax", 14, "Tax", "", "Recurring", "", "", "", "", "", "12.34", "0", "12.34", 0},
		{"goodwill is an adjustment, not a correction", 15, "Adjustment", "", "One-Time", "", "", "", "", "", "-50", "0", "-50", 0},
		{"usage correction kept negative", 16, "Usage", "Correction", "Usage-Based", "Standard", "", "", "", "a2-highgpu-1g", "-2.93391", "-2.93391", "-2.93391", -3600},
		{"rounding error", 17, "Adjustment", "", "One-Time", "", "", "", "", "", "0.000001", "0", "0.000001", 0},
		{"usage priced by a flexible CUD's consumption model", 18, "Usage", "", "Usage-Based", "Committed", cudFlex, "Used", "Spend", "g2-standard-8", "0.403229", "0.56004", "0.403229", 3600},
		{"flexible CUD fee offset by FEE_UTILIZATION_OFFSET", 19, "Purchase", "", "Recurring", "Committed", cudFlex, "", "Spend", "", "0", "0.403229", "0.403229", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := rows[tt.line]
			if !ok {
				t.Fatalf("no line %d", tt.line)
			}
			got := []string{c.ChargeCategory, c.ChargeClass, c.ChargeFrequency, c.PricingCategory, c.CommitmentDiscountID,
				c.CommitmentDiscountStatus, c.CommitmentDiscountCategory, c.InstanceType, c.BilledCost.Decimal(),
				c.ListCost.Decimal(), c.ContractedCost.Decimal()}
			want := []string{tt.category, tt.class, tt.frequency, tt.pricing, tt.commitment, tt.status, tt.ccat,
				tt.instance, tt.billed, tt.list, tt.contracted}
			if !slices.Equal(got, want) {
				t.Errorf("line %d:\n got %q\nwant %q", tt.line, got, want)
			}
			if c.ConsumedQuantity != tt.consumed {
				t.Errorf("line %d ConsumedQuantity = %v, want %v", tt.line, c.ConsumedQuantity, tt.consumed)
			}
			if c.CommitmentDiscountID != "" && c.CommitmentDiscountType != "Committed Use Discount" {
				t.Errorf("line %d CommitmentDiscountType = %q", tt.line, c.CommitmentDiscountType)
			}
			if c.EffectiveCost != c.BilledCost {
				t.Errorf("line %d EffectiveCost %v != BilledCost %v", tt.line, c.EffectiveCost, c.BilledCost)
			}
		})
	}
}

// TestReadIdentity checks the identity, period, GPU and Extra columns of the first row.
func TestReadIdentity(t *testing.T) {
	lines, _ := readAll(t, "testdata/detailed_export.jsonl")
	c := lines[0]
	want := gpucost.CostLine{Provider: "Google Cloud", BillingAccountID: "01A2B3-C4D5E6-F7A8B9", SubAccountID: "ml-prod-4471",
		ResourceID:   "//compute.googleapis.com/projects/ml-prod-4471/zones/us-central1-a/instances/4917253315550087010",
		ResourceName: "train-a100-0", ResourceType: "compute.instances", ServiceName: "Compute Engine",
		RegionID: "us-central1", AvailabilityZone: "us-central1-a", SkuID: "039F-D0DA-4055",
		ChargeDescription: "Nvidia Tesla A100 GPU running in Americas", ConsumedUnit: "seconds", PricingUnit: "hour"}
	got := gpucost.CostLine{Provider: c.Provider, BillingAccountID: c.BillingAccountID, SubAccountID: c.SubAccountID,
		ResourceID: c.ResourceID, ResourceName: c.ResourceName, ResourceType: c.ResourceType, ServiceName: c.ServiceName,
		RegionID: c.RegionID, AvailabilityZone: c.AvailabilityZone, SkuID: c.SkuID, ChargeDescription: c.ChargeDescription,
		ConsumedUnit: c.ConsumedUnit, PricingUnit: c.PricingUnit}
	if billtest.Line(&got) != billtest.Line(&want) {
		t.Errorf("line 1 identity =\n%s\nwant\n%s", billtest.Line(&got), billtest.Line(&want))
	}
	start := time.Date(2025, 6, 3, 14, 0, 0, 0, time.UTC)
	pacific := time.Date(2025, 6, 1, 7, 0, 0, 0, time.UTC) // midnight in Los Angeles, PDT
	if !c.ChargePeriodStart.Equal(start) || !c.ChargePeriodEnd.Equal(start.Add(time.Hour)) || !c.BillingPeriodStart.Equal(pacific) {
		t.Errorf("line 1 periods = %v–%v, billing period %v", c.ChargePeriodStart, c.ChargePeriodEnd, c.BillingPeriodStart)
	}
	if c.Extra["x_ServiceId"] != "6F81-5844-456A" || c.Extra["x_CostType"] != "regular" || c.Extra["x_Location"] != "us-central1-a" {
		t.Errorf("line 1 Extra = %v", c.Extra)
	}
	if lines[6].Extra["x_CreditTypes"] != "SUSTAINED_USAGE_DISCOUNT" || lines[12].Extra["x_CreditTypes"] != "DISCOUNT,PROMOTION" {
		t.Errorf("x_CreditTypes = %q, %q", lines[6].Extra["x_CreditTypes"], lines[12].Extra["x_CreditTypes"])
	}
	if lines[11].RegionID != "us" || lines[11].ResourceType != "storage.buckets" {
		t.Errorf("multi-region storage line: RegionID %q ResourceType %q, want us and storage.buckets", lines[11].RegionID, lines[11].ResourceType)
	}
}

// TestTagPrecedence checks how a key present in several records resolves: the resource's labels,
// then its own tags, then the project's labels, then inherited tags; system labels are kept too.
func TestTagPrecedence(t *testing.T) {
	lines, _ := readAll(t, "testdata/detailed_export.jsonl")
	tests := []struct {
		line int
		want map[string]string
	}{
		{1, map[string]string{"team": "ml-research", "cost-center": "cc-1234", "env": "staging", machineSpec: "a2-highgpu-1g"}},
		{11, map[string]string{"team": "vision-tag", "env": "staging", "k8s-namespace": "research"}},
		{7, map[string]string{"team": "vision", "owner": "r&d"}}, // BigQuery writes & as \u0026
		{17, nil},
	}
	for _, tt := range tests {
		tags := lines[tt.line-1].Tags
		for k, v := range tt.want {
			if tags[k] != v {
				t.Errorf("line %d tag %q = %q, want %q (tags %v)", tt.line, k, tags[k], v, tags)
			}
		}
		if tt.want == nil && tags != nil {
			t.Errorf("line %d Tags = %v, want none", tt.line, tags)
		}
	}
}

// TestFormsAgree reads the same rows from the JSON export and the underscore-named CSV (RFC 3339
// times, labels as a JSON object, adjustment_info as JSON text, columns in another order): the
// lines must be the same.
func TestFormsAgree(t *testing.T) {
	jsonLines, _ := readAll(t, "testdata/detailed_export.jsonl")
	csvLines, _ := readAll(t, "testdata/detailed_export_underscore.csv")
	picked := []int{0, 2, 3, 4, 8, 10, 14, 15, 17, 18} // the rows the CSV holds
	if len(csvLines) != len(picked) {
		t.Fatalf("CSV has %d lines, want %d", len(csvLines), len(picked))
	}
	for i, j := range picked {
		a, b := jsonLines[j], csvLines[i]
		a.Line, b.Line = 0, 0
		if ra, rb := billtest.Line(&a), billtest.Line(&b); ra != rb {
			t.Errorf("row %d differs:\n json %s\n  csv %s", j+1, ra, rb)
		}
	}
}

func TestDetect(t *testing.T) {
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b[:min(len(b), 4096)]
	}
	tests := []struct {
		name string
		head []byte
		want bool
	}{
		{"ndjson", read("testdata/detailed_export.jsonl"), true},
		{"csv dotted", read("testdata/standard_export_eur.csv"), true},
		{"csv underscore", read("testdata/detailed_export_underscore.csv"), true},
		{"json array", read("testdata/bq_query.json"), true},
		{"gzip csv prefix", billtest.Gzip(t, read("testdata/standard_export_eur.csv"))[:300], true},
		{"FOCUS", []byte("BilledCost,BillingAccountId,ChargePeriodStart,EffectiveCost\n"), false},
		{"AWS CUR", []byte("line_item_line_item_type,line_item_unblended_cost,line_item_usage_start_date\n"), false},
		{"Azure", []byte("\ufeffDate,Cost,MeterCategory,ResourceId,Tags\n"), false},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		if got := Detect(tt.head); got != tt.want {
			t.Errorf("Detect(%s) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestReadGzip(t *testing.T) {
	for _, name := range []string{"detailed_export.jsonl", "standard_export_eur.csv"} {
		plain, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := readBytes(plain, name)
		if err != nil {
			t.Fatal(err)
		}
		got, st, err := readBytes(billtest.Gzip(t, plain), name+".gz")
		if err != nil || !strings.HasSuffix(st.Format, ".gz") || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("Read(gzip %s) = %d lines, format %q, %v; want the %d lines of the plain file", name, len(got), st.Format, err, len(want))
		}
	}
}

// readBytes reads b with Read and returns the rendered lines.
func readBytes(b []byte, name string) ([]string, Stats, error) {
	return billtest.Lines(func(emit func(*gpucost.CostLine) error) (Stats, error) { return Read(bytes.NewReader(b), name, emit) })
}

func TestResourceType(t *testing.T) {
	tests := map[string]string{
		"//compute.googleapis.com/projects/p/zones/us-central1-a/instances/123":            "compute.instances",
		"//compute.googleapis.com/projects/p/regions/us-central1/commitments/9":            "compute.commitments",
		"//storage.googleapis.com/projects/_/buckets/b":                                    "storage.buckets",
		"//container.googleapis.com/projects/p/locations/us-central1/clusters/c/k8s/nodes": "container.clusters",
		"//compute.googleapis.com/projects/p/global/images/i":                              "compute.images",
		"train-a100-0": "",
		"":             "",
	}
	for in, want := range tests {
		if got := resourceType(in); got != want {
			t.Errorf("resourceType(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInvoiceMonth(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
		ok   bool
	}{
		{"202506", time.Date(2025, 6, 1, 7, 0, 0, 0, time.UTC), true},  // PDT
		{"202501", time.Date(2025, 1, 1, 8, 0, 0, 0, time.UTC), true},  // PST
		{"202503", time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC), true},  // before the second Sunday
		{"202411", time.Date(2024, 11, 1, 7, 0, 0, 0, time.UTC), true}, // before the first Sunday, 2 a.m.
		{"2025-12", time.Date(2025, 12, 1, 8, 0, 0, 0, time.UTC), true},
		{"200604", time.Date(2006, 4, 1, 8, 0, 0, 0, time.UTC), true}, // the rule before 2007
		{"202513", time.Time{}, false},
		{"June", time.Time{}, false},
	}
	la, err := time.LoadLocation("America/Los_Angeles")
	for _, tt := range tests {
		got, ok := invoiceMonth(tt.in)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("invoiceMonth(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
		if ok && err == nil { // cross-check with the zone database where the machine has one
			if y, m := got.In(la).Year(), got.In(la).Month(); got.In(la).Day() != 1 || got.In(la).Hour() != 0 || y != tt.want.Year() || m != tt.want.Month() {
				t.Errorf("invoiceMonth(%q) = %v, not midnight of the 1st in Los Angeles", tt.in, got.In(la))
			}
		}
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2025, 6, 3, 14, 0, 0, 0, time.UTC)
	for _, in := range []string{"2025-06-03 14:00:00 UTC", "2025-06-03T14:00:00Z", "2025-06-03 14:00:00", "2025-06-03T07:00:00-07:00",
		"2025-06-03T16:00:00+0200", "1748959200", "1.7489592E9", "2025-06-03 14:00:00.000000 UTC"} {
		if got, ok := parseTime([]byte(in)); !ok || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", in, got, ok, want)
		}
	}
	for _, in := range []string{"2025-06-31 14:00:00 UTC", "2025-06-03 25:00:00 UTC", "yesterday", "2025-06-03 14:00:00 PST", "1e300"} {
		if got, ok := parseTime([]byte(in)); ok {
			t.Errorf("parseTime(%q) = %v, want an error", in, got)
		}
	}
}

// TestColumnNames checks that every field is found by its dotted and its underscore name, and
// that no underscore name stands for two fields.
func TestColumnNames(t *testing.T) {
	seen := map[string]string{}
	for f := field(0); f < numFields; f++ {
		dotted := fieldNames[f]
		under := strings.ReplaceAll(dotted, ".", "_")
		for _, name := range []string{dotted, under, strings.ToUpper(under), " " + dotted + " "} {
			if n, _ := columnNode(name); n == nil || n.field != f || n.kind == kRecord {
				t.Errorf("column %q does not name %s", name, dotted)
			}
		}
		if other, dup := seen[under]; dup {
			t.Errorf("%q names both %s and %s", under, other, dotted)
		}
		seen[under] = dotted
	}
}
