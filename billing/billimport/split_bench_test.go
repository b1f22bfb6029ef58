package billimport

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpucost/gpucost/billing/focusgen"
	"github.com/gpucost/gpucost/internal/usage"
)

// BenchmarkReadSplit reads and aggregates a generated FOCUS bill of fleetRows rows in both
// shapes of issue 21, without storing it: in one part at -cpu 1, in parts side by side (one a
// core, split.go) at -cpu 2 and more. It reports rows/s by wall time and the CPU seconds of a
// read:
//
//	go test ./billing/billimport -run '^$' -bench ReadSplit -benchtime 3x -cpu 1,2
func BenchmarkReadSplit(b *testing.B) {
	for _, shape := range []focusgen.Shape{focusgen.Aggregating, focusgen.Distinct} {
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
		b.Run(fmt.Sprintf("%s/rows=%d", shape, *fleetRows), func(b *testing.B) {
			var cpu time.Duration
			for b.Loop() {
				cpu0 := usage.CPU()
				fr, err := (&Importer{}).readFile(Source{Path: path, Name: "bill.csv"}, Options{}, nil, nil)
				cpu += usage.CPU() - cpu0
				if err != nil {
					b.Fatal(err)
				}
				if fr.agg.Len() != bill.Lines() {
					b.Fatalf("%d lines, want %d", fr.agg.Len(), bill.Lines())
				}
			}
			b.ReportMetric(float64(b.N)*float64(bill.Rows)/b.Elapsed().Seconds(), "rows/s")
			b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
		})
	}
}
