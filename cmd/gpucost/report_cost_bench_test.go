package main

import (
	"strings"
	"testing"

	"github.com/gpucost/gpucost/internal/usage"
)

// BenchmarkReportCostYear is BenchmarkReportCost at 10,000 resources (3.65 M stored lines, no
// telemetry) with each report's CPU time beside its wall time, against the target of < 2 s and
// < 500 MB peak RSS, one sub-benchmark a process for its RSS:
//
//	go test ./cmd/gpucost -run XXX -bench 'ReportCostYear/^--byresource$' -benchtime 1x
//
// cpu-s/op is the process's CPU over the loop ÷ b.N, the store's opening included.
func BenchmarkReportCostYear(b *testing.B) {
	for _, by := range [][]string{{"--by", "team"}, {"--by", "gpu-model", "--gpu-only"}, {"--by", "resource"}} {
		b.Run(strings.Join(by, ""), func(b *testing.B) {
			cpu := usage.CPU()
			benchReportCostYear(b, 10_000, by)
			b.ReportMetric((usage.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
