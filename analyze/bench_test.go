package analyze

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
)

// The scale: 10,000 GPUs × 30 days of hourly rollups = 7.2 M rollups.
const (
	benchGPUs  = 10_000
	benchHours = 30 * 24
)

// benchFleet is a synthetic fleet streamed the way a store streams it: one reused *Rollup,
// series after series, hour after hour.
type benchFleet struct {
	series []*gpucost.Series
	hours  [24]gpucost.Rollup // one template per hour of the day: idle nights, busy days
	starts [benchHours]time.Time
	r      gpucost.Rollup
}

func newBenchFleet(n int) *benchFleet {
	f := &benchFleet{}
	models := []string{"NVIDIA A100-SXM4-80GB", "NVIDIA H100 80GB HBM3", "Tesla V100-SXM2-16GB", "NVIDIA L4"}
	for i := range n {
		s := series(fmt.Sprintf("GPU-%08d", i), fmt.Sprintf("node-%04d", i/8), models[i%len(models)],
			gpucost.Labels{"namespace": fmt.Sprintf("team-%02d", i%20), "pod": fmt.Sprintf("pod-%d", i/4)})
		if i%50 == 0 { // some MIG instances
			s.GPU.Parent, s.GPU.Profile = s.GPU.UUID, "3g.40gb"
			s.GPU.UUID = "MIG-" + s.GPU.UUID
		}
		f.series = append(f.series, s)
	}
	for h := range 24 {
		utils := repeat(0, 60)
		if h >= 8 && h < 19 {
			for m := range utils {
				utils[m] = float64(40 + (h*13+m*7)%60)
			}
		}
		r := hour(nil, t0, utils...)
		r.MemMaxMiB, r.MemP95MiB, r.MemTotalMiB = 40000, 38000, 81920
		r.PowerSamples, r.PowerSum, r.PowerMax = 60, 60*250, 300
		r.TempMaxC = 70
		f.hours[h] = *r
	}
	for h := range f.starts {
		f.starts[h] = t0.Add(time.Duration(h) * time.Hour)
	}
	return f
}

// rollup returns the reused rollup filled for the n-th rollup of the stream.
func (f *benchFleet) rollup(n int) *gpucost.Rollup {
	i, h := n/benchHours%len(f.series), n%benchHours
	f.r = f.hours[h%24]
	f.r.Series = f.series[i]
	f.r.Start = f.starts[h]
	return &f.r
}

func benchOptions() Options {
	price := usd("3.06")
	return Options{By: GroupBy{Kind: ByLabel, Label: "namespace"}, IdleThreshold: testIdleBelow,
		Normalize: func(m string) string { return strings.TrimPrefix(m, "NVIDIA ") },
		Price:     func(s *gpucost.Series) (gpucost.Money, bool) { return price, true }}
}

// BenchmarkUtilizationAdd measures one Add of an hourly rollup.
func BenchmarkUtilizationAdd(b *testing.B) {
	f := newBenchFleet(benchGPUs)
	u := NewUtilization(benchOptions())
	b.ReportAllocs()
	cpu0 := usage.CPU()
	for n := 0; b.Loop(); n++ {
		u.Add(f.rollup(n))
	}
	reportCPU(b, cpu0)
	if rep := u.Result(); rep.Fleet.GPUHours == 0 {
		b.Fatal("no GPU-hours")
	}
}

// BenchmarkUtilizationFleet measures a whole report over 10,000 GPUs × 30 days (7.2 M Adds and
// Result); B/op is the accumulator's memory.
func BenchmarkUtilizationFleet(b *testing.B) {
	f := newBenchFleet(benchGPUs)
	b.ReportAllocs()
	cpu0 := usage.CPU()
	for b.Loop() {
		u := NewUtilization(benchOptions())
		for n := range benchGPUs * benchHours {
			u.Add(f.rollup(n))
		}
		if rep := u.Result(); len(rep.Groups) != 20 || rep.Fleet.GPUs != benchGPUs {
			b.Fatalf("Result() = %d groups, %d GPUs; want 20, %d", len(rep.Groups), rep.Fleet.GPUs, benchGPUs)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(benchGPUs*benchHours), "ns/add")
	b.ReportMetric((usage.CPU()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// reportCPU adds the CPU time per op since cpu0: steadier than wall time on a shared machine.
func reportCPU(b *testing.B, cpu0 time.Duration) {
	b.ReportMetric(float64((usage.CPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkIdleAdd measures one Add of an hourly rollup to an idle-period analysis.
func BenchmarkIdleAdd(b *testing.B) {
	f := newBenchFleet(benchGPUs)
	d := NewIdle(benchOptions())
	b.ReportAllocs()
	cpu0 := usage.CPU()
	for n := 0; b.Loop(); n++ {
		d.Add(f.rollup(n))
	}
	reportCPU(b, cpu0)
}

// BenchmarkAlertsAdd measures evaluating the six default rules on one minute rollup of a fleet
// whose GPUs idle 8 hours a night (one gpu_underutilized alert per GPU and day) and run hot for
// 10 minutes every 4 hours (a gpu_hot alert each time).
func BenchmarkAlertsAdd(b *testing.B) {
	const gpus, minutes = 1000, 24 * 60
	f := newBenchFleet(gpus)
	e, err := EvaluateAlerts(DefaultRules(), t0.Add(minutes*time.Minute), func(string) (float64, bool) { return 400, true })
	if err != nil {
		b.Fatal(err)
	}
	var starts [minutes]time.Time
	for m := range starts {
		starts[m] = t0.Add(time.Duration(m) * time.Minute)
	}
	r := minuteRollup(nil, t0, minute{util: 70, memPct: 50, temp: 60, powerW: 250, smOcc: 0.7})
	b.ReportAllocs()
	cpu0 := usage.CPU()
	for n := 0; b.Loop(); n++ {
		i, m := n/minutes%gpus, n%minutes
		r.Series = f.series[i]
		r.Start = starts[m]
		r.UtilSum = 70
		if m < 8*60 {
			r.UtilSum = 0
		}
		r.TempMaxC = 70
		if m%240 < 10 {
			r.TempMaxC = 90
		}
		e.Add(r)
	}
	reportCPU(b, cpu0)
}
