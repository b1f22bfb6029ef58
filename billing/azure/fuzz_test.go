package azure

import (
	"bytes"
	"math"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// checkRead reads input with read and checks what holds for any input: no panic; an error is
// gpucost.EInvalid; the Stats agree with the lines emitted; every line has one currency.
func checkRead(t *testing.T, read func(emit func(*gpucost.CostLine) error) (Stats, error)) {
	t.Helper()
	var st Stats
	got := billtest.CheckRead(t, func(emit func(*gpucost.CostLine) error) (err error) {
		st, err = read(emit)
		return err
	}, func(c *gpucost.CostLine) {
		if c.ContractedCost.Currency != c.BilledCost.Currency {
			t.Fatalf("line %d has contracted currency %q, billed %q", c.Line, c.ContractedCost.Currency, c.BilledCost.Currency)
		}
		if c.Provider != "Microsoft" || c.ChargePeriodEnd.Sub(c.ChargePeriodStart).Hours() != 24 || math.IsNaN(c.ConsumedQuantity) {
			t.Fatalf("line %d: provider %q, period %v–%v, consumed %v", c.Line, c.Provider, c.ChargePeriodStart, c.ChargePeriodEnd, c.ConsumedQuantity)
		}
	})
	if st.Rows != got.Rows {
		t.Fatalf("Stats.Rows = %d, emitted %d", st.Rows, got.Rows)
	}
	for cur, tot := range st.Totals {
		if tot.BilledCost.Nanos != got.Billed[cur] || tot.EffectiveCost.Nanos != got.Effective[cur] {
			t.Fatalf("Totals[%s] = %+v, emitted billed %d effective %d", cur, tot, got.Billed[cur], got.Effective[cur])
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, fx := range fixtures {
		b := mustRead(f, filepath.Join("testdata", fx.name))
		billtest.AddSeeds(f, b)
	}
	f.Add([]byte("Date,CostInBillingCurrency,BillingCurrency,MeterCategory,Quantity,UnitOfMeasure,UnitPrice,Tags\n" +
		`9/1/2024,1e3,USD,Virtual Machines,0.0003,10K,0.05,"""a"": ""b"""` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, opt := range []Options{{}, {Dataset: Amortized, Currency: "USD"}} {
			checkRead(t, func(emit func(*gpucost.CostLine) error) (Stats, error) {
				return opt.Read(bytes.NewReader(b), "fuzz.csv", emit)
			})
		}
		_ = Detect(b)
	})
}

// FuzzMulNanos checks the decimal product against math/big.
func FuzzMulNanos(f *testing.F) {
	for _, s := range [][3]string{{"3.49", "24", "1"}, {"4.048", "24", "0.9183"}, {"0.05", "0.000300000000000", "1"},
		{"-1250", "1", "1"}, {"1e-3", "2E2", "1"}, {"12345678901234567890.5", "1e-12", "3"}, {"0.0000000015", "1", "1"}} {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var ds []dec
		for _, s := range []string{a, b, c} {
			d, ok := parseDec([]byte(s))
			if !ok {
				return
			}
			ds = append(ds, d)
		}
		got, err := mulNanos(ds...)
		want, werr := bigNanos(ds)
		if (err == nil) != (werr == nil) || err == nil && got != want {
			t.Fatalf("mulNanos(%q, %q, %q) = %d, %v; math/big says %d, %v", a, b, c, got, err, want, werr)
		}
		if len(a) > 0 && len(b) > 0 && len(c) > 0 && err == nil {
			fa, _ := strconv.ParseFloat(a, 64)
			fb, _ := strconv.ParseFloat(b, 64)
			fc, _ := strconv.ParseFloat(c, 64)
			if p := fa * fb * fc * 1e9; math.Abs(p) < 1e15 && math.Abs(p-float64(got)) > 1+math.Abs(p)*1e-9 {
				t.Fatalf("mulNanos(%q, %q, %q) = %d, far from the float product %v", a, b, c, got, p)
			}
		}
	})
}

// FuzzParseDate checks that a parsed date prints back as a valid date of the same day.
func FuzzParseDate(f *testing.F) {
	for _, s := range []string{"2024-09-01", "2024-09-01T00:00:00.0000000Z", "09/01/2024", "9/1/2024 1:30:00 PM", "2024-02-29", "13/01/2024"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseDate([]byte(s))
		if !ok {
			return
		}
		if got.Location() != time.UTC || got.Nanosecond() >= 1e9 {
			t.Fatalf("parseDate(%q) = %v", s, got)
		}
	})
}
