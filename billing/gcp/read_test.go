package gcp

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtures are the exports in testdata, built by hand from Google's schema (testdata/README.md):
// a detailed export as newline-delimited JSON, a standard export in euros as CSV with dotted
// names, a detailed export as CSV with underscore names, and rows as `bq query` prints them.
var fixtures = []string{"detailed_export.jsonl", "standard_export_eur.csv", "detailed_export_underscore.csv", "bq_query.json"}

// readAll reads a file and returns copies of its lines.
func readAll(t testing.TB, path string) ([]gpucost.CostLine, Stats) {
	t.Helper()
	var lines []gpucost.CostLine
	st, err := ReadFile(path, func(c *gpucost.CostLine) error {
		lines = append(lines, *c)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFile(%s) = %v", path, err)
	}
	return lines, st
}

// render writes a line as one stable text line for golden files.
func render(c *gpucost.CostLine) string {
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

// renderStats writes Stats for golden files.
func renderStats(st Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# dialect=%q format=%s names=%s rows=%d unknown=%q cost_types=%v\n",
		st.Dialect, st.Format, st.Names, st.Rows, st.Unknown, st.CostTypes)
	for _, cur := range st.Currencies() {
		t := st.Totals[cur]
		byType := gpucost.Labels{}
		for typ, m := range t.CreditsByType {
			byType[typ] = m.Decimal()
		}
		fmt.Fprintf(&b, "# %s rows=%d billed=%s effective=%s list=%s contracted=%s cost=%s credits=%s by_type=%s\n", cur,
			t.Rows, t.Billed.Decimal(), t.Effective.Decimal(), t.List.Decimal(), t.Contracted.Decimal(),
			t.Cost.Decimal(), t.Credits.Decimal(), byType)
	}
	return b.String()
}

func TestReadGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			lines, st := readAll(t, filepath.Join("testdata", name))
			var b strings.Builder
			for i := range lines {
				b.WriteString(render(&lines[i]) + "\n")
			}
			b.WriteString(renderStats(st))
			golden := filepath.Join("testdata", strings.TrimSuffix(name, filepath.Ext(name))+".golden")
			goldenfile.Check(t, golden, []byte(b.String()), *update)
		})
	}
}
