package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite/sqlitetest"
)

// BenchmarkCostPeriods lists the billing periods of a year of daily lines for 10,000 resources
// (3.65 M lines), which an empty report's error names, and scans one month by billing period
// (--month), which reads every chunk's billing period column:
// go test ./sqlite -run XXX -bench 'CostPeriods|ScanCosts' -benchtime 3x
func BenchmarkCostPeriods(b *testing.B) {
	db := sqlitetest.CostYear(b, benchResources)
	defer db.Close()
	ctx := context.Background()
	b.Run("periods", func(b *testing.B) {
		for b.Loop() {
			ps, err := db.CostPeriods(ctx)
			if err != nil {
				b.Fatal(err)
			}
			lines := 0
			for _, p := range ps {
				lines += p.Lines
			}
			if lines != benchDays*benchResources {
				b.Fatalf("CostPeriods count %d lines, want %d", lines, benchDays*benchResources)
			}
		}
	})
	month := time.Date(sqlitetest.CostYearStart.Year(), sqlitetest.CostYearStart.Month()+6, 1, 0, 0, 0, 0, time.UTC)
	f := gpucost.CostFilter{BilledFrom: month, BilledTo: month.AddDate(0, 1, 0)}
	days := int(f.BilledTo.Sub(f.BilledFrom).Hours() / 24)
	b.Run("billed-month", func(b *testing.B) { benchScan(b, db, f, days*benchResources, false) })
}
