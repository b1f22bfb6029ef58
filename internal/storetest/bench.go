package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// PolledSamples returns samples of gpus GPUs, all GPUs at one instant and then the next, from
// RollT0, as an agent polls them.
func PolledSamples(gpus int, span, interval time.Duration) []gpucost.Sample {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([]gpucost.Sample, 0, gpus*int(span/interval))
	gs := make([]gpucost.GPU, gpus)
	labels := make([]gpucost.Labels, gpus)
	for g := range gs {
		gs[g] = gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x", g), Host: fmt.Sprintf("node%03d", g/8), Model: "NVIDIA A100-SXM4-80GB", Index: g % 8}
		labels[g] = gpucost.Labels{"namespace": fmt.Sprintf("team%d", g%7), "pod": fmt.Sprintf("pod-%d", g/2)}
	}
	for at := time.Duration(0); at < span; at += interval {
		for g := range gs {
			s := gpucost.NewSample(RollT0.Add(at), gs[g])
			s.Labels = labels[g]
			s.Util = float64([]int{0, 20, 95}[g%3] + rng.IntN(5))
			s.MemUsedMiB, s.MemTotalMiB = float64(1024*(1+g%79)), 81920
			s.PowerW = float64(6000+rng.IntN(30000)) / 100
			s.TempC = float64(35 + rng.IntN(40))
			out = append(out, s)
		}
	}
	return out
}

// BenchIngest measures samples → telemetry.Writer → rollups → a new store, end to end: 1,000
// GPUs × 1 h at a 10 s interval, a poll of all GPUs at a time. Opening the store is not timed.
func BenchIngest(b *testing.B, open Open) {
	ctx := context.Background()
	samples := PolledSamples(1000, time.Hour, 10*time.Second)
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		db := open(b)
		b.StartTimer()
		w := &telemetry.Writer{Store: db, IdleBelow: 5, Now: func() time.Time { return RollT0.Add(2 * time.Hour) }}
		for i := 0; i < len(samples); i += 1000 {
			if err := w.Add(ctx, samples[i:min(i+1000, len(samples))]...); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchCostStart is where FleetLines start.
var BenchCostStart = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// FleetLines returns the daily lines of resources resources for days days from day from after
// BenchCostStart, by day, then resource, through one reused line: five instance types, three providers, three
// pricing categories and eight owner tag sets.
func FleetLines(resources, from, days int) func(yield func(*gpucost.CostLine) bool) {
	types := []struct {
		name  string
		nanos int64
	}{{"p4d.24xlarge", 32_773_000_000}, {"p5.48xlarge", 98_320_000_000}, {"g5.xlarge", 1_212_000_000},
		{"g5.12xlarge", 4_088_000_000}, {"p3.8xlarge", 12_240_000_000}}
	var tags []gpucost.Labels
	for t := range 8 {
		tags = append(tags, gpucost.Labels{"team": fmt.Sprint("team-", t%5), "project": fmt.Sprint("project-", t)})
	}
	ids := make([]string, resources)
	for r := range ids {
		ids[r] = fmt.Sprintf("i-%017x", 0x0a1b2c3d4e5f6000+r*7919)
	}
	return func(yield func(*gpucost.CostLine) bool) {
		var l gpucost.CostLine
		for d := from; d < from+days; d++ {
			start := BenchCostStart.AddDate(0, 0, d)
			for r := range resources {
				it := types[r%len(types)]
				cost := gpucost.USD(it.nanos * 24)
				l = gpucost.CostLine{Provider: []string{"AWS", "AWS", "AWS", "Google Cloud", "Microsoft"}[r%5],
					BillingAccountID: "payer", SubAccountID: fmt.Sprint(100000000000 + r%20),
					BillingPeriodStart: time.Date(start.Year(), start.Month(), 1, 0, 0, 0, 0, time.UTC),
					ChargePeriodStart:  start, ChargePeriodEnd: start.AddDate(0, 0, 1),
					ChargeCategory: "Usage", ChargeFrequency: "Usage-Based", PricingCategory: []string{"Standard", "Dynamic", "Committed"}[r%3],
					BilledCost: cost, EffectiveCost: cost, ListCost: cost, ContractedCost: cost,
					ResourceID: ids[r], ResourceType: "Instance", InstanceType: it.name, ServiceName: "Amazon Elastic Compute Cloud",
					RegionID: "us-east-1", ConsumedQuantity: 24, ConsumedUnit: "Hours", PricingQuantity: 24, PricingUnit: "Hours",
					Tags: tags[r%len(tags)], Rows: 24}
				if !yield(&l) {
					return
				}
			}
		}
	}
}

// BenchPutCosts stores a month of daily lines for resources resources as one import, replacing
// the previous one.
func BenchPutCosts(b *testing.B, open Open, resources int) {
	ctx := context.Background()
	db := open(b)
	const days = 30
	var prev []int64
	b.ResetTimer()
	for i := range b.N {
		imp := gpucost.CostImport{Name: "month.csv", Checksum: fmt.Sprint("month-", i), Format: "focus", Grain: 24 * time.Hour}
		got, err := db.PutCosts(ctx, imp, FleetLines(resources, 0, days), prev)
		if err != nil {
			b.Fatal(err)
		}
		prev = []int64{got.ID}
	}
	b.ReportMetric(float64(days*resources)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

// BenchScanCosts stores a year of daily lines for resources resources, as twelve monthly
// imports (not timed), then scans the year and its last 30 days, summing the cost by team.
func BenchScanCosts(b *testing.B, open Open, resources int) {
	ctx := context.Background()
	db := open(b)
	for m := range 12 {
		from := BenchCostStart.AddDate(0, m, 0)
		days := int(from.AddDate(0, 1, 0).Sub(from) / (24 * time.Hour))
		d0 := int(from.Sub(BenchCostStart) / (24 * time.Hour))
		imp := gpucost.CostImport{Name: fmt.Sprint("month-", m), Checksum: fmt.Sprint("month-", m), Format: "focus", Grain: 24 * time.Hour}
		if _, err := db.PutCosts(ctx, imp, FleetLines(resources, d0, days), nil); err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		f    gpucost.CostFilter
		want int
	}{
		{"year", gpucost.CostFilter{}, 365 * resources},
		{"last-30d", gpucost.CostFilter{From: BenchCostStart.AddDate(0, 0, 365-30)}, 30 * resources},
	} {
		b.Run(c.name, func(b *testing.B) {
			n := 0
			for range b.N {
				n = 0
				byTeam := map[string]int64{}
				err := db.ScanCosts(ctx, c.f, func(l *gpucost.CostLine) error {
					n++
					byTeam[l.Tags["team"]] += l.EffectiveCost.Nanos
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				if n != c.want {
					b.Fatalf("scanned %d lines, want %d", n, c.want)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
		})
	}
}

// BenchScanHours stores 30 days of hour rollups for gpus GPUs (not timed), written a day at a
// time, then scans them all, summing GPU hours.
func BenchScanHours(b *testing.B, open Open, gpus int) {
	ctx := context.Background()
	db := open(b)
	series := make([]*gpucost.Series, gpus)
	for g := range series {
		series[g] = &gpucost.Series{GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x", g), Host: fmt.Sprintf("node%03d", g/8),
			Model: "NVIDIA A100-SXM4-80GB", Index: g % 8}, Labels: gpucost.Labels{"namespace": fmt.Sprint("team", g%7)}}
	}
	const days = 30
	day0 := RollT0.Truncate(24 * time.Hour)
	for d := range days {
		rs := make([]gpucost.Rollup, 0, gpus*24)
		for _, s := range series {
			for h := range 24 {
				hist := make([]uint32, 101)
				hist[(d*7+h*13)%101] = 360
				rs = append(rs, gpucost.Rollup{Series: s, Start: day0.Add(time.Duration(d*24+h) * time.Hour), Width: time.Hour,
					Samples: 360, Coverage: 1<<60 - 1, UtilSum: float64(360 * ((d*7 + h*13) % 101)), UtilMax: 100, UtilP50: 50,
					UtilP95: 95, MemMaxMiB: 40960, MemP95MiB: 40000, MemTotalMiB: 81920, PowerSamples: 360, PowerSum: 360 * 250.5,
					PowerMax: 400, TempMaxC: 70, IdleMask: uint64(h), IdleMinutes: bitsOn(uint64(h)), UtilHist: hist})
			}
		}
		if _, err := db.WriteRollups(ctx, rs); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	n := 0
	for range b.N {
		n = 0
		var hours float64
		if err := db.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
			n++
			hours += r.GPUHours()
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		if n != gpus*days*24 {
			b.Fatalf("scanned %d hour rollups, want %d", n, gpus*days*24)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rollups/s")
}

func bitsOn(v uint64) int {
	n := 0
	for ; v != 0; v &= v - 1 {
		n++
	}
	return n
}
