package billing_test

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/awscur"
	"github.com/gpucost/gpucost/billing/azure"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/billing/gcp"
)

const sample = "../../shared/datasets/focus/focus_sample.csv"

// The FOCUS sample aggregates to fewer lines whose sums, per currency and per resource, equal
// the source rows' sums exactly.
func TestAggregateFOCUSSample(t *testing.T) {
	if _, err := os.Stat(sample); err != nil {
		t.Skipf("the shared datasets are not beside the repository: %v", err)
	}
	var agg billing.Aggregator
	perResource := map[string]int64{}
	st, err := focus.ReadFile(sample, func(l *gpucost.CostLine) error {
		agg.Add(l)
		perResource[l.ResourceID+"|"+l.BillingCurrency()] += l.BilledCost.Nanos
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if agg.Rows() != 1000 || st.Rows != 1000 {
		t.Fatalf("rows: aggregator %d, reader %d, want 1000", agg.Rows(), st.Rows)
	}
	for _, tot := range agg.Totals() {
		want := st.Totals[tot.Currency]
		if tot.BilledCost != want.BilledCost || tot.EffectiveCost != want.EffectiveCost {
			t.Errorf("%s: aggregated %v/%v, source %v/%v", tot.Currency, tot.BilledCost, tot.EffectiveCost, want.BilledCost, want.EffectiveCost)
		}
	}
	got := map[string]int64{}
	rows := 0
	for l := range agg.Lines() {
		got[l.ResourceID+"|"+l.BillingCurrency()] += l.BilledCost.Nanos
		rows += l.Rows
		if !l.ChargePeriodEnd.After(l.ChargePeriodStart) {
			t.Errorf("line %+v: empty period", l)
		}
	}
	if rows != 1000 {
		t.Errorf("aggregated lines sum %d rows, want 1000", rows)
	}
	for k, v := range perResource {
		if got[k] != v {
			t.Errorf("resource %q: aggregated %d nanos, source %d", k, got[k], v)
		}
	}
}

// Hourly lines of one resource fall into its day; a monthly fee keeps its own period; lines
// with other tags, pricing or currency stay apart.
func TestAggregateGrain(t *testing.T) {
	day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
	team := gpucost.Labels{"team": "ml"}
	line := func(h int, cost string, mod func(*gpucost.CostLine)) *gpucost.CostLine {
		m, _ := gpucost.ParseMoney(cost, "USD")
		l := &gpucost.CostLine{Provider: "AWS", ResourceID: "i-1", SkuID: "SKU", PricingCategory: "Standard",
			ChargePeriodStart: day.Add(time.Duration(h) * time.Hour), ChargePeriodEnd: day.Add(time.Duration(h+1) * time.Hour),
			BilledCost: m, EffectiveCost: m, ConsumedQuantity: 1, ConsumedUnit: "Hrs", Tags: gpucost.Labels{"team": "ml"}}
		if mod != nil {
			mod(l)
		}
		return l
	}
	for _, grain := range []time.Duration{billing.Day, time.Hour} {
		agg := billing.Aggregator{Grain: grain}
		for h := range 24 {
			agg.Add(line(h, "32.7726", nil))
		}
		agg.Add(line(3, "10.0", func(l *gpucost.CostLine) { l.PricingCategory = "Dynamic" }))
		agg.Add(line(3, "1.5", func(l *gpucost.CostLine) { l.Tags = team }))                                                 // same tags, other map
		agg.Add(line(3, "-2", func(l *gpucost.CostLine) { l.Tags = gpucost.Labels{"team": "research"} }))                    // a credit
		agg.Add(line(3, "7", func(l *gpucost.CostLine) { l.BilledCost.Currency = "EUR"; l.EffectiveCost.Currency = "EUR" })) // other currency
		agg.Add(line(0, "100", func(l *gpucost.CostLine) { l.ChargePeriodEnd = day.AddDate(0, 1, 0) }))                      // a month's fee
		want := map[time.Duration]int{billing.Day: 5, time.Hour: 24 + 4}[grain]
		if agg.Len() != want {
			t.Errorf("grain %v: %d lines, want %d", grain, agg.Len(), want)
		}
		var usd, hours float64
		for l := range agg.Lines() {
			if l.BillingCurrency() == "USD" && l.PricingCategory == "Standard" && l.Tags["team"] == "ml" && l.ChargePeriodEnd.Sub(l.ChargePeriodStart) <= grain {
				usd += float64(l.BilledCost.Nanos)
				hours += l.ConsumedQuantity
				if grain == billing.Day && (!l.ChargePeriodStart.Equal(day) || l.Rows != 25) {
					t.Errorf("day line %v–%v holds %d rows, want the day and 25", l.ChargePeriodStart, l.ChargePeriodEnd, l.Rows)
				}
			}
		}
		if usd != 24*32.7726e9+1.5e9 || hours != 25 {
			t.Errorf("grain %v: ml standard USD %v nanos over %v hours", grain, usd, hours)
		}
	}
}

// Every reader's lines aggregate to the same sums per resource, tag set and extras as the lines
// themselves: readers must not change a map once a line carrying it is emitted.
func TestAggregateKeepsEveryReadersMaps(t *testing.T) {
	files, _ := filepath.Glob("*/testdata/*.csv")
	more, _ := filepath.Glob("gcp/testdata/*.json*")
	files = append(files, more...)
	readers := map[string]func(string, func(*gpucost.CostLine) error) error{
		"focus":  func(p string, e func(*gpucost.CostLine) error) error { _, err := focus.ReadFile(p, e); return err },
		"awscur": func(p string, e func(*gpucost.CostLine) error) error { _, err := awscur.ReadFile(p, e); return err },
		"azure":  func(p string, e func(*gpucost.CostLine) error) error { _, err := azure.ReadFile(p, e); return err },
		"gcp":    func(p string, e func(*gpucost.CostLine) error) error { _, err := gcp.ReadFile(p, e); return err },
	}
	checked := 0
	for _, path := range files {
		read := readers[filepath.Dir(filepath.Dir(path))]
		if read == nil {
			continue
		}
		key := func(l *gpucost.CostLine) string {
			return l.ResourceID + "|" + l.Tags.String() + "|" + gpucost.Labels(l.Extra).String() + "|" + l.BillingCurrency()
		}
		want := map[string]int64{}
		var agg billing.Aggregator
		err := read(path, func(l *gpucost.CostLine) error {
			want[key(l)] += l.BilledCost.Nanos
			agg.Add(l)
			return nil
		})
		if err != nil {
			continue // a bad-input fixture
		}
		got := map[string]int64{}
		for l := range agg.Lines() {
			got[key(l)] += l.BilledCost.Nanos
		}
		if !maps.Equal(got, want) {
			t.Errorf("%s: aggregated sums by resource, tags and extras differ from the lines':\n got %v\nwant %v", path, got, want)
		}
		checked++
	}
	if checked < 8 {
		t.Errorf("checked %d reader fixtures, want at least 8", checked)
	}
}

// Lines differing only in their extras stay apart, in CSV and in Parquet.
func TestAggregateKeepsExtrasApart(t *testing.T) {
	for _, format := range []focus.Format{focus.CSV, focus.Parquet} {
		var buf bytes.Buffer
		w, err := focus.NewWriter(&buf, focus.WriterOptions{Format: format, Extra: []string{"x_Team"}})
		if err != nil {
			t.Fatal(err)
		}
		day := time.Date(2026, 10, 5, 0, 0, 0, 0, time.UTC)
		for _, team := range []string{"a", "b", "a", "c", "b"} {
			l := gpucost.CostLine{Provider: "AWS", ChargeCategory: "Usage", ChargePeriodStart: day, ChargePeriodEnd: day.Add(time.Hour),
				BilledCost: gpucost.USD(1e9), EffectiveCost: gpucost.USD(1e9), ListCost: gpucost.USD(1e9), ContractedCost: gpucost.USD(1e9),
				ResourceID: "i-1", ServiceName: "EC2", Extra: map[string]string{"x_Team": team}}
			if err := w.Write(&l); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		var agg billing.Aggregator
		add := func(l *gpucost.CostLine) error { agg.Add(l); return nil }
		if format == focus.Parquet {
			_, err = focus.ReadParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "x.parquet", add)
		} else {
			_, err = focus.Read(&buf, "x.csv", add)
		}
		if err != nil {
			t.Fatal(err)
		}
		rows := map[string]int{}
		for l := range agg.Lines() {
			rows[l.Extra["x_Team"]] = l.Rows
		}
		if want := map[string]int{"a": 2, "b": 2, "c": 1}; !maps.Equal(rows, want) {
			t.Errorf("format %v: rows by x_Team %v, want %v", format, rows, want)
		}
	}
}
