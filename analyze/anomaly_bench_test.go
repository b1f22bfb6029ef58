package analyze

import (
	"fmt"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
)

// The brief's scale: a year of daily costs of 200 scopes × 50 resources, 3.65 M points.
const (
	anomalyBenchDays      = 365
	anomalyBenchScopes    = 200
	anomalyBenchResources = 50
	anomalyBenchPoints    = anomalyBenchDays * anomalyBenchScopes * anomalyBenchResources
)

// anomalyBill is a synthetic year of a bill: GPU instances billed flat, a fifth of them off at
// weekends, a few cents of variation per line, and one spike per scope — its first resource
// costing $2,400 more on one day, a spike above even the weekday level when it falls on a weekend.
type anomalyBill struct {
	scopes, resources []string
	skus              [2]string
	days              []time.Time
	base              []int64 // nano-dollars a day per resource
}

func newAnomalyBill() *anomalyBill {
	b := &anomalyBill{skus: [2]string{"BoxUsage:p4d.24xlarge", "EBS:VolumeUsage.gp3"}}
	for s := range anomalyBenchScopes {
		b.scopes = append(b.scopes, fmt.Sprintf("team=t%03d", s))
	}
	for r := range anomalyBenchResources {
		b.resources = append(b.resources, fmt.Sprintf("i-%016x", r*7919))
		b.base = append(b.base, int64(24*(1+r%8))*1e9)
	}
	for d := range anomalyBenchDays {
		b.days = append(b.days, a0.AddDate(0, 0, d))
	}
	return b
}

// options judge the whole year, as `gpucost report anomalies --since 365d` would.
func (b *anomalyBill) options() AnomalyOptions {
	return AnomalyOptions{From: b.days[0], To: b.days[len(b.days)-1].AddDate(0, 0, 1)}
}

// spikeDay is the day on which scope s spikes.
func (b *anomalyBill) spikeDay(s int) int { return 30 + s*7%(anomalyBenchDays-30) }

// point returns the cost line of resource r in scope s on day d.
func (b *anomalyBill) point(d, s, r int) CostPoint {
	cost := b.base[r] + int64((d*31+s*17+r*7)%100)*1e7 // up to 99 cents of variation
	if r%5 == 4 && (d%7 == 5 || d%7 == 6) {            // off at weekends (a0 is a Monday)
		cost = 0
	}
	if r == 0 && d == b.spikeDay(s) {
		cost += 2400e9
	}
	return CostPoint{Day: b.days[d], Scope: b.scopes[s], ResourceID: b.resources[r], SkuID: b.skus[r%2],
		Cost: gpucost.USD(cost)}
}

// feed adds the whole year to d, day by day (as a daily bill arrives) or scope by scope.
func (b *anomalyBill) feed(d *Detector, byScope bool) {
	if byScope {
		for s := range anomalyBenchScopes {
			for day := range anomalyBenchDays {
				for r := range anomalyBenchResources {
					d.Add(b.point(day, s, r))
				}
			}
		}
		return
	}
	for day := range anomalyBenchDays {
		for s := range anomalyBenchScopes {
			for r := range anomalyBenchResources {
				d.Add(b.point(day, s, r))
			}
		}
	}
}

// check fails b unless every scope's spike is found, and reports the anomalies per op.
func (b *anomalyBill) check(tb *testing.B, rep AnomalyReport) {
	found := make(map[string]bool)
	for _, a := range rep.Anomalies {
		for s, scope := range b.scopes {
			if a.Scope == scope && a.Day.Equal(b.days[b.spikeDay(s)]) && a.Drivers[0].ResourceID == b.resources[0] {
				found[scope] = true
			}
		}
	}
	if len(found) != anomalyBenchScopes || rep.Judged != anomalyBenchScopes*(anomalyBenchDays-7) {
		tb.Fatalf("found the spikes of %d scopes after judging %d scope-days; want %d, %d",
			len(found), rep.Judged, anomalyBenchScopes, anomalyBenchScopes*(anomalyBenchDays-7))
	}
	tb.ReportMetric(float64(len(rep.Anomalies)), "anomalies")
}

// BenchmarkAnomalyYear measures a whole anomaly report over the year: every Add and Result.
func BenchmarkAnomalyYear(b *testing.B) {
	bill := newAnomalyBill()
	for _, order := range []string{"by-day", "by-scope"} {
		b.Run(order, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := usage.CPU()
			var rep AnomalyReport
			for b.Loop() {
				d := NewDetector(bill.options())
				bill.feed(d, order == "by-scope")
				rep = d.Result()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/anomalyBenchPoints, "ns/point")
			b.ReportMetric((usage.CPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			bill.check(b, rep)
		})
	}
}

// BenchmarkAnomalyResult measures Result alone over the year's points, added once.
func BenchmarkAnomalyResult(b *testing.B) {
	bill := newAnomalyBill()
	d := NewDetector(bill.options())
	bill.feed(d, false)
	b.ReportAllocs()
	var rep AnomalyReport
	for b.Loop() {
		rep = d.Result()
	}
	bill.check(b, rep)
}
