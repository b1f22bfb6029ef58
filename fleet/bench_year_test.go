package fleet

import (
	"context"
	"fmt"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
)

// yearStore gives a year of daily GPU lines of a fleet without telemetry, by day, then
// resource, each resource's strings and tags one copy for all its lines, as the SQLite store
// gives an import's lines (sqlitetest.CostYear's shape, in memory).
type yearStore struct {
	fakeStore
	base []gpucost.CostLine
	days int
}

func newYearStore(resources, days int) *yearStore {
	var tags []gpucost.Labels
	for t := range 8 {
		tags = append(tags, gpucost.Labels{"team": fmt.Sprint("team-", t%5), "project": fmt.Sprint("project-", t)})
	}
	y := &yearStore{base: make([]gpucost.CostLine, resources), days: days}
	for r := range y.base {
		pricing := []string{"Standard", "Dynamic", "Committed"}[r%3]
		y.base[r] = gpucost.CostLine{Provider: []string{"AWS", "Google Cloud", "Microsoft"}[r%3], SubAccountID: fmt.Sprint(100000000000 + r%20),
			ChargeCategory: "Usage", PricingCategory: pricing, ResourceID: fmt.Sprintf("i-%017x", 0x0a1b2c3d4e5f6000+r*7919),
			ResourceName: fmt.Sprintf("gpu-node-%05d", r), InstanceType: "gpu.x1", ServiceName: "Amazon Elastic Compute Cloud",
			RegionID: []string{"us-east-1", "us-west-2", "eu-west-1", "ap-northeast-1"}[r%4], SkuID: "SKU1",
			ChargeDescription: "gpu.x1 hour", ConsumedUnit: "Hours", Tags: tags[r%len(tags)],
			EffectiveCost: gpucost.Money{Currency: "USD"}, BilledCost: gpucost.Money{Currency: "USD"}}
	}
	return y
}

func (y *yearStore) ScanCosts(_ context.Context, flt gpucost.CostFilter, fn func(*gpucost.CostLine) error) error {
	var l gpucost.CostLine
	for d := range y.days {
		start, end := day1.AddDate(0, 0, d), day1.AddDate(0, 0, d+1)
		if start.Before(flt.From) || !start.Before(flt.To) {
			continue
		}
		for r := range y.base {
			l = y.base[r]
			hours := int64(24)
			if (r+d)%10 == 0 {
				hours = int64(1 + (r*31+d*17)%22)
			}
			l.ChargePeriodStart, l.ChargePeriodEnd = start, end
			l.ConsumedQuantity = float64(hours)
			l.EffectiveCost.Nanos = int64(r%97+1) * 1_000_000_007 * hours
			l.BilledCost.Nanos = l.EffectiveCost.Nanos * 9 / 10
			if err := fn(&l); err != nil {
				return err
			}
		}
	}
	return nil
}

// BenchmarkYear is report cost by resource over a year of daily lines without telemetry, the
// fleet's part of it: the snapshot, the groups, the price notes' fleet sum and the
// reconciliation (cmd/gpucost's BenchmarkReportCostYear runs it end to end).
//
//	go test ./fleet -run XXX -bench 'Year/' -benchtime 3x
func BenchmarkYear(b *testing.B) {
	for _, resources := range []int{1_000, 10_000} {
		b.Run(fmt.Sprint("resources=", resources), func(b *testing.B) {
			y := newYearStore(resources, 365)
			p := Period{Start: day1, End: day1.AddDate(0, 0, 365)}
			res, _ := ParseDimension("resource")
			cpu := usage.CPU()
			for b.Loop() {
				s, err := Build(context.Background(), y, fakeCatalog{}, Options{Period: p})
				if err != nil {
					b.Fatal(err)
				}
				if g := s.Group(res, nil); len(g) != resources {
					b.Fatalf("%d groups", len(g))
				}
				if src := s.PriceSource(GPUOnly); src != SourceBill {
					b.Fatalf("price source %q", src)
				}
				if _, _, ok := s.Reconcile(); !ok {
					b.Fatal("does not reconcile")
				}
			}
			b.ReportMetric((usage.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
