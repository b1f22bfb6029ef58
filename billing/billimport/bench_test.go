package billimport

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost/sqlite"
)

// BenchmarkImportFOCUS imports the FOCUS sample's rows repeated 100 times (100,000 rows) into a
// fresh SQLite store: checksum, detection, reading, aggregation, coverage and the store's
// transaction, the whole of gpucost import billing but the command line.
func BenchmarkImportFOCUS(b *testing.B) {
	data := readFile(b, focusSample)
	h := bytes.IndexByte(data, '\n') + 1
	big := bytes.Clone(data[:h])
	for range 100 {
		big = append(big, data[h:]...)
	}
	path := writeFile(b, "focus.csv", big)
	ctx := context.Background()
	b.SetBytes(int64(len(big)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "gpucost.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, err := (&Importer{Store: db}).Import(ctx, []Source{{Path: path}}, Options{}); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.N)*100_000/b.Elapsed().Seconds(), "rows/s")
}
