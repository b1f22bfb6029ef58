package azure

import (
	"encoding/csv"
	"flag"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is a testdata file and the options it is read with.
type fixture struct {
	name string
	opt  Options
}

// fixtures are the cost details files in testdata, built by hand from Microsoft's dataset schema
// reference (see testdata/README.md): an EA actual and an EA amortized export of the same GPU
// fleet, an MCA actual export billed in EUR, a pay-as-you-go usage file in GBP and an EA portal
// download with the older spaced column names.
var fixtures = []fixture{
	{"ea_actual.csv", Options{}},
	{"ea_amortized.csv", Options{}},
	{"mca_actual_eur.csv", Options{}},
	{"payg_usage_gbp.csv", Options{}},
	{"ea_portal_legacy.csv", Options{}},
}

// readAll reads a fixture and returns copies of its lines.
func readAll(t testing.TB, fx fixture) ([]gpucost.CostLine, Stats) {
	t.Helper()
	var lines []gpucost.CostLine
	st, err := fx.opt.ReadFile(filepath.Join("testdata", fx.name), func(c *gpucost.CostLine) error {
		lines = append(lines, *c)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFile(%s) = %v", fx.name, err)
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
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
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

func TestReadGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			lines, st := readAll(t, fx)
			var b strings.Builder
			for i := range lines {
				b.WriteString(render(&lines[i]) + "\n")
			}
			fmt.Fprintf(&b, "# dialect=%q schema=%s dataset=%q from=%q format=%s rows=%d cost=%s unknown=%v types=%v\n",
				st.Dialect, st.Schema, st.Dataset, st.DatasetFrom, st.Format, st.Rows, st.CostColumn, st.Unknown, st.ChargeTypes)
			for _, cur := range st.Currencies() {
				tot := st.Totals[cur]
				fmt.Fprintf(&b, "# %s billed=%s effective=%s list=%s contracted=%s cost=%s rows=%d\n", cur,
					tot.BilledCost.Decimal(), tot.EffectiveCost.Decimal(), tot.ListCost.Decimal(),
					tot.ContractedCost.Decimal(), tot.Cost.Decimal(), tot.Rows)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(fx.name, ".csv")+".golden")
			goldenfile.Check(t, golden, []byte(b.String()), *update)
		})
	}
}

// rawRows reads a fixture with encoding/csv as maps from normalised column name to cell.
func rawRows(t testing.TB, path string) []map[string]string {
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
			m[normName(h)] = rec[i]
		}
		rows = append(rows, m)
	}
	return rows
}

// rat parses a decimal cell exactly; an empty cell is zero.
func rat(t testing.TB, s string) *big.Rat {
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

// first returns the first non-empty cell of the named columns.
func first(row map[string]string, names ...string) string {
	for _, n := range names {
		if v := row[n]; v != "" {
			return v
		}
	}
	return ""
}

// expected applies the documented rules to a raw row independently of the reader.
func expected(t testing.TB, row map[string]string, ds Dataset) (cost, billed, effective, list, contracted *big.Rat) {
	cost = rat(t, first(row, "costinbillingcurrency", "cost", "pretaxcost"))
	qty := rat(t, first(row, "quantity", "consumedquantity", "usagequantity"))
	rate := big.NewRat(1, 1)
	if row["exchangeratepricingtobilling"] != "" {
		rate = rat(t, row["exchangeratepricingtobilling"])
	}
	mul := func(a ...*big.Rat) *big.Rat {
		p := big.NewRat(1, 1)
		for _, x := range a {
			p.Mul(p, x)
		}
		return p
	}
	list = new(big.Rat)
	if _, ok := row["paygcostinbillingcurrency"]; ok {
		list = rat(t, row["paygcostinbillingcurrency"])
	} else if _, ok := row["paygprice"]; ok {
		list = mul(rat(t, row["paygprice"]), qty)
	}
	contracted = cost
	if row["unitprice"] != "" {
		contracted = mul(rat(t, row["unitprice"]), qty, rate)
	}
	billed, effective = cost, cost
	commit := row["pricingmodel"] == "Reservation" || row["pricingmodel"] == "SavingsPlan" ||
		row["pricingmodel"] == "" && row["reservationid"] != ""
	switch ct := row["chargetype"]; {
	case ct == "UnusedReservation" || ct == "UnusedSavingsPlan":
		billed = new(big.Rat)
	case commit && (ct == "Usage" || ct == ""):
		billed = new(big.Rat)
	case commit && (ct == "Purchase" || ct == "Refund") && ds == Amortized:
		effective = new(big.Rat)
	}
	return cost, billed, effective, list, contracted
}

// nanosOf rounds an exact amount to nano-units, half to even, as Money does.
func nanosOf(r *big.Rat) int64 {
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

// TestReadExactSums checks every line's amounts and the per-currency totals against sums computed
// here from the raw cells with math/big.
func TestReadExactSums(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			lines, st := readAll(t, fx)
			rows := rawRows(t, filepath.Join("testdata", fx.name))
			if len(lines) != len(rows) || st.Rows != len(rows) {
				t.Fatalf("read %d lines (Stats.Rows %d), want %d", len(lines), st.Rows, len(rows))
			}
			want := map[string]*Totals{}
			for i, row := range rows {
				cost, billed, effective, list, contracted := expected(t, row, st.Dataset)
				c := &lines[i]
				cur := first(row, "billingcurrencycode", "billingcurrency", "currency")
				for _, chk := range []struct {
					what string
					got  gpucost.Money
					want *big.Rat
				}{{"BilledCost", c.BilledCost, billed}, {"EffectiveCost", c.EffectiveCost, effective},
					{"ListCost", c.ListCost, list}, {"ContractedCost", c.ContractedCost, contracted}} {
					if chk.got.Nanos != nanosOf(chk.want) || chk.got.Currency != cur {
						t.Errorf("line %d %s = %v (%d nanos), want %s %s", c.Line, chk.what, chk.got, chk.got.Nanos, cur, chk.want.FloatString(10))
					}
				}
				w := want[cur]
				if w == nil {
					w = &Totals{}
					want[cur] = w
				}
				w.Rows++
				w.BilledCost.Nanos += nanosOf(billed)
				w.EffectiveCost.Nanos += nanosOf(effective)
				w.ListCost.Nanos += nanosOf(list)
				w.ContractedCost.Nanos += nanosOf(contracted)
				w.Cost.Nanos += nanosOf(cost)
			}
			if len(st.Totals) != len(want) {
				t.Errorf("Stats.Totals has currencies %v, want %d", st.Currencies(), len(want))
			}
			for cur, w := range want {
				got := st.Totals[cur]
				if got == nil || got.Rows != w.Rows || got.BilledCost.Nanos != w.BilledCost.Nanos || got.EffectiveCost.Nanos != w.EffectiveCost.Nanos ||
					got.ListCost.Nanos != w.ListCost.Nanos || got.ContractedCost.Nanos != w.ContractedCost.Nanos || got.Cost.Nanos != w.Cost.Nanos {
					t.Errorf("Stats.Totals[%s] = %+v, want %+v", cur, got, w)
				}
			}
			// The file's own dataset total is the source's cost total.
			for cur, tot := range st.Totals {
				switch st.Dataset {
				case Actual:
					if tot.BilledCost != tot.Cost {
						t.Errorf("actual %s: Σ BilledCost %v ≠ Σ %s %v", cur, tot.BilledCost, st.CostColumn, tot.Cost)
					}
				case Amortized:
					if tot.EffectiveCost != tot.Cost {
						t.Errorf("amortized %s: Σ EffectiveCost %v ≠ Σ %s %v", cur, tot.EffectiveCost, st.CostColumn, tot.Cost)
					}
				}
			}
		})
	}
}
