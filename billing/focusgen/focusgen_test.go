package focusgen_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/billing/focusgen"
)

// TestBillAggregates reads generated bills of both shapes with the FOCUS reader into an
// Aggregator and checks the rows, the lines and the billed total each says it has.
func TestBillAggregates(t *testing.T) {
	for _, shape := range []focusgen.Shape{focusgen.Aggregating, focusgen.Distinct} {
		for _, rows := range []int{1, 1000, 50_000, 100_003} {
			t.Run(fmt.Sprintf("%s/%d", shape, rows), func(t *testing.T) {
				bill := focusgen.Bill{Rows: rows, Shape: shape}
				var buf bytes.Buffer
				if _, err := bill.WriteTo(&buf); err != nil {
					t.Fatal(err)
				}
				var agg billing.Aggregator
				st, err := focus.Read(&buf, "bill.csv", func(l *gpucost.CostLine) error { agg.Add(l); return nil })
				if err != nil {
					t.Fatal(err)
				}
				if agg.Rows() != rows || agg.Len() != bill.Lines() {
					t.Errorf("read %d rows into %d lines, want %d into %d (stats %+v)", agg.Rows(), agg.Len(), rows, bill.Lines(), st)
				}
				totals := agg.Totals()
				if len(totals) != 1 || totals[0].BilledCost.Nanos != bill.Billed() {
					t.Errorf("totals %v, want billed %d nano-USD", totals, bill.Billed())
				}
			})
		}
	}
}
