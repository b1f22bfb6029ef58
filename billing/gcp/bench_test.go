package gcp

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billbench"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// Benchmarks carry the target, ≥ 1 M rows/s on one core for CSV
// (go test ./billing/gcp -run XXX -bench Read -cpu 1), on a generated detailed export of
// benchRows rows (about 1 KB a row in CSV, 1.3 KB in JSON) over 2,000 GPU VMs.

const benchRows = 100_000

var (
	benchCSV  = sync.OnceValue(func() []byte { return generate(false, 2_000) })
	benchJSON = sync.OnceValue(func() []byte { return generate(true, 2_000) })
	// benchWide has 20,000 VMs, about 48,000 distinct resource-SKU dimensions: more than the
	// dimension cache holds, so most rows miss it (the worst case).
	benchWide = sync.OnceValue(func() []byte { return generate(false, 20_000) })
	benchGzip = sync.OnceValue(func() []byte {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(benchCSV())
		zw.Close()
		return buf.Bytes()
	})
)

func generate(json bool, vms int) []byte {
	b, err := io.ReadAll(newExportGen(json, benchRows, vms))
	if err != nil {
		panic(err)
	}
	return b
}

func BenchmarkRead(b *testing.B) {
	for _, bc := range []struct {
		name string
		data func() []byte
	}{{"csv", benchCSV}, {"csv.gz", benchGzip}, {"ndjson", benchJSON}, {"csv-20k-vms", benchWide}} {
		b.Run(bc.name, func(b *testing.B) { benchRead(b, bc.data()) })
	}
}

// benchRead reads data b.N times and reports rows per second (billbench.Read).
func benchRead(b *testing.B, data []byte) {
	billbench.Read(b, data, func(data []byte, emit func(*gpucost.CostLine) error) (int64, error) {
		st, err := Read(bytes.NewReader(data), "bench", emit)
		return int64(st.Rows), err
	})
}

// TestGeneratedExport checks that the benchmark's input reads, in both forms, to the same lines.
func TestGeneratedExport(t *testing.T) {
	read := func(json bool) ([]string, Stats) {
		var out []string
		st, err := Read(newExportGen(json, 3_000, 200), "gen", func(c *gpucost.CostLine) error {
			c.Line = 0
			out = append(out, billtest.Line(c))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out, st
	}
	csvLines, csvSt := read(false)
	jsonLines, jsonSt := read(true)
	if len(csvLines) != 3_000 || csvSt.Totals["USD"].BilledCost != jsonSt.Totals["USD"].BilledCost {
		t.Fatalf("generated CSV: %d lines, billed %v; JSON billed %v", len(csvLines), csvSt.Totals["USD"].BilledCost, jsonSt.Totals["USD"].BilledCost)
	}
	for i := range csvLines {
		if csvLines[i] != jsonLines[i] {
			t.Fatalf("row %d differs:\n csv %s\njson %s", i+1, csvLines[i], jsonLines[i])
		}
	}
}

// TestDimensionCacheTurnover reads more distinct resources than the dimension cache holds, so
// its generations turn over, and checks every line against the row the generator wrote.
func TestDimensionCacheTurnover(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 37,768 rows")
	}
	const vms, rows = dimsGenEntries + 1_000, 2*dimsGenEntries + 5_000
	i := 0
	_, err := Read(newExportGen(false, rows, vms), "gen", func(c *gpucost.CostLine) error {
		r := i % vms
		m := genMachines[r%len(genMachines)]
		team := billtest.Teams[r%len(billtest.Teams)]
		want := fmt.Sprintf("%s-%s-%d", team, m.name, r)
		if c.ResourceName != want || c.Tags["team"] != team || c.InstanceType != m.name || c.Line != i+2 {
			t.Fatalf("line %d: resource %q team %q instance %q, want %q %q %q", c.Line, c.ResourceName, c.Tags["team"], c.InstanceType, want, team, m.name)
		}
		i++
		return nil
	})
	if err != nil || i != rows {
		t.Fatalf("Read = %v after %d rows, want %d", err, i, rows)
	}
}

// TestLineReused documents that emit gets the same *CostLine each time.
func TestLineReused(t *testing.T) {
	var ptrs []*gpucost.CostLine
	if _, err := ReadFile("testdata/detailed_export.jsonl", func(c *gpucost.CostLine) error {
		ptrs = append(ptrs, c)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(ptrs) < 2 || ptrs[0] != ptrs[1] {
		t.Errorf("emit got distinct pointers; the documented contract is one reused line")
	}
}

// BenchmarkReadAggregate reads the CSV benchmark file into a billing.Aggregator, as an import
// does: the target is ≥ 1 M rows/s on one core for that whole path.
func BenchmarkReadAggregate(b *testing.B) {
	billbench.ReadAggregate(b, benchCSV(), func(data []byte, emit func(*gpucost.CostLine) error) (int64, error) {
		st, err := Read(bytes.NewReader(data), "bench.csv", emit)
		return int64(st.Rows), err
	})
}
