// Package billtest holds what the bill readers' tests share: the one-line text form of a cost
// line their golden files use, golden comparison with -update, exact decimal sums with math/big
// to reconcile a reader's totals against, CSV fixtures read as maps, and checks of the errors a
// reader returns for bad input. Only _test.go files import it.
package billtest

import (
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"fmt"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// Line writes a cost line as one stable text line for golden files: line=N then each non-empty,
// non-zero field as name="value", times in UTC RFC 3339.
func Line(c *gpucost.CostLine) string {
	var b strings.Builder
	kv := func(k string, v any) {
		if s := fmt.Sprint(v); s != "" && s != "0" {
			fmt.Fprintf(&b, " %s=%q", k, s)
		}
	}
	ts := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(time.RFC3339Nano)
	}
	fmt.Fprintf(&b, "line=%d", c.Line)
	kv("provider", c.Provider)
	kv("billing", c.BillingAccountID)
	kv("sub", c.SubAccountID)
	kv("period", ts(c.BillingPeriodStart))
	kv("start", ts(c.ChargePeriodStart))
	kv("end", ts(c.ChargePeriodEnd))
	kv("category", c.ChargeCategory)
	kv("class", c.ChargeClass)
	kv("frequency", c.ChargeFrequency)
	kv("pricing", c.PricingCategory)
	kv("billed", c.BilledCost.Currency+" "+c.BilledCost.Decimal())
	kv("effective", c.EffectiveCost.Decimal())
	kv("list", c.ListCost.Decimal())
	kv("contracted", c.ContractedCost.Decimal())
	kv("commitment", c.CommitmentDiscountID)
	kv("commitment_status", c.CommitmentDiscountStatus)
	kv("commitment_type", c.CommitmentDiscountType)
	kv("commitment_category", c.CommitmentDiscountCategory)
	kv("resource", c.ResourceID)
	kv("resource_name", c.ResourceName)
	kv("resource_type", c.ResourceType)
	kv("instance_type", c.InstanceType)
	kv("service", c.ServiceName)
	kv("service_category", c.ServiceCategory)
	kv("region", c.RegionID)
	kv("zone", c.AvailabilityZone)
	kv("sku", c.SkuID)
	kv("sku_price", c.SkuPriceID)
	kv("description", c.ChargeDescription)
	kv("consumed", c.ConsumedQuantity)
	kv("consumed_unit", c.ConsumedUnit)
	kv("pricing_quantity", c.PricingQuantity)
	kv("pricing_unit", c.PricingUnit)
	kv("tags", c.Tags.String())
	kv("extra", gpucost.Labels(c.Extra).String())
	return b.String()
}

// Golden compares got with the golden file at path, or writes got there when update is set. A
// difference is shown as the first line that differs.
func Golden(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("%s differs from %s:\n%s", t.Name(), path, DiffLines(got, string(want)))
	}
}

// DiffLines shows the first differing line of two texts.
func DiffLines(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return fmt.Sprintf("line %d:\n got: %s\nwant: %s", i+1, gl, wl)
		}
	}
	return ""
}

// RawRows reads a CSV fixture with encoding/csv as maps from column name, as name gives it, to
// cell; name nil keeps the header's names.
func RawRows(t testing.TB, path string, name func(string) string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows []map[string]string
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			if name != nil {
				h = name(h)
			}
			m[h] = rec[i]
		}
		rows = append(rows, m)
	}
	return rows
}

// Rat parses a decimal cell exactly; an empty cell is zero.
func Rat(t testing.TB, s string) *big.Rat {
	t.Helper()
	if s == "" {
		return new(big.Rat)
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("fixture value %q is not a decimal", s)
	}
	return r
}

// Nanos rounds an exact amount to nano-units, half to even, as Money does.
func Nanos(r *big.Rat) int64 {
	x := new(big.Rat).Mul(r, big.NewRat(1_000_000_000, 1))
	q, m := new(big.Int).QuoRem(x.Num(), x.Denom(), new(big.Int))
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	if c := twice.Cmp(x.Denom()); c > 0 || c == 0 && q.Bit(0) == 1 {
		if x.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q.Int64()
}

// Invalid checks that err is a gpucost.EInvalid error whose message mentions each of want.
func Invalid(t testing.TB, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("error = nil, want one mentioning %q", want)
	}
	if gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("error code = %q, want %q (%v)", gpucost.ErrorCode(err), gpucost.EInvalid, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error = %q, want it to mention %q", err, w)
		}
	}
}

// Lines calls read with an emit that keeps each line as Line writes it, and returns those and
// what read returns.
func Lines[S any](read func(emit func(*gpucost.CostLine) error) (S, error)) ([]string, S, error) {
	var out []string
	st, err := read(func(c *gpucost.CostLine) error {
		out = append(out, Line(c))
		return nil
	})
	return out, st, err
}

// Gzip returns b gzip-compressed.
func Gzip(t testing.TB, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
