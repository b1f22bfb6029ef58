package sqlite

import (
	"slices"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/storetest"
	"github.com/gpucost/gpucost/telemetry"
)

// BenchmarkDecodeRow measures decoding packed day rows of hourly rollups in memory, the part of
// a scan that is not SQLite's.
func BenchmarkDecodeRow(b *testing.B) {
	batch := telemetry.NewBatch(0)
	for _, s := range storetest.PolledSamples(100, 24*time.Hour, 10*time.Second) {
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
