package billing_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
)

// BenchmarkAggregatorAdd adds hourly lines of 2,000 resources, as a reader emits them (strings
// and tag maps shared between lines), and reports lines/s:
// go test ./billing -run XXX -bench AggregatorAdd -cpu 1
func BenchmarkAggregatorAdd(b *testing.B) {
	const resources, hours = 2000, 24 * 7
	tags := []gpucost.Labels{{"team": "ml"}, {"team": "search"}, {"team": "vision", "env": "prod"}}
	base := make([]gpucost.CostLine, resources)
	for r := range base {
		it := []string{"p4d.24xlarge", "p5.48xlarge", "g5.xlarge"}[r%3]
		base[r] = gpucost.CostLine{Provider: "AWS", BillingAccountID: "111122223333", SubAccountID: fmt.Sprint(444455556666 + r%20),
			ChargeCategory: "Usage", ChargeFrequency: "Usage-Based", PricingCategory: []string{"Standard", "Dynamic"}[r%2],
			ResourceID: fmt.Sprintf("i-%017x", r*7919), ResourceType: "Instance", InstanceType: it,
			ServiceName: "Amazon Elastic Compute Cloud", ServiceCategory: "Compute", RegionID: "us-east-1", AvailabilityZone: "us-east-1a",
			SkuID: "SKU" + it, SkuPriceID: "SKU" + it + ".JRTCKXETXF", ChargeDescription: "$21.96 per On Demand Linux " + it + " Instance Hour",
			ConsumedUnit: "Hrs", PricingUnit: "Hrs", Tags: tags[r%3],
			BilledCost: gpucost.USD(21_960_000_000), EffectiveCost: gpucost.USD(21_960_000_000), ListCost: gpucost.USD(21_960_000_000),
			ContractedCost: gpucost.USD(21_960_000_000), ConsumedQuantity: 1, PricingQuantity: 1}
	}
	start := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	var l gpucost.CostLine
	n := 0
	for b.Loop() {
		var agg billing.Aggregator
		for h := range hours {
			t := start.Add(time.Duration(h) * time.Hour)
			for r := range base {
				l = base[r]
				l.ChargePeriodStart, l.ChargePeriodEnd = t, t.Add(time.Hour)
				agg.Add(&l)
			}
		}
		if agg.Len() != resources*7 {
			b.Fatalf("%d aggregated lines, want %d", agg.Len(), resources*7)
		}
		n += resources * hours
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "lines/s")
}
