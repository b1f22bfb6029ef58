// Package sqlitetest builds large gpucost stores for benchmarks: the fleets of the speed targets
// (10,000 GPUs × 30 days of hourly rollups), cached in the system's temporary folder so that
// only the first benchmark run pays for building one.
package sqlitetest

import (
	"context"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

// FixtureVersion changes with the row encoding, so that a cached fixture is rebuilt (4: the
// day rollups, written at ingest; 5: their format 3, migration 32).
const FixtureVersion = 5

// End is where fixtures' data ends: the first hour after it holds no rollup.
var End = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

// HourFleet opens a store holding `days` days of hourly rollups of `series` GPUs ending at End,
// building it if no complete one is cached. Its series are a third idle, a third serving at
// about 20% and a third training at about 95%, 8 to a host, in 13 namespaces.
func HourFleet(tb testing.TB, series, days int) *sqlite.DB {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("gpucost-bench-scan-%d-%d-v%d.db", series, days, FixtureVersion))
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	if done, _ := db.Setting(ctx, "bench_fixture", ""); done == "complete" {
		return db
	}
	db.Close()
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(path + suffix)
	}
	if db, err = sqlite.Open(ctx, path); err != nil {
		tb.Fatal(err)
	}
	start := time.Now()
	rng := rand.New(rand.NewPCG(9, 9))
	const perWrite = 50 // series per WriteRollups call
	for s0 := 0; s0 < series; s0 += perWrite {
		var rs []gpucost.Rollup
		for s := s0; s < min(s0+perWrite, series); s++ {
			rs = append(rs, fleetHours(rng, s, days)...)
		}
		if _, err := db.WriteRollups(ctx, rs); err != nil {
			tb.Fatal(err)
		}
	}
	for _, kv := range [][2]string{{"idle_below", "5"}, {"bench_fixture", "complete"}} {
		if err := db.SetSetting(ctx, kv[0], kv[1]); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := db.SQL().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		tb.Fatal(err)
	}
	info, _ := os.Stat(path)
	tb.Logf("built %s (%d MiB) in %s", path, info.Size()>>20, time.Since(start).Round(time.Second))
	return db
}

// fleetHours returns the hourly rollups of series s at a 10 s interval: an idle GPU, a serving
// one around 20% or a training one around 95%, with its histogram, sums and maxima.
func fleetHours(rng *rand.Rand, s, days int) []gpucost.Rollup {
	series := &gpucost.Series{
		GPU: gpucost.GPU{UUID: fmt.Sprintf("GPU-%08x-bench", s), Host: fmt.Sprintf("node%04d", s/8),
			Model: "NVIDIA A100-SXM4-80GB", Index: s % 8},
		Labels: gpucost.Labels{"namespace": fmt.Sprintf("team%d", s%13), "pod": fmt.Sprintf("pod-%d", s/4)},
	}
	start := End.Add(-time.Duration(days) * 24 * time.Hour)
	center := []int{1, 20, 95}[s%3]
	out := make([]gpucost.Rollup, days*24)
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
		r.UtilP50, r.UtilP95 = gpucost.HistQuantiles(hist)
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
		r.IdleMinutes = bits.OnesCount64(r.IdleMask)
		out[h] = r
	}
	return out
}
