package sqlite_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
	"github.com/gpucost/gpucost/sqlite/sqlitetest"
)

const (
	scanSeries = 10_000
	scanDays   = 30
)

// BenchmarkScanHours scans 10,000 series × 30 days of hourly rollups (7.2 M) from a SQLite file,
// as `report utilization` does. The target is < 2 s and < 1 GB RSS:
// go test ./sqlite -run XXX -bench ScanHours -benchtime 3x
// The file (about 0.5 GB) is built on first use and kept in the system's temporary folder.
func BenchmarkScanHours(b *testing.B) {
	ctx := context.Background()
	db := sqlitetest.HourFleet(b, scanSeries, scanDays)
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
	b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "MiB-peak-RSS")
}
