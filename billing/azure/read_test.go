package azure

import (
	"flag"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/billing/internal/totals"
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
	return billtest.Collect(t, fx.name, func(emit func(*gpucost.CostLine) error) (Stats, error) {
		return fx.opt.ReadFile(filepath.Join("testdata", fx.name), emit)
	})
}

func TestReadGolden(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			lines, st := readAll(t, fx)
			var b strings.Builder
			for i := range lines {
				b.WriteString(billtest.Line(&lines[i]) + "\n")
			}
			fmt.Fprintf(&b, "# dialect=%q schema=%s dataset=%q from=%q format=%s rows=%d cost=%s unknown=%v types=%v\n",
				st.Version, st.Schema, st.Dataset, st.DatasetFrom, st.Format, st.Rows, st.CostColumn, st.Unknown, st.Types)
			for _, cur := range st.Currencies() {
				tot := st.Totals[cur]
				fmt.Fprintf(&b, "# %s billed=%s effective=%s list=%s contracted=%s cost=%s rows=%d\n", cur,
					tot.BilledCost.Decimal(), tot.EffectiveCost.Decimal(), tot.ListCost.Decimal(),
					tot.ContractedCost.Decimal(), tot.Source.Decimal(), tot.Rows)
			}
			golden := filepath.Join("testdata", strings.TrimSuffix(fx.name, ".csv")+".golden")
			goldenfile.Check(t, golden, []byte(b.String()), *update)
		})
	}
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
	cost = billtest.Rat(t, first(row, "costinbillingcurrency", "cost", "pretaxcost"))
	qty := billtest.Rat(t, first(row, "quantity", "consumedquantity", "usagequantity"))
	rate := big.NewRat(1, 1)
	if row["exchangeratepricingtobilling"] != "" {
		rate = billtest.Rat(t, row["exchangeratepricingtobilling"])
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
		list = billtest.Rat(t, row["paygcostinbillingcurrency"])
	} else if _, ok := row["paygprice"]; ok {
		list = mul(billtest.Rat(t, row["paygprice"]), qty)
	}
	contracted = cost
	if row["unitprice"] != "" {
		contracted = mul(billtest.Rat(t, row["unitprice"]), qty, rate)
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

// TestReadExactSums checks every line's amounts and the per-currency totals against sums computed
// here from the raw cells with math/big.
func TestReadExactSums(t *testing.T) {
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			lines, st := readAll(t, fx)
			rows := billtest.RawRows(t, filepath.Join("testdata", fx.name), normName)
			if len(lines) != len(rows) || st.Rows != len(rows) {
				t.Fatalf("read %d lines (Stats.Rows %d), want %d", len(lines), st.Rows, len(rows))
			}
			want := map[string]*totals.Sums{}
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
					if chk.got.Nanos != billtest.Nanos(chk.want) || chk.got.Currency != cur {
						t.Errorf("line %d %s = %v (%d nanos), want %s %s", c.Line, chk.what, chk.got, chk.got.Nanos, cur, chk.want.FloatString(10))
					}
				}
				w := want[cur]
				if w == nil {
					w = &totals.Sums{}
					want[cur] = w
				}
				w.Rows++
				w.BilledCost.Nanos += billtest.Nanos(billed)
				w.EffectiveCost.Nanos += billtest.Nanos(effective)
				w.ListCost.Nanos += billtest.Nanos(list)
				w.ContractedCost.Nanos += billtest.Nanos(contracted)
				w.Source.Nanos += billtest.Nanos(cost)
			}
			if len(st.Totals) != len(want) {
				t.Errorf("Stats.Totals has currencies %v, want %d", st.Currencies(), len(want))
			}
			for cur, w := range want {
				got, ok := st.Totals[cur]
				if !ok || got.Rows != w.Rows || got.BilledCost.Nanos != w.BilledCost.Nanos || got.EffectiveCost.Nanos != w.EffectiveCost.Nanos ||
					got.ListCost.Nanos != w.ListCost.Nanos || got.ContractedCost.Nanos != w.ContractedCost.Nanos || got.Source.Nanos != w.Source.Nanos {
					t.Errorf("Stats.Totals[%s] = %+v, want %+v", cur, got, w)
				}
			}
			// The file's own dataset total is the source's cost total.
			for cur, tot := range st.Totals {
				switch st.Dataset {
				case Actual:
					if tot.BilledCost != tot.Source {
						t.Errorf("actual %s: Σ BilledCost %v ≠ Σ %s %v", cur, tot.BilledCost, st.CostColumn, tot.Source)
					}
				case Amortized:
					if tot.EffectiveCost != tot.Source {
						t.Errorf("amortized %s: Σ EffectiveCost %v ≠ Σ %s %v", cur, tot.EffectiveCost, st.CostColumn, tot.Source)
					}
				}
			}
		})
	}
}
