package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
)

// BenchmarkIngest measures samples → telemetry.Writer → rollups → a SQLite file, end to end:
// 1,000 GPUs × 1 h at a 10 s interval, in the order an agent polls them. The target is
// ≥ 200 k samples/s: go test ./sqlite -run XXX -bench Ingest
func BenchmarkIngest(b *testing.B) {
	ctx := context.Background()
	samples := polledSamples(1000, time.Hour, 10*time.Second)
	dir := b.TempDir()
	n := 0
	for b.Loop() {
		n++
		db, err := Open(ctx, filepath.Join(dir, fmt.Sprintf("ingest%d.db", n)))
		if err != nil {
			b.Fatal(err)
		}
		w := &telemetry.Writer{Store: db, IdleBelow: 5, Now: func() time.Time { return rollT0.Add(2 * time.Hour) }}
		for i := 0; i < len(samples); i += 1000 { // one poll of 1,000 GPUs at a time
			if err := w.Add(ctx, samples[i:min(i+1000, len(samples))]...); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(ctx); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.ReportMetric(float64(len(samples))*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

// polledSamples returns samples of gpus GPUs, all GPUs at one instant and then the next.
func polledSamples(gpus int, span, interval time.Duration) []gpucost.Sample {
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
			s := gpucost.NewSample(rollT0.Add(at), gs[g])
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

// BenchmarkDecodeRow measures decoding packed day rows of hourly rollups in memory, the part of
// a scan that is not SQLite's.
func BenchmarkDecodeRow(b *testing.B) {
	batch := telemetry.NewBatch(0)
	for _, s := range polledSamples(100, 24*time.Hour, 10*time.Second) {
		batch.Add(s)
	}
	bySeries := map[*gpucost.Series][]gpucost.Rollup{}
	for _, r := range telemetry.Rollup(batch, 5) {
		if r.Width == time.Hour {
			bySeries[r.Series] = append(bySeries[r.Series], r)
		}
	}
	var rows [][]byte
	for _, hours := range bySeries {
		slices.SortFunc(hours, func(a, b gpucost.Rollup) int { return a.Start.Compare(b.Start) })
		rows = append(rows, encodeRow(nil, hours, 1<<24-1))
	}
	rb := &rowBuf{reuse: true}
	n := 0
	for b.Loop() {
		for _, row := range rows {
			if err := decodeRow(row, rb); err != nil {
				b.Fatal(err)
			}
			n += rb.n
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rollups/s")
}
