package awscur

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"iter"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/internal/billbench"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/sqlite"
)

// Benchmarks carry the targets: CSV ≥ 1 M rows/s and Parquet ≥ 3 M rows/s on one core
// (go test ./billing/awscur -run XXX -bench . -cpu 1), and a 10 M-row file read in < 200 MB RSS
// (BenchmarkLarge10M, which reads in a child process so that its peak RSS is the reader's alone).

const benchRows = 50_000

// shapes are the column sets benchmarked: a lean FinOps export and every CUR 2.0 column.
var shapes = []struct {
	name string
	cols func() []string
}{{"lean", columnsLean}, {"full", columnsFull}}

func genCSV(b *testing.B, cols []string, rows int) []byte {
	b.Helper()
	data, err := io.ReadAll(newCURGen(cols, rows, 2_000))
	if err != nil {
		b.Fatal(err)
	}
	return data
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

func readParquetData(data []byte, emit func(*gpucost.CostLine) error) (Stats, error) {
	return ReadParquet(bytes.NewReader(data), int64(len(data)), "bench.parquet", emit)
}

func BenchmarkReadCSV(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			benchRead(b, genCSV(b, sh.cols(), benchRows), readCSVBytes)
		})
	}
}

func BenchmarkReadCSVGzip(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			benchRead(b, billtest.Gzip(b, genCSV(b, sh.cols(), benchRows)), readCSVBytes)
		})
	}
}

// csvRecords yields the records of CSV data as strings.
func csvRecords(r io.Reader, header *[]string) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		sc := csvscan.New(r, 64<<10)
		for sc.Next() {
			rec := make([]string, sc.Count())
			for i := range sc.Count() {
				rec[i] = string(sc.Field(i))
			}
			if *header == nil {
				*header = rec
				continue
			}
			if !yield(rec) {
				return
			}
		}
	}
}

// genParquet writes generated rows as a CUR 2.0 Parquet file: DOUBLE costs, TIMESTAMP times,
// MAP columns, dictionary-encoded strings, Snappy pages, as AWS Data Exports writes it.
func genParquet(b testing.TB, w io.Writer, cols []string, rows, resources int, groupRows int64) {
	b.Helper()
	var header []string
	kinds := make([]pqKind, len(cols))
	for i, c := range cols {
		kinds[i] = curTypes(c)
	}
	seq := csvRecords(newCURGen(cols, rows, resources), &header)
	writeParquetRows(b, w, cols, kinds, seq, pqOptions{groupRows: groupRows, dict: true, snappy: true})
}

func BenchmarkReadParquet(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			var buf bytes.Buffer
			genParquet(b, &buf, sh.cols(), benchRows, 2_000, 25_000)
			benchRead(b, buf.Bytes(), readParquetData)
		})
	}
}

// BenchmarkLarge10M reads a 10 M-row CUR — CSV streamed from the generator, and a Parquet file
// on disk — each in a child process, and reports the child's peak RSS (VmHWM) and rows/s.
func BenchmarkLarge10M(b *testing.B) {
	rows := 10_000_000
	if s := os.Getenv("AWSCUR_LARGE_ROWS"); s != "" {
		rows, _ = strconv.Atoi(s)
	}
	b.Run("csv", func(b *testing.B) {
		for b.Loop() {
			largeChild(b, "csv", "", rows)
		}
	})
	b.Run("import-csv", func(b *testing.B) {
		for b.Loop() {
			largeChild(b, "import-csv", "", rows)
		}
	})
	path := filepath.Join(b.TempDir(), "cur.parquet")
	written := false
	for _, format := range []string{"parquet", "import-parquet"} {
		b.Run(format, func(b *testing.B) {
			if !written {
				writeLargeParquet(b, path, rows)
				written = true
			}
			for b.Loop() {
				largeChild(b, format, path, rows)
			}
		})
	}
}

// writeLargeParquet writes the generated rows as a Parquet file at path, row groups of a million
// rows.
func writeLargeParquet(b *testing.B, path string, rows int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	genParquet(b, w, columnsLean(), rows, max(rows/500, 1), 1_000_000)
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
}

// largeChild runs TestLargeChild in a new process and reports what it measured.
func largeChild(b *testing.B, format, path string, rows int) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestLargeChild$", "-test.v")
	cmd.Env = append(os.Environ(), "AWSCUR_LARGE_CHILD="+format, "AWSCUR_LARGE_PATH="+path, "AWSCUR_LARGE_ROWS="+strconv.Itoa(rows))
	out, err := cmd.CombinedOutput()
	if err != nil {
		b.Fatalf("child: %v\n%s", err, out)
	}
	var gotRows int64
	var secs, hwm float64
	for _, line := range strings.Split(string(out), "\n") {
		if i := strings.Index(line, "LARGE "); i >= 0 {
			fmt.Sscanf(line[i:], "LARGE rows=%d secs=%g vmhwm_mb=%g", &gotRows, &secs, &hwm)
		}
	}
	if gotRows != int64(rows) {
		b.Fatalf("child read %d rows, want %d:\n%s", gotRows, rows, out)
	}
	b.ReportMetric(hwm, "peak-RSS-MB")
	b.ReportMetric(float64(gotRows)/secs, "rows/s")
}

// TestLargeChild is the child of BenchmarkLarge10M; it does nothing in a normal test run.
func TestLargeChild(t *testing.T) {
	format := os.Getenv("AWSCUR_LARGE_CHILD")
	if format == "" {
		t.Skip("run by BenchmarkLarge10M")
	}
	rows, _ := strconv.Atoi(os.Getenv("AWSCUR_LARGE_ROWS"))
	var st Stats
	var err error
	// The import modes do what gpucost import billing does: aggregate by day, then store.
	var agg billing.Aggregator
	emit := func(*gpucost.CostLine) error { return nil }
	if strings.HasPrefix(format, "import-") {
		emit = func(l *gpucost.CostLine) error { agg.Add(l); return nil }
		debug.SetGCPercent(50) // as gpucost import billing sets it
	}
	start := time.Now()
	switch format {
	case "csv", "import-csv":
		st, err = Read(newCURGen(columnsFull(), rows, max(rows/500, 1)), "large.csv", emit)
	default:
		st, err = ReadFile(os.Getenv("AWSCUR_LARGE_PATH"), emit)
	}
	if err == nil && agg.Rows() > 0 {
		err = storeLarge(t, &agg)
	}
	secs := time.Since(start).Seconds()
	if err != nil {
		t.Fatal(err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("LARGE rows=%d secs=%.3f vmhwm_mb=%.1f heap_sys_mb=%.1f totals=%v", st.Rows, secs, vmHWM(), float64(ms.HeapSys)/(1<<20), st.Totals["USD"])
}

// storeLarge stores the aggregated lines in a new SQLite store, in one transaction.
func storeLarge(t *testing.T, agg *billing.Aggregator) error {
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "large.db"))
	if err != nil {
		return err
	}
	defer db.Close()
	imp, err := db.PutCosts(context.Background(), gpucost.CostImport{Name: "large", Checksum: "large", Format: "aws-cur",
		Grain: billing.Day, Rows: agg.Rows(), Totals: agg.Totals()}, agg.Lines(), nil)
	t.Logf("stored %d lines from %d rows", imp.Lines, agg.Rows())
	return err
}

// vmHWM returns the process's peak resident set in MiB, from /proc/self/status.
func vmHWM() float64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return kb / 1024
		}
	}
	return -1
}

// BenchmarkBaselineEncodingCSV splits the same CSV with encoding/csv and does nothing else: the
// yardstick docs/architecture.md quotes (~1 M rows/s/core), measured on the machine at hand.
func BenchmarkBaselineEncodingCSV(b *testing.B) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			data := genCSV(b, sh.cols(), benchRows)
			benchRead(b, data, func(data []byte, _ func(*gpucost.CostLine) error) (Stats, error) {
				cr := csv.NewReader(bytes.NewReader(data))
				cr.ReuseRecord = true
				n := -1
				for {
					if _, err := cr.Read(); err == io.EOF {
						return Stats{Rows: n}, nil
					} else if err != nil {
						return Stats{}, err
					}
					n++
				}
			})
		})
	}
}

// BenchmarkReadAggregate reads the CSV benchmark file into a billing.Aggregator, as an import
// does: the target is ≥ 1 M rows/s on one core for that whole path.
func BenchmarkReadAggregate(b *testing.B) {
	billbench.ReadAggregate(b, genCSV(b, columnsLean(), benchRows), func(data []byte, emit func(*gpucost.CostLine) error) (int64, error) {
		st, err := Read(bytes.NewReader(data), "bench.csv", emit)
		return int64(st.Rows), err
	})
}

// BenchmarkScanCSV splits the full-shape CUR CSV into fields with the shared scanner alone, the
// floor under BenchmarkReadCSV.
func BenchmarkScanCSV(b *testing.B) {
	data := genCSV(b, columnsFull(), benchRows)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		sc := csvscan.New(bytes.NewReader(data), 256<<10)
		n := 0
		for sc.Next() {
			for i := range sc.Count() {
				f, _ := sc.Raw(i)
				n += len(f)
			}
		}
		if sc.Err() != nil || n == 0 {
			b.Fatal(sc.Err())
		}
	}
}
