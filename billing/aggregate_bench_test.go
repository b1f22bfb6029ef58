package billing_test

import (
	"fmt"
	"runtime"
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

// BenchmarkAggregatorUnmergeable adds lines that cannot merge — each of its own resource, with a
// 40-byte id — and reports the heap they hold per line (bytes/line, live heap after a collection,
// less the ids themselves, which a reader interns and the stored lines keep): what a line that
// cannot merge costs an import. go test ./billing -run XXX -bench Unmergeable -benchtime 1x
func BenchmarkAggregatorUnmergeable(b *testing.B) {
	const lines = 1_000_000
	ids := make([]string, lines)
	for i := range ids {
		ids[i] = fmt.Sprintf("arn:aws:ec2:us-east-1:1111:instance/i-%017x", i)
	}
	l := gpucost.CostLine{Provider: "AWS", BillingAccountID: "111122223333", SubAccountID: "444455556666",
		ChargeCategory: "Usage", ChargeFrequency: "Usage-Based", PricingCategory: "Standard",
		ResourceType: "Instance", InstanceType: "p5.48xlarge", ServiceName: "Amazon Elastic Compute Cloud",
		ServiceCategory: "Compute", RegionID: "us-east-1", AvailabilityZone: "us-east-1a", SkuID: "SKU",
		ChargeDescription: "p5.48xlarge hour", ConsumedUnit: "Hrs", PricingUnit: "Hrs", Tags: gpucost.Labels{"team": "ml"},
		BilledCost: gpucost.USD(98_320_000_000), EffectiveCost: gpucost.USD(98_320_000_000), ConsumedQuantity: 1, PricingQuantity: 1,
		ChargePeriodStart: time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), ChargePeriodEnd: time.Date(2026, 10, 1, 1, 0, 0, 0, time.UTC)}
	var per float64
	for b.Loop() {
		before := liveHeap()
		var agg billing.Aggregator
		for i := range ids {
			l.ResourceID = ids[i]
			agg.Add(&l)
		}
		per = float64(liveHeap()-before) / lines
		if agg.Len() != lines {
			b.Fatalf("%d aggregated lines, want %d", agg.Len(), lines)
		}
		runtime.KeepAlive(&agg)
	}
	b.ReportMetric(per, "bytes/line")
}

// liveHeap returns the bytes of live heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
