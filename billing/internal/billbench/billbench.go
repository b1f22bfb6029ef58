// Package billbench measures the bill readers the way an import runs them: read a file and feed
// every cost line to a billing.Aggregator. The target, ≥ 1 M rows/s on one core for CSV,
// is for that whole path, so each reader's BenchmarkReadAggregate calls ReadAggregate.
package billbench

import (
	"runtime"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/internal/usage"
)

// ReadFunc reads a whole bill from data, emitting each line, and returns the rows read.
type ReadFunc func(data []byte, emit func(*gpucost.CostLine) error) (rows int64, err error)

// Read reads data b.N times, emitting to a sink, and reports rows/s, rows/cpu-s (the steadier
// figure on a shared machine), cpu-ns/row and allocs/row: the reader alone, without aggregation.
func Read(b *testing.B, data []byte, read ReadFunc) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var rows int64
	var sink float64
	emit := func(c *gpucost.CostLine) error { sink += c.ConsumedQuantity; return nil }
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := usage.CPU()
	for b.Loop() {
		n, err := read(data, emit)
		if err != nil {
			b.Fatal(err)
		}
		rows += n
	}
	cpu := usage.CPU() - cpu0
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(rows), "cpu-ns/row")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(rows), "allocs/row")
	_ = sink
}

// ReadAggregate reads data b.N times into a fresh Aggregator and reports rows/s, rows/cpu-s (the
// steadier figure on a shared machine) and allocs/row.
func ReadAggregate(b *testing.B, data []byte, read ReadFunc) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var rows int64
	var ms0, ms1 runtime.MemStats
	runtime.ReadMemStats(&ms0)
	cpu0 := usage.CPU()
	for b.Loop() {
		var agg billing.Aggregator
		n, err := read(data, func(l *gpucost.CostLine) error { agg.Add(l); return nil })
		if err != nil {
			b.Fatal(err)
		}
		if agg.Rows() != int(n) {
			b.Fatalf("aggregated %d rows of %d read", agg.Rows(), n)
		}
		rows += n
	}
	cpu := usage.CPU() - cpu0
	runtime.ReadMemStats(&ms1)
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(rows)/cpu.Seconds(), "rows/cpu-s")
	b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/float64(rows), "allocs/row")
}
