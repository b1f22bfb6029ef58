package azure

import (
	"bytes"
	"encoding/csv"
	"io"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billbench"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Benchmarks carry the target for CSV bills, ≥ 1 M rows/s on one core
// (go test ./billing/azure -run XXX -bench . -cpu 1), on a generated 100,000-row file: 2,000 GPU
// VMs over 30 days in the full EA (57 columns) and MCA (65 columns) schemas.

const benchRows = 100_000

var benchFiles = struct {
	sync.Once
	ea, mca []byte
}{}

func benchData(b *testing.B, mca bool) []byte {
	benchFiles.Do(func() {
		var err error
		if benchFiles.ea, err = io.ReadAll(newCostGen(false, benchRows, 2_000)); err == nil {
			benchFiles.mca, err = io.ReadAll(newCostGen(true, benchRows, 2_000))
		}
		if err != nil {
			b.Fatal(err)
		}
	})
	if mca {
		return benchFiles.mca
	}
	return benchFiles.ea
}

// benchRead reads data b.N times and reports rows per second (billbench.Read).
func benchRead(b *testing.B, data []byte, read func(data []byte, emit func(*gpucost.CostLine) error) (Stats, error)) {
	billbench.Read(b, data, func(data []byte, emit func(*gpucost.CostLine) error) (int64, error) {
		st, err := read(data, emit)
		return int64(st.Rows), err
	})
}

func readCSVBytes(data []byte, emit func(*gpucost.CostLine) error) (Stats, error) {
	return Read(bytes.NewReader(data), "bench.csv", emit)
}

func BenchmarkRead(b *testing.B) {
	for _, s := range []struct {
		name string
		mca  bool
	}{{"EA", false}, {"MCA", true}} {
		b.Run(s.name, func(b *testing.B) { benchRead(b, benchData(b, s.mca), readCSVBytes) })
	}
}

func BenchmarkReadGzip(b *testing.B) {
	data := billtest.Gzip(b, benchData(b, false))
	benchRead(b, data, readCSVBytes)
}

// BenchmarkBaselineEncodingCSV splits the same EA file with encoding/csv and does nothing else:
// the yardstick docs/architecture.md quotes (~1 M rows/s/core for narrow rows), on these wide rows.
func BenchmarkBaselineEncodingCSV(b *testing.B) {
	benchRead(b, benchData(b, false), func(data []byte, _ func(*gpucost.CostLine) error) (Stats, error) {
		cr := csv.NewReader(bytes.NewReader(data))
		cr.ReuseRecord = true
		n := -1
		for {
			if _, err := cr.Read(); err == io.EOF {
				return Stats{Stats: totals.Stats{Rows: n}}, nil
			} else if err != nil {
				return Stats{}, err
			}
			n++
		}
	})
}

// TestGeneratedFile checks that the benchmark's file reads whole and sums as generated.
func TestGeneratedFile(t *testing.T) {
	for _, mca := range []bool{false, true} {
		st, err := Read(newCostGen(mca, 2_000, 100), "gen.csv", func(*gpucost.CostLine) error { return nil })
		if err != nil || st.Rows != 2_000 || st.Totals["USD"].Source.IsZero() {
			t.Fatalf("Read(generated, mca %v) = %+v, %v", mca, st, err)
		}
		if (st.Schema == SchemaMCA) != mca || st.Dataset != Actual {
			t.Errorf("generated file: schema %s dataset %q, want MCA %v and actual", st.Schema, st.Dataset, mca)
		}
	}
}

// BenchmarkReadAggregate reads the CSV benchmark file into a billing.Aggregator, as an import
// does: the target is ≥ 1 M rows/s on one core for that whole path.
func BenchmarkReadAggregate(b *testing.B) {
	billbench.ReadAggregate(b, benchData(b, false), func(data []byte, emit func(*gpucost.CostLine) error) (int64, error) {
		st, err := Read(bytes.NewReader(data), "bench.csv", emit)
		return int64(st.Rows), err
	})
}
