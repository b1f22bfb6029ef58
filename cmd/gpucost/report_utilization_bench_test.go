package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/usage"
	"github.com/gpucost/gpucost/sqlite/sqlitetest"
)

// BenchmarkReportUtilizationBy is BenchmarkReportUtilization for the groupings it leaves out,
// over the same fleet (sqlitetest.BilledFleet): by host (1,250 groups), model (one) and pod
// (2,500), between its namespace (13) and gpu (10,000), against the same target of ≤ 1 s:
//
//	go test ./cmd/gpucost -run XXX -bench 'ReportUtilizationBy/by=host' -benchtime 3x
func BenchmarkReportUtilizationBy(b *testing.B) {
	for _, by := range []string{"host", "model", "pod"} {
		b.Run("by="+by, func(b *testing.B) {
			db := sqlitetest.BilledFleet(b)
			path := db.Path
			db.Close()
			args := []string{"report", "utilization", "--db", path, "--since", "30d", "--by", by,
				"--until", sqlitetest.End.Format(time.RFC3339), "--output", "csv"}
			cpu := usage.CPU()
			for b.Loop() {
				e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
				if code := run(context.Background(), args, e); code != exitOK {
					b.Fatalf("report utilization --by %s: exit %d", by, code)
				}
			}
			b.ReportMetric((usage.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "MiB-peak-RSS")
		})
	}
}
