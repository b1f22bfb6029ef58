package billimport

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focusgen"
	"github.com/gpucost/gpucost/internal/usage"
	"github.com/gpucost/gpucost/sqlite"
)

// fleetRows sizes BenchmarkImportFleet's bills: 1 M rows unless asked for more (10 M for the
// issue's second figure, as hack/bench-duckdb runs it).
var fleetRows = flag.Int("fleet.rows", 1_000_000, "rows of BenchmarkImportFleet's generated bills")

// timedStore is a Store that measures the live heap when PutCostBatch is called (every line
// aggregated, none stored) and how long the store's transaction takes.
type timedStore struct {
	Store
	heap       uint64
	store, cpu time.Duration // wall and CPU time of the transaction
}

func (s *timedStore) PutCostBatch(ctx context.Context, puts []gpucost.CostPut) ([]gpucost.CostImport, error) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.heap = m.HeapAlloc
	t, cpu0 := time.Now(), usage.CPU()
	defer func() { s.store, s.cpu = time.Since(t), usage.CPU()-cpu0 }()
	return s.Store.PutCostBatch(ctx, puts)
}

// BenchmarkImportFleet imports a generated FOCUS bill of fleetRows rows (billing/focusgen) into
// a fresh SQLite store, in both shapes of issue 21: hourly rows that aggregate about 24 to a
// line, and daily rows of which every one is its own line. It reports rows/s of the whole
// import, the seconds the store's transaction took, the heap held per line when the lines are
// stored (above the heap before the import) and the process's peak RSS; store-cpu-s, the CPU
// time of the transaction (the collector's too), is the steadier figure on a shared machine:
//
//	go test ./billing/billimport -run '^$' -bench ImportFleet -benchtime 1x
//	go test ./billing/billimport -run '^$' -bench ImportFleet -benchtime 1x -args -fleet.rows 10000000
func BenchmarkImportFleet(b *testing.B) {
	for _, shape := range []focusgen.Shape{focusgen.Aggregating, focusgen.Distinct} {
		b.Run(fmt.Sprintf("%s/rows=%d", shape, *fleetRows), func(b *testing.B) {
			bill := focusgen.Bill{Rows: *fleetRows, Shape: shape}
			path := filepath.Join(b.TempDir(), "bill.csv")
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := bill.WriteTo(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
			ctx := context.Background()
			var store, storeCPU, elapsed time.Duration
			var held uint64
			for range b.N {
				b.StopTimer()
				db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "gpucost.db"))
				if err != nil {
					b.Fatal(err)
				}
				ts := &timedStore{Store: db}
				runtime.GC()
				var m0 runtime.MemStats
				runtime.ReadMemStats(&m0)
				b.StartTimer()
				t := time.Now()
				res, err := (&Importer{Store: ts}).Import(ctx, []Source{{Path: path}}, Options{NoSource: true})
				elapsed += time.Since(t)
				b.StopTimer()
				if err == nil && res[0].Err != nil {
					err = res[0].Err
				}
				if err != nil {
					b.Fatal(err)
				}
				if res[0].Lines != bill.Lines() {
					b.Fatalf("%d lines stored, want %d", res[0].Lines, bill.Lines())
				}
				store += ts.store
				storeCPU += ts.cpu
				held = ts.heap - min(ts.heap, m0.HeapAlloc)
				db.Close()
			}
			b.ReportMetric(float64(b.N)*float64(bill.Rows)/elapsed.Seconds(), "rows/s")
			b.ReportMetric(store.Seconds()/float64(b.N), "store-s")
			b.ReportMetric(storeCPU.Seconds()/float64(b.N), "store-cpu-s")
			b.ReportMetric(float64(held)/float64(bill.Lines()), "held-B/line")
			b.ReportMetric(float64(usage.PeakRSS())/(1<<20), "peak-RSS-MiB")
		})
	}
}
