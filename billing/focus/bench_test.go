package focus

import (
	"bytes"
	"compress/gzip"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billbench"
)

// benchCopies is how many times the 1,000 sample rows are repeated: 100,000 rows, 44 columns,
// about 68 MB of CSV.
const benchCopies = 100

// benchCSV is the sample repeated benchCopies times.
var benchCSV = sync.OnceValues(func() ([]byte, error) {
	raw, err := os.ReadFile(sample)
	if err != nil {
		return nil, err
	}
	head, rows, _ := strings.Cut(string(raw), "\n")
	return []byte(head + "\n" + strings.Repeat(rows, benchCopies)), nil
})

var benchGzip = sync.OnceValues(func() ([]byte, error) {
	data, err := benchCSV()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data)
	zw.Close()
	return gz.Bytes(), err
})

var benchParquet = sync.OnceValues(func() ([]byte, error) {
	data, err := benchCSV()
	if err != nil {
		return nil, err
	}
	var pq bytes.Buffer
	w, err := NewWriter(&pq, WriterOptions{Format: Parquet, Extra: []string{"Id"}})
	if err != nil {
		return nil, err
	}
	if _, err := Read(bytes.NewReader(data), "bench.csv", w.Write); err != nil {
		return nil, err
	}
	err = w.Close()
	return pq.Bytes(), err
})

func benchFile(b *testing.B, kind string) []byte {
	get := map[string]func() ([]byte, error){"csv": benchCSV, "gz": benchGzip, "parquet": benchParquet}[kind]
	data, err := get()
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// benchRead measures reading data b.N times and reports rows per second.
func benchRead(b *testing.B, data []byte, read func([]byte, func(*gpucost.CostLine) error) (Stats, error)) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	rows := 0
	var sink int64
	for b.Loop() {
		st, err := read(data, func(l *gpucost.CostLine) error {
			sink += l.BilledCost.Nanos
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		rows += st.Rows
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
	_ = sink
}

func readCSVBytes(data []byte, emit func(*gpucost.CostLine) error) (Stats, error) {
	return Read(bytes.NewReader(data), "bench.csv", emit)
}

func readParquetBytes(data []byte, emit func(*gpucost.CostLine) error) (Stats, error) {
	return ReadParquet(bytes.NewReader(data), int64(len(data)), "bench.parquet", emit)
}

// BenchmarkReadCSV reads the FOCUS sample repeated to 100,000 rows of 44 columns.
func BenchmarkReadCSV(b *testing.B) { benchRead(b, benchFile(b, "csv"), readCSVBytes) }

// BenchmarkReadCSVGzip reads the same file gzip-compressed.
func BenchmarkReadCSVGzip(b *testing.B) { benchRead(b, benchFile(b, "gz"), readCSVBytes) }

// BenchmarkReadParquet reads the same rows written by Writer as Parquet (DECIMAL amounts,
// dictionary-encoded text, zstd).
func BenchmarkReadParquet(b *testing.B) { benchRead(b, benchFile(b, "parquet"), readParquetBytes) }

// BenchmarkReadParquetAWS reads 100,000 rows shaped like AWS's FOCUS export: DOUBLE amounts,
// millisecond timestamps, Tags as a MAP.
func BenchmarkReadParquetAWS(b *testing.B) {
	rows, _ := awsRows(100_000)
	var buf bytes.Buffer
	if err := writeParquetTo(&buf, rows); err != nil {
		b.Fatal(err)
	}
	benchRead(b, buf.Bytes(), readParquetBytes)
}

// BenchmarkWriteCSV writes the 100,000 rows as FOCUS 1.2 CSV.
func BenchmarkWriteCSV(b *testing.B) { benchWrite(b, CSV) }

// BenchmarkWriteParquet writes them as Parquet.
func BenchmarkWriteParquet(b *testing.B) { benchWrite(b, Parquet) }

func benchWrite(b *testing.B, f Format) {
	var lines []gpucost.CostLine
	if _, err := readCSVBytes(benchFile(b, "csv"), func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var buf bytes.Buffer
		w, err := NewWriter(&buf, WriterOptions{Format: f, Extra: []string{"Id"}})
		if err != nil {
			b.Fatal(err)
		}
		for i := range lines {
			if err := w.Write(&lines[i]); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(lines)*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkReadAggregate reads the CSV benchmark file into a billing.Aggregator, as an import
// does: the target is ≥ 1 M rows/s on one core for that whole path.
func BenchmarkReadAggregate(b *testing.B) {
	billbench.ReadAggregate(b, benchFile(b, "csv"), func(data []byte, emit func(*gpucost.CostLine) error) (int64, error) {
		st, err := Read(bytes.NewReader(data), "bench.csv", emit)
		return int64(st.Rows), err
	})
}
