package billimport

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/sqlite"
)

// heapAtStore is a Store that measures, when PutCostBatch is called, the live heap: the moment a
// batch import holds the most, every file read and aggregated and none yet stored.
type heapAtStore struct {
	Store
	heap uint64 // HeapAlloc after a collection, at PutCostBatch
}

func (h *heapAtStore) PutCostBatch(ctx context.Context, puts []gpucost.CostPut) ([]gpucost.CostImport, error) {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	h.heap = m.HeapAlloc
	return h.Store.PutCostBatch(ctx, puts)
}

// accountCopies writes n copies of the FOCUS bill at path, copy i with "c{i}-" before each
// BillingAccountId, so that no two cover one (billing account, billing period) and all n import
// as one batch, and returns them as sources.
func accountCopies(tb testing.TB, path string, n int) []Source {
	tb.Helper()
	records, err := csv.NewReader(bytes.NewReader(readFile(tb, path))).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	col := slices.Index(records[0], "BillingAccountId")
	dir := tb.TempDir()
	out := make([]Source, n)
	for i := range n {
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(records[0])
		for _, r := range records[1:] {
			r = slices.Clone(r)
			r[col] = fmt.Sprintf("c%d-%s", i, r[col])
			w.Write(r)
		}
		w.Flush()
		p := filepath.Join(dir, fmt.Sprintf("account-%02d.csv", i))
		if err := writeAt(p, buf.Bytes()); err != nil {
			tb.Fatal(err)
		}
		out[i] = Source{Path: p, Name: p}
	}
	return out
}

// batchHeld imports sources as one batch into a fresh store and returns the heap the batch
// held when it was stored, above the heap before it, and the lines stored.
func batchHeld(tb testing.TB, sources []Source) (held uint64, lines int) {
	tb.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(tb.TempDir(), "gpucost.db"))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	probe := &heapAtStore{Store: db}
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	res, err := (&Importer{Store: probe}).Import(ctx, sources, Options{NoSource: true})
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range res {
		lines += r.Lines
	}
	return probe.heap - min(probe.heap, m0.HeapAlloc), lines
}

// BenchmarkImportBatchMemory measures what a batch import holds in memory until its one
// transaction stores it: every file's aggregated lines (docs/limits.md "Bill uploads and
// imports"). It imports 1, 5 and 20 copies of the largest bundled bill, the FOCUS sample
// (1,000 rows of 44 columns, 1,000 lines), under distinct billing accounts, and reports the
// heap held at the store, per line stored and in all:
//
//	go test ./billing/billimport -run '^$' -bench BenchmarkImportBatchMemory -benchmem
func BenchmarkImportBatchMemory(b *testing.B) {
	for _, n := range []int{1, 5, 20} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			sources := accountCopies(b, focusSample, n)
			var held uint64
			var lines int
			b.ReportAllocs()
			for range b.N {
				held, lines = batchHeld(b, sources)
			}
			b.ReportMetric(float64(held)/float64(lines), "held-B/line")
			b.ReportMetric(float64(held)/(1<<20), "held-MiB")
			b.ReportMetric(float64(lines), "lines")
		})
	}
}

// maxHeldPerLine is the most heap a batch import may hold per line until it is stored: twice
// what BenchmarkImportBatchMemory measures on the FOCUS sample (about 1,060 bytes), so that a
// change that keeps whole rows, or each row's unique Id, fails here.
const maxHeldPerLine = 2 * 1060

// TestImportBatchMemoryBound checks that a batch of five FOCUS bills holds, when it is stored,
// at most maxHeldPerLine bytes of heap per line stored: the bound docs/limits.md gives.
func TestImportBatchMemoryBound(t *testing.T) {
	held, lines := batchHeld(t, accountCopies(t, focusSample, 5))
	if lines != 5000 {
		t.Fatalf("batch of 5 copies stored %d lines, want 5000", lines)
	}
	if per := held / uint64(lines); per > maxHeldPerLine {
		t.Errorf("a batch of %d lines held %d bytes at the store, %d a line; want at most %d a line", lines, held, per, maxHeldPerLine)
	}
}

func writeAt(path string, data []byte) error { return os.WriteFile(path, data, 0o644) }
