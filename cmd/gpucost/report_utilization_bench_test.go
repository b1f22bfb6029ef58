package main

import "testing"

// BenchmarkReportUtilizationBy is BenchmarkReportUtilization for the groupings it leaves out,
// over the same fleet (sqlitetest.BilledFleet): by host (1,250 groups), model (one) and pod
// (2,500), between its namespace (13) and gpu (10,000), against the same target of ≤ 1 s:
//
//	go test ./cmd/gpucost -run XXX -bench 'ReportUtilizationBy/by=host' -benchtime 3x
func BenchmarkReportUtilizationBy(b *testing.B) {
	benchReportUtilization(b, nil, "host", "model", "pod")
}
