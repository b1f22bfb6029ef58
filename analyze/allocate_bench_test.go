package analyze

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
)

// The brief's scale: 10,000 resources × 24 hours × 8 GPUs = 1.92 M hour rollups.
const (
	allocBenchHosts = 10_000
	allocBenchGPUs  = 8
	allocBenchHours = 24
)

// allocBench is a day of telemetry of 10,000 eight-GPU instances, one pod per GPU pair, and one
// daily cost line per instance, streamed the way a store streams them: a reused *Rollup.
type allocBench struct {
	series []*gpucost.Series
	hosts  []string
	starts [allocBenchHours]time.Time
	r      gpucost.Rollup
}

func newAllocBench() *allocBench {
	b := &allocBench{}
	for h := range allocBenchHosts {
		host := fmt.Sprintf("node-%05d", h)
		b.hosts = append(b.hosts, host)
		for g := range allocBenchGPUs {
			s := series(fmt.Sprintf("GPU-%05d-%d", h, g), host, "NVIDIA A100-SXM4-80GB",
				gpucost.Labels{"namespace": fmt.Sprintf("team-%02d", h%20), "pod": fmt.Sprintf("pod-%d-%d", h, g/2)})
			b.series = append(b.series, s)
		}
	}
	for i := range b.starts {
		b.starts[i] = t0.Add(time.Duration(i) * time.Hour)
	}
	return b
}

// add feeds every rollup, series after series, and returns how many.
func (b *allocBench) add(a *Allocator) int {
	n := 0
	for i, s := range b.series {
		for h, start := range b.starts {
			b.r = gpucost.Rollup{Series: s, Start: start, Width: time.Hour, Coverage: allMinutes, Samples: 360,
				UtilSum: float64(360 * ((i + h*7) % 100))}
			if h < 2 && i%3 == 0 {
				b.r.Coverage >>= 20 // some partial hours
			}
			a.AddRollup(&b.r)
			n++
		}
	}
	return n
}

func (b *allocBench) line(h int) gpucost.CostLine {
	return gpucost.CostLine{ResourceID: b.hosts[h], BilledCost: usd("786.48"), EffectiveCost: usd("503.35"),
		ChargePeriodStart: t0, ChargePeriodEnd: t0.Add(24 * time.Hour), ConsumedQuantity: 24, ConsumedUnit: "Hrs",
		Tags: gpucost.Labels{"user:team": "inference"}}
}

// BenchmarkAllocatorAddRollup measures keeping one hour rollup; bytes/rollup is the heap the
// Allocator holds per rollup once the index is built.
func BenchmarkAllocatorAddRollup(b *testing.B) {
	f := newAllocBench()
	var n int
	var held uint64
	var cpu time.Duration
	for b.Loop() {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cpu0 := usage.CPU()
		a, _ := NewAllocator(AllocOptions{Policy: gpucost.PolicyUsed})
		n = f.add(a)
		a.tel.index()
		cpu += usage.CPU() - cpu0
		runtime.GC()
		runtime.ReadMemStats(&after)
		held = after.HeapAlloc - before.HeapAlloc
		runtime.KeepAlive(a)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rollup")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/float64(n), "cpu-ns/rollup")
	b.ReportMetric(float64(held)/float64(n), "bytes/rollup")
}

// BenchmarkAllocate measures allocating one cost line over the fleet's telemetry: daily lines
// (8 GPUs × 24 hours each) and hourly lines. The index is built before the timer starts.
func BenchmarkAllocate(b *testing.B) {
	f := newAllocBench()
	for _, policy := range []string{gpucost.PolicyRequested, gpucost.PolicyUsed, gpucost.PolicyWeighted} {
		a, err := NewAllocator(AllocOptions{Policy: policy})
		if err != nil {
			b.Fatal(err)
		}
		f.add(a)
		a.tel.index()
		lines := make([]gpucost.CostLine, allocBenchHosts)
		for h := range lines {
			lines[h] = f.line(h)
		}
		res := Resource{Hosts: []string{""}, GPUs: allocBenchGPUs}
		count := 0
		emit := func(*gpucost.Allocation) { count++ }
		b.Run("daily/"+policy, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := usage.CPU()
			for n := 0; b.Loop(); n++ {
				h := n % allocBenchHosts
				res.Hosts[0] = f.hosts[h]
				if st := a.Allocate(&lines[h], res, emit); !st.Matched {
					b.Fatal("no telemetry matched")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
			b.ReportMetric(float64((usage.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/line")
		})
		b.Run("hourly/"+policy, func(b *testing.B) {
			b.ReportAllocs()
			cpu0 := usage.CPU()
			var l gpucost.CostLine
			for n := 0; b.Loop(); n++ {
				h := n % allocBenchHosts
				l = lines[h]
				l.ChargePeriodStart = t0.Add(time.Duration(n/allocBenchHosts%allocBenchHours) * time.Hour)
				l.ChargePeriodEnd, l.ConsumedQuantity = l.ChargePeriodStart.Add(time.Hour), 1
				res.Hosts[0] = f.hosts[h]
				a.Allocate(&l, res, emit)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/line")
			b.ReportMetric(float64((usage.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/line")
		})
	}
}

// BenchmarkAllocatorFleet measures the whole job: 1.92 M rollups in, index, and one daily line
// per instance allocated (10,000 lines).
func BenchmarkAllocatorFleet(b *testing.B) {
	f := newAllocBench()
	res := Resource{Hosts: []string{""}, GPUs: allocBenchGPUs}
	lines := make([]gpucost.CostLine, allocBenchHosts)
	for h := range lines {
		lines[h] = f.line(h)
	}
	b.ReportAllocs()
	cpu0 := usage.CPU()
	for b.Loop() {
		a, _ := NewAllocator(AllocOptions{Policy: gpucost.PolicyUsed})
		f.add(a)
		for h := range lines {
			res.Hosts[0] = f.hosts[h]
			a.Allocate(&lines[h], res, func(*gpucost.Allocation) {})
		}
	}
	reportCPU(b, cpu0)
}
