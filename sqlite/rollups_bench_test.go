package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
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

const (
	scanSeries     = 10_000
	scanDays       = 30
	fixtureVersion = 2 // change with the row encoding, so that a cached fixture is rebuilt
)

// BenchmarkScanHours scans 10,000 series × 30 days of hourly rollups (7.2 M) from a SQLite file,
// as `report utilization` does. The target is < 2 s and < 1 GB RSS:
// go test ./sqlite -run XXX -bench ScanHours -benchtime 3x
// The file (about 0.5 GB) is built on first use and kept in the system's temporary folder.
func BenchmarkScanHours(b *testing.B) {
	ctx := context.Background()
	db := scanFixture(b)
	var ms runtime.MemStats
	var rollups int
	for b.Loop() {
		rollups = 0
		var gpuHours, utilSum float64
		var hist uint64
		err := db.ScanRollups(ctx, time.Hour, gpucost.RollupFilter{}, func(r *gpucost.Rollup) error {
			rollups++
			gpuHours += r.GPUHours()
			utilSum += r.UtilSum
			hist += uint64(r.UtilHist[int(r.UtilP95)])
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if rollups != scanSeries*scanDays*24 || gpuHours <= 0 || hist == 0 {
			b.Fatalf("scanned %d rollups (%.0f GPU-hours), want %d", rollups, gpuHours, scanSeries*scanDays*24)
		}
	}
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(rollups)*float64(b.N)/b.Elapsed().Seconds(), "rollups/s")
	b.ReportMetric(float64(ms.Sys)/(1<<20), "MiB-go-sys")
	b.ReportMetric(float64(peakRSS())/(1<<20), "MiB-peak-RSS")
}

// peakRSS returns the process's peak resident set size in bytes, 0 if unknown.
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// scanFixture opens the scan benchmark's database, building it if no complete one is cached.
func scanFixture(b *testing.B) *DB {
	b.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("gpucost-bench-scan-%d-%d-v%d.db", scanSeries, scanDays, fixtureVersion))
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	if done, _ := db.Setting(ctx, "bench_fixture", ""); done == "complete" {
		return db
	}
	db.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	if db, err = Open(ctx, path); err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(9, 9))
	const perWrite = 50 // series per WriteRollups call
	for s0 := 0; s0 < scanSeries; s0 += perWrite {
		var rs []gpucost.Rollup
		for s := s0; s < s0+perWrite; s++ {
			rs = append(rs, fixtureHours(rng, s)...)
		}
		if _, err := db.WriteRollups(ctx, rs); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.SetSetting(ctx, "bench_fixture", "complete"); err != nil {
		b.Fatal(err)
	}
	if _, err := db.SQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		b.Fatal(err)
	}
	info, _ := os.Stat(path)
	b.Logf("built %s (%d MiB) in %s", path, info.Size()>>20, time.Since(start).Round(time.Second))
	return db
}

// fixtureHours returns 30 days of hourly rollups of series s at a 10 s interval: an idle GPU, a
// serving one around 20% or a training one around 95%, with its histogram, sums and maxima.
func fixtureHours(rng *rand.Rand, s int) []gpucost.Rollup {
	series := &gpucost.Series{
		GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x-bench", s), Host: fmt.Sprintf("node%04d", s/8),
			Model: "NVIDIA A100-SXM4-80GB", Index: s % 8},
		Labels: gpucost.Labels{"namespace": fmt.Sprintf("team%d", s%13), "pod": fmt.Sprintf("pod-%d", s/4)},
	}
	start := rollT0.Add(-scanDays * 24 * time.Hour).Truncate(24 * time.Hour)
	center := []int{1, 20, 95}[s%3]
	out := make([]gpucost.Rollup, scanDays*24)
	for h := range out {
		hist := make([]uint32, 101)
		c := min(max(center+rng.IntN(11)-5, 0), 100)
		spread := 1 + rng.IntN(8)
		var n int
		var sum float64
		for n < 360 {
			v := min(max(c+rng.IntN(2*spread+1)-spread, 0), 100)
			k := min(1+rng.IntN(40), 360-n)
			hist[v] += uint32(k)
			n += k
			sum += float64(v * k)
		}
		r := gpucost.Rollup{Series: series, Start: start.Add(time.Duration(h) * time.Hour), Width: time.Hour,
			Samples: 360, Coverage: 1<<60 - 1, UtilSum: sum, UtilHist: hist,
			MemMaxMiB: float64(1024 * (1 + s%79)), MemP95MiB: float64(1024 * (1 + s%79)), MemTotalMiB: 81920,
			PowerSamples: 360, PowerSum: float64(60000+rng.IntN(9000000)) / 100 * 1.0001, PowerMax: float64(20000+rng.IntN(20000)) / 100,
			TempMaxC: float64(40 + rng.IntN(40))}
		r.UtilP50, r.UtilP95 = telemetry.HistQuantiles(hist)
		for v := 100; v >= 0; v-- {
			if hist[v] > 0 {
				r.UtilMax = float64(v)
				break
			}
		}
		switch {
		case center < 5:
			r.IdleMask = r.Coverage
		case center < 50:
			r.IdleMask = rng.Uint64() & rng.Uint64() & r.Coverage // some idle minutes
		}
		r.IdleMinutes = popcount(r.IdleMask)
		out[h] = r
	}
	return out
}

func popcount(v uint64) int { return bitsOnes(v) }

// BenchmarkDecodeRow measures decoding packed day rows of hourly rollups in memory, the part of
// a scan that is not SQLite's.
func BenchmarkDecodeRow(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 9))
	var rows [][]byte
	for s := range 100 {
		hours := fixtureHours(rng, s)
		for d := 0; d < len(hours); d += 24 {
			rows = append(rows, encodeRow(nil, hours[d:d+24], 1<<24-1))
		}
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
