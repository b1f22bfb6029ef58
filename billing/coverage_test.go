package billing_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/focus"
)

// What the coverage lines say a bill covers is what every line says: providers, (account,
// period) pairs, charge span and identity key, with and without billing periods, over months.
func TestCoverage(t *testing.T) {
	rows := mergeRows() // no billing periods: the charges' months count
	sept := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	late := rows[3]
	late.ChargePeriodStart, late.ChargePeriodEnd = sept, sept.Add(time.Hour)
	nov := rows[5]
	nov.ChargePeriodStart, nov.ChargePeriodEnd = sept.AddDate(0, 1, 10), sept.AddDate(0, 1, 11)
	noEnd := rows[5] // the latest charge, without an end, after another of its month
	noEnd.ChargePeriodStart, noEnd.ChargePeriodEnd = sept.AddDate(0, 1, 20), time.Time{}
	billed := rows[8]
	billed.BillingPeriodStart, billed.BillingAccountID, billed.Provider = sept.AddDate(0, 0, 1), "2222", "Azure"
	rows = append(rows, late, nov, noEnd, billed)

	var sample billing.Aggregator
	if _, err := focus.ReadFile("focus/testdata/focus_sample.csv", func(l *gpucost.CostLine) error { sample.Add(l); return nil }); err != nil {
		t.Fatal(err)
	}
	var merged billing.Aggregator
	for i := range rows {
		merged.Add(&rows[i])
	}
	for name, a := range map[string]*billing.Aggregator{"rows": &merged, "FOCUS sample": &sample} {
		var cover, every gpucost.BillIdentity
		n := 0
		for l := range a.Coverage() {
			cover.Add(l)
			n++
		}
		for l := range a.Lines() {
			every.Add(l)
		}
		var got, want gpucost.CostImport
		cover.Describe(&got, "focus")
		every.Describe(&want, "focus")
		if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) || got.Identity == "" {
			t.Errorf("%s: coverage of %d lines describes\n%+v\nwant\n%+v", name, n, got, want)
		}
		if n >= a.Len() {
			t.Errorf("%s: %d coverage lines for %d lines", name, n, a.Len())
		}
	}
}
