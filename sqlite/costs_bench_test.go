package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/usage"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/gpucost/gpucost/sqlite/sqlitetest"
)

// BenchmarkScanCosts scans a year of daily cost lines for 10,000 resources (3.65 M lines), the
// data of the `report cost` target (< 1 s):
// go test ./sqlite -run XXX -bench ScanCosts -benchtime 5x
// The file (about 90 MB) is built on first use and kept in the system's temporary folder.
const (
	benchResources = 10_000
	benchDays      = 365
)

func BenchmarkScanCosts(b *testing.B) {
	db := sqlitetest.CostYear(b, benchResources)
	defer db.Close()
	last30 := sqlitetest.CostYearStart.AddDate(0, 0, benchDays-30)
	for _, bb := range []struct {
		name  string
		f     gpucost.CostFilter
		want  int
		group bool
	}{
		{"year", gpucost.CostFilter{}, benchDays * benchResources, false},
		{"year-by-team", gpucost.CostFilter{}, benchDays * benchResources, true},
		{"last-30d", gpucost.CostFilter{From: last30}, 30 * benchResources, false},
	} {
		b.Run(bb.name, func(b *testing.B) { benchScan(b, db, bb.f, bb.want, bb.group) })
	}
}

// benchScan scans db for f, summing the billed cost, by team if group is set.
func benchScan(b *testing.B, db *sqlite.DB, f gpucost.CostFilter, want int, group bool) {
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu0 := usage.CPU()
	lines := 0
	for b.Loop() {
		lines = 0
		var billed int64
		byTeam := map[string]int64{}
		err := db.ScanCosts(ctx, f, func(l *gpucost.CostLine) error {
			lines++
			billed += l.BilledCost.Nanos
			if group {
				byTeam[l.Tags["team"]] += l.EffectiveCost.Nanos
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if lines != want || billed <= 0 {
			b.Fatalf("scanned %d lines (billed %d), want %d", lines, billed, want)
		}
	}
	cpu := usage.CPU() - cpu0
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MB-alloc/op")
}

// BenchmarkPutCosts stores a month of daily lines for 10,000 resources (300,000 lines), and a
// million lines (40,000 resources × 25 days), as one import, replacing the previous one:
// go test ./sqlite -run XXX -bench PutCosts -benchtime 3x
func BenchmarkPutCosts(b *testing.B) {
	for _, size := range []struct{ resources, days int }{{benchResources, 30}, {40_000, 25}} {
		b.Run(fmt.Sprint("lines=", size.resources*size.days), func(b *testing.B) { benchPutCosts(b, size.resources, size.days) })
	}
}

func benchPutCosts(b *testing.B, resources, days int) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "gpucost.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	fleet := sqlitetest.NewCostFleet(resources)
	var prev []int64
	i := 0
	cpu0 := usage.CPU()
	for b.Loop() {
		imp := gpucost.CostImport{Name: "month.csv", Checksum: fmt.Sprint("month-", i), Format: "focus", Grain: 24 * time.Hour}
		got, err := db.PutCosts(ctx, imp, fleet.Lines(0, days), prev)
		if err != nil {
			b.Fatal(err)
		}
		prev, i = []int64{got.ID}, i+1
	}
	cpu := usage.CPU() - cpu0
	lines := float64(days*resources) * float64(b.N)
	b.ReportMetric(lines/b.Elapsed().Seconds(), "lines/s")
	b.ReportMetric(lines/cpu.Seconds(), "lines/cpu-s")
	b.ReportMetric(b.Elapsed().Seconds()/lines*1e6, "wall-s/M")
	b.ReportMetric(cpu.Seconds()/lines*1e6, "cpu-s/M")
}
