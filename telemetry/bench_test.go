package telemetry

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// fleetSamples calls emit with realistic samples of gpus GPUs over span, one every interval: a
// utilisation that wanders (busy, serving-like or idle GPUs), memory that steps, power with two
// decimals as nvidia-smi prints it, whole-degree temperatures and pod labels. With interleaved,
// samples come as an agent polls them, all GPUs at one instant and then the next; otherwise one
// GPU's whole span after another.
func fleetSamples(gpus int, span, interval time.Duration, interleaved bool, emit func(gpucost.Sample)) {
	rng := rand.New(rand.NewPCG(7, 11))
	type state struct {
		g      gpucost.GPU
		labels gpucost.Labels
		util   float64
		mem    float64
		base   float64
	}
	st := make([]state, gpus)
	for i := range st {
		st[i] = state{
			g: gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x-0000-0000-0000-%012x", i, i), Host: fmt.Sprintf("node%03d", i/8),
				Model: "NVIDIA A100-SXM4-80GB", Index: i % 8},
			labels: gpucost.Labels{"namespace": fmt.Sprintf("team%d", i%5), "pod": fmt.Sprintf("pod-%d", i/4)},
			base:   []float64{0, 20, 95}[i%3],
			mem:    float64(1024 * (1 + i%60)),
		}
		st[i].util = st[i].base
	}
	next := func(s *state, at time.Duration) gpucost.Sample {
		s.util = min(max(s.util+float64(rng.IntN(11)-5)+(s.base-s.util)/8, 0), 100)
		if rng.IntN(200) == 0 {
			s.mem = float64(1024 * (1 + rng.IntN(79)))
		}
		smp := gpucost.NewSample(t0.Add(at), s.g)
		smp.Labels = s.labels
		smp.Util = float64(int(s.util))
		smp.MemUsedMiB, smp.MemTotalMiB = s.mem, 81920
		smp.PowerW = float64(6000+int(s.util)*300+rng.IntN(100)) / 100
		smp.TempC = float64(35 + int(s.util)/4)
		return smp
	}
	if interleaved {
		for at := time.Duration(0); at < span; at += interval {
			for i := range st {
				emit(next(&st[i], at))
			}
		}
		return
	}
	for i := range st {
		for at := time.Duration(0); at < span; at += interval {
			emit(next(&st[i], at))
		}
	}
}

func fleetBatch(gpus int, span, interval time.Duration, interleaved bool) *Batch {
	b := NewBatch(gpus * int(span/interval))
	fleetSamples(gpus, span, interval, interleaved, b.Add)
	return b
}

// BenchmarkRollup rolls up 1,000 GPUs × 1 h of samples into minute and hour rollups, one GPU
// after another and as an agent polls them (all GPUs at one instant, then the next: the order
// the agent and the dcgm files deliver). The target is ≥ 25 M samples/s on one core in every
// order: go test ./telemetry -run XXX -bench Rollup -cpu 1
func BenchmarkRollup(b *testing.B) {
	cases := []struct {
		name        string
		interval    time.Duration
		interleaved bool
	}{
		{"1000gpu-1h-1s-by-series", time.Second, false},
		{"1000gpu-1h-10s-by-series", 10 * time.Second, false},
		{"1000gpu-1h-10s-as-polled", 10 * time.Second, true},
		{"1000gpu-1h-1s-as-polled", time.Second, true},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			batch := fleetBatch(1000, time.Hour, c.interval, c.interleaved)
			n := batch.Len()
			b.ResetTimer()
			for b.Loop() {
				Rollup(batch, 5) // leaves batch as it is
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkBatchAdd measures filling a Batch from gpucost.Samples, as the Writer does.
func BenchmarkBatchAdd(b *testing.B) {
	var samples []gpucost.Sample
	fleetSamples(100, 10*time.Minute, 10*time.Second, true, func(s gpucost.Sample) { samples = append(samples, s) })
	batch := NewBatch(len(samples))
	for b.Loop() {
		batch.Reset()
		for _, s := range samples {
			batch.Add(s)
		}
	}
	b.ReportMetric(float64(len(samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// BenchmarkWriter measures samples → Writer → rollups → a store that discards them.
func BenchmarkWriter(b *testing.B) {
	var samples []gpucost.Sample
	fleetSamples(100, time.Hour, 10*time.Second, true, func(s gpucost.Sample) { samples = append(samples, s) })
	ctx := context.Background()
	for b.Loop() {
		w := &Writer{Store: discard{}, IdleBelow: 5}
		w.Add(ctx, samples...)
		if err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

type discard struct{}

func (discard) WriteRollups(ctx context.Context, rs []gpucost.Rollup) (gpucost.WriteStats, error) {
	return gpucost.WriteStats{Written: len(rs)}, nil
}

func (discard) ScanRollups(context.Context, time.Duration, gpucost.RollupFilter, func(*gpucost.Rollup) error) error {
	return nil
}
