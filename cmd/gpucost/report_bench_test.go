package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/usage"
	"github.com/gpucost/gpucost/sqlite/sqlitetest"
)

// BenchmarkReportUtilization runs `gpucost report utilization` end to end — open the store and
// catalog, scan 10,000 GPUs × 30 days of hourly rollups (7.2 M), price them by the bill that
// covers them (sqlitetest.BilledFleet), analyse, print — against issue 21's target of ≤ 1 s and
// < 500 MB peak RSS:
//
//	go test ./cmd/gpucost -run XXX -bench ReportUtilization -benchtime 3x
//
// The store (about 0.4 GB, its day rollups included) is built on first use and cached in the temporary folder.
func BenchmarkReportUtilization(b *testing.B) { benchReportUtilization(b, nil) }

// BenchmarkReportHoursUtilization is BenchmarkReportUtilization reading every hourly rollup, as
// before the day rollups, for a comparison on the same machine and load:
//
//	go test ./cmd/gpucost -run XXX -bench 'ReportHoursUtilization' -benchtime 3x
func BenchmarkReportHoursUtilization(b *testing.B) {
	benchReportUtilization(b, func(s storeDB) storeDB { return hoursOnly{s} })
}

func benchReportUtilization(b *testing.B, wrap func(storeDB) storeDB, bys ...string) {
	if len(bys) == 0 {
		bys = []string{"namespace", "gpu"}
	}
	for _, by := range bys {
		b.Run("by="+by, func(b *testing.B) {
			db := sqlitetest.BilledFleet(b)
			path := db.Path
			db.Close()
			args := []string{"report", "utilization", "--db", path, "--since", "30d", "--by", by,
				"--until", sqlitetest.End.Format(time.RFC3339), "--output", "csv"}
			cpu := usage.CPU()
			for b.Loop() {
				e := &env{stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }, wrapStore: wrap}
				if code := run(context.Background(), args, e); code != exitOK {
					b.Fatalf("report utilization --by %s: exit %d", by, code)
				}
			}
			b.ReportMetric((usage.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "MiB-peak-RSS")
		})
	}
}

// BenchmarkReportCost runs `gpucost report cost` end to end over one year of daily aggregates
// (sqlitetest.CostYear: 12 monthly imports, no telemetry) against the target of < 2 s and
// < 500 MB peak RSS for 10,000 resources (3.65 M stored lines):
//
//	go test ./cmd/gpucost -run XXX -bench 'ReportCost$/resources=10000' -benchtime 1x
//
// resources=1000 (365,000 lines) measures the same path at a tenth of the size. Each store
// (about 90 MB for 10,000 resources) is built on first use and cached in the temporary folder.
// Run one sub-benchmark per process for its peak RSS.
func BenchmarkReportCost(b *testing.B) {
	for _, resources := range []int{1_000, 10_000} {
		for _, args := range [][]string{{"--by", "team"}, {"--by", "gpu-model", "--gpu-only"}, {"--by", "resource"}} {
			b.Run(fmt.Sprintf("resources=%d/%s", resources, strings.Join(args, "")), func(b *testing.B) {
				benchReportCostYear(b, resources, args)
			})
		}
	}
}

func benchReportCostYear(b *testing.B, resources int, by []string) {
	db := sqlitetest.CostYear(b, resources)
	path := db.Path
	db.Close()
	args := append([]string{"report", "cost", "--db", path, "--since", "365d",
		"--until", sqlitetest.CostYearStart.AddDate(1, 0, 0).Format(time.RFC3339), "--output", "csv"}, by...)
	for b.Loop() {
		var out strings.Builder
		e := &env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }, now: time.Now}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("report cost: exit %d", code)
		}
		if !strings.Contains(out.String(), "team-") && !strings.Contains(out.String(), "A100") &&
			!strings.Contains(out.String(), "i-00a1b2c3d4e") {
			b.Fatalf("report cost printed %s", out.String())
		}
	}
	b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "MiB-peak-RSS")
}

// BenchmarkReportCostFleet runs `gpucost report cost` end to end over 10,000 GPUs × 30 days of
// hourly telemetry (7.2 M rollups) and the bill that covers them (sqlitetest.BilledFleet: one
// p4de.24xlarge a host, every day), so that every GPU line is split by the GPUs' telemetry,
// against issue 21's target of ≤ 1 s and < 500 MB peak RSS:
//
//	go test ./cmd/gpucost -run XXX -bench ReportCostFleet -benchtime 3x
func BenchmarkReportCostFleet(b *testing.B) { benchReportCostFleet(b, nil) }

// BenchmarkReportHoursCostFleet is BenchmarkReportCostFleet reading every hourly rollup, as
// before the day rollups, for a comparison on the same machine and load:
//
//	go test ./cmd/gpucost -run XXX -bench 'ReportHoursCostFleet' -benchtime 3x
func BenchmarkReportHoursCostFleet(b *testing.B) {
	benchReportCostFleet(b, func(s storeDB) storeDB { return hoursOnly{s} })
}

func benchReportCostFleet(b *testing.B, wrap func(storeDB) storeDB) {
	for _, args := range [][]string{{"--by", "team"}, {"--by", "namespace", "--gpu-only"}} {
		b.Run(strings.Join(args, ""), func(b *testing.B) {
			db := sqlitetest.BilledFleet(b)
			path := db.Path
			db.Close()
			args := append([]string{"report", "cost", "--db", path, "--since", "30d",
				"--until", sqlitetest.End.Format(time.RFC3339), "--output", "csv"}, args...)
			cpu := usage.CPU()
			for b.Loop() {
				var out strings.Builder
				e := &env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }, now: time.Now, wrapStore: wrap}
				if code := run(context.Background(), args, e); code != exitOK {
					b.Fatalf("report cost: exit %d", code)
				}
				if !strings.Contains(out.String(), "team") {
					b.Fatalf("report cost printed %s", out.String())
				}
			}
			b.ReportMetric((usage.CPU()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "MiB-peak-RSS")
		})
	}
}

// BenchmarkRecommend runs `gpucost recommend` end to end over 10,000 GPUs × 30 days of hourly
// telemetry (7.2 M rollups) and their bill, against the target of < 5 s and < 1 GB RSS:
//
//	go test ./cmd/gpucost -run XXX -bench Recommend -benchtime 3x
func BenchmarkRecommend(b *testing.B) {
	db := sqlitetest.BilledFleet(b)
	path := db.Path
	db.Close()
	args := []string{"recommend", "--db", path, "--since", "30d", "--until", sqlitetest.End.Format(time.RFC3339), "--output", "csv"}
	for b.Loop() {
		var out strings.Builder
		e := &env{stdout: &out, stderr: io.Discard, getenv: func(string) string { return "" }, now: time.Now}
		if code := run(context.Background(), args, e); code != exitOK {
			b.Fatalf("recommend: exit %d", code)
		}
		if !strings.Contains(out.String(), "node") {
			b.Fatalf("recommend printed %s", out.String())
		}
	}
	b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "MiB-peak-RSS")
}
