package focus

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

const (
	goodHead = "BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodEnd,ChargePeriodStart,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,Tags\n"
	goodRow  = "1.5,1,USD,2024-09-01T00:00:00Z,Usage,,d,2024-09-01T01:00:00Z,2024-09-01T00:00:00Z,0,1.5,1.5,1,h,AWS,Compute,EC2,\n"
)

// row returns goodRow with column i set to v.
func row(i int, v string) string {
	f := strings.Split(strings.TrimSuffix(goodRow, "\n"), ",")
	f[i] = v
	return strings.Join(f, ",") + "\n"
}

func TestBadInput(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string // in the message, in this order
	}{
		{"missing columns", "BilledCost,ProviderName,ServiceName,SkuMeter,Tags\n1,AWS,EC2,m,\n",
			[]string{"bill.csv", "lacks FOCUS mandatory columns BillingAccountId, BillingCurrency, BillingPeriodStart, ChargeCategory, ChargeClass, ChargeDescription, ChargePeriodEnd, ChargePeriodStart, ContractedCost, EffectiveCost, ListCost, PricingQuantity, PricingUnit, ServiceCategory", "FOCUS 1.1, from SkuMeter", "export the bill again"}},
		{"bad decimal", goodHead + goodRow + row(0, "1,5"), []string{"bill.csv:3:"}}, // "1,5" splits into two fields
		{"bad decimal value", goodHead + goodRow + goodRow + row(11, `"12.5 USD"`), []string{`bill.csv:4: column 12 (ListCost): "12.5 USD" is not a decimal number`, "fix the value", "or import with --lenient, which reads it as 12.5"}},
		{"exponent out of range", goodHead + row(0, "1e400"), []string{`bill.csv:2: column 1 (BilledCost): "1e400" is not a decimal`}},
		{"bad date", goodHead + row(8, "2024-09-31T00:00:00Z"), []string{`bill.csv:2: column 9 (ChargePeriodStart): "2024-09-31T00:00:00Z" is not an ISO 8601 date`}},
		{"bad date form", goodHead + row(3, "09/01/2024"), []string{`bill.csv:2: column 4 (BillingPeriodStart): "09/01/2024" is not an ISO 8601`, "is ambiguous"}},
		{"bad quantity", goodHead + row(12, "lots"), []string{`bill.csv:2: column 13 (PricingQuantity): "lots" is not a number`}},
		{"bad tags", goodHead + row(17, `"{""team"": }"`), []string{`bill.csv:2: column 18 (Tags): "{\"team\": }" is not a JSON object`}},
		{"null billed cost", goodHead + row(0, "NULL"), []string{"bill.csv:2: column 1 (BilledCost) is null (empty or NULL); FOCUS requires it in every row"}},
		{"null currency", goodHead + row(2, ""), []string{"bill.csv:2: column 3 (BillingCurrency) is null"}},
		{"null in lower case", goodHead + row(0, "null"), []string{"bill.csv:2: column 1 (BilledCost) is null (empty or NULL)"}},
		{"dollar amount", goodHead + row(0, `"$10,000.00"`), []string{`bill.csv:2: column 1 (BilledCost): "$10,000.00" is not a decimal number`, "import with --lenient, which reads it as 10000.00"}},
		{"non-ISO date", goodHead + row(8, "2024/09/01 00:00:00"), []string{`bill.csv:2: column 9 (ChargePeriodStart): "2024/09/01 00:00:00" is not an ISO 8601`, "import with --lenient, which reads it as 2024-09-01T00:00:00Z"}},
		{"short row", goodHead + "1,2,3\n", []string{"bill.csv:2: the row has 3 fields and the header 18"}},
		{"open quote", goodHead + row(6, `"never closed`), []string{"bill.csv:2: column 7 (ChargeDescription): a quoted field is not closed before the end of the file"}},
		{"stray quote", goodHead + row(6, `"a"b"`), []string{"bill.csv:2: column 7 (ChargeDescription): ", `must be doubled ("")`}},
		{"repeated column", "BilledCost,billedcost\n", []string{`column "billedcost" appears twice`}},
		{"empty file", "", []string{"bill.csv is empty"}},
		{"parquet to Read", "PAR1....", []string{"is a Parquet file; read it with ReadFile or ReadParquet"}},
	} {
		n := 0
		_, err := Read(strings.NewReader(tc.text), "bill.csv", func(*gpucost.CostLine) error { n++; return nil })
		if err == nil {
			t.Errorf("Read(%s) = nil error after %d lines, want %q", tc.name, n, tc.want)
			continue
		}
		if gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("Read(%s) error code %s, want %s: %v", tc.name, gpucost.ErrorCode(err), gpucost.EInvalid, err)
		}
		msg, at := err.Error(), 0
		for _, w := range tc.want {
			i := strings.Index(msg[at:], w)
			if i < 0 {
				t.Errorf("Read(%s) error\n  %s\nwant it to contain, in order, %q", tc.name, msg, tc.want)
				break
			}
			at += i + len(w)
		}
	}
}

// TestNegativeCostsKept reads credits and refunds as they are.
func TestNegativeCostsKept(t *testing.T) {
	text := goodHead + row(0, "-0.000000001") + row(10, "-2.5") + row(0, "-12.345678901234")
	var billed []int64
	st, err := Read(strings.NewReader(text), "credits.csv", func(l *gpucost.CostLine) error {
		billed = append(billed, l.BilledCost.Nanos)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{-1, 1_500_000_000, -12_345_678_901}; !equalInts(billed, want) || st.Totals["USD"].BilledCost.Nanos != -12_345_678_902+1_500_000_000 {
		t.Errorf("billed = %v total %v, want %v", billed, st.Totals["USD"].BilledCost, want)
	}
	if st.Totals["USD"].EffectiveCost.Nanos != 1_500_000_000-2_500_000_000+1_500_000_000 {
		t.Errorf("effective total = %v, want 0.5", st.Totals["USD"].EffectiveCost)
	}
}

func equalInts(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestTruncated cuts a gzip and a Parquet file short: both are errors.
func TestTruncated(t *testing.T) {
	raw, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(raw)
	zw.Close()
	dir := t.TempDir()
	pq := writeSample(t, Parquet)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"sample.csv.gz", gz.Bytes()[:gz.Len()/2], "is truncated or corrupt"},
		{"sample.csv.gz", gz.Bytes()[:gz.Len()-4], "is truncated or corrupt"}, // the length trailer
		{"sample.parquet", pq[:len(pq)-100], "is not a readable Parquet file"},
		{"sample.parquet", pq[:len(pq)/2], "is not a readable Parquet file"},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, tc.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadFile(path, func(*gpucost.CostLine) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tc.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("ReadFile(%s cut to %d bytes) = %v, want an invalid-input error saying %q", tc.name, len(tc.data), err, tc.want)
		}
	}
	// The whole gzip file reads.
	st, err := Read(bytes.NewReader(gz.Bytes()), "sample.csv.gz", func(*gpucost.CostLine) error { return nil })
	if err != nil || st.Rows != 1000 || st.Format != "csv.gz" {
		t.Errorf("Read(sample.csv.gz) = %d rows %s, %v; want 1000 csv.gz", st.Rows, st.Format, err)
	}
}

func TestEmitErrorStops(t *testing.T) {
	stop := gpucost.Errorf(gpucost.EConflict, "store full")
	n := 0
	_, err := ReadFile(sample, func(*gpucost.CostLine) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	})
	if n != 10 || gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "focus_sample.csv:11: store full") {
		t.Errorf("emit failing at line 10: read %d lines, error %v", n, err)
	}
}
