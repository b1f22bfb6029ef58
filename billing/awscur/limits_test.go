package awscur

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
)

func discard(*gpucost.CostLine) error { return nil }

// A 15 MiB line_item_resource_id in the sample's first row is refused before it is buffered.
func TestReadLongField(t *testing.T) {
	for _, quoted := range []bool{true, false} {
		in, col := billtest.LongCSVField(t, "testdata/cur2_sample.csv", "line_item_resource_id", billtest.LongValue, quoted)
		var err error
		alloc := billtest.Allocated(func() { _, err = Read(in, "bomb.csv", discard) })
		billtest.TooLong(t, err, alloc, "bomb.csv", fmt.Sprintf("bomb.csv:2: column %d (line_item_resource_id): ", col))
	}
}

// A CUR Parquet file with a 15 MiB line_item_resource_id is refused: from the footer's length
// when the chunk's statistics copy it; from the page header when the value is alone in its
// page; once decoded, before a line holds it, among enough short values.
func TestReadParquetLongValue(t *testing.T) {
	names, rows := sampleRows(t)
	col := slices.Index(names, "line_item_resource_id")
	kinds := make([]pqKind, len(names))
	for i, n := range names {
		kinds[i] = curTypes(n)
	}
	noStats := []parquet.WriterOption{parquet.SkipPageBounds("line_item_resource_id"), parquet.DataPageStatistics(false)}
	where := "(line_item_resource_id)" // the column's number is its leaf's, in the Parquet schema's order
	for len(rows) < 300 {              // more short values than a 15 MiB one needs to average under 64 KiB
		rows = append(rows, rows[len(rows)%21])
	}
	for _, tc := range []struct {
		name  string
		row   int // the row given the long value, from 0
		o     pqOptions
		where string
		early bool
	}{
		{"in chunk statistics", 0, pqOptions{groupRows: 1000}, "the Parquet metadata is larger than 8 MiB", true},
		{"alone", 0, pqOptions{groupRows: 1000, opts: noStats}, "row 1, column 17 " + where, true},
		{"among short ones", 299, pqOptions{groupRows: 1000, opts: append(noStats, parquet.PageBufferSize(64<<20))}, where, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows := slices.Clone(rows)
			rows[tc.row] = slices.Clone(rows[tc.row])
			rows[tc.row][col] = strings.Repeat("A", billtest.LongValue)
			var buf bytes.Buffer
			writeParquetRows(t, &buf, names, kinds, slices.Values(rows), tc.o)
			b := buf.Bytes()
			var err error
			alloc := billtest.Allocated(func() { _, err = ReadParquet(bytes.NewReader(b), int64(len(b)), "bomb.parquet", discard) })
			billtest.Invalid(t, err, "bomb.parquet", tc.where, "export it again")
			if tc.early && alloc > billtest.LongAlloc {
				t.Errorf("reading a %d MiB value allocated %d MiB, want under %d MiB", billtest.LongValue>>20, alloc>>20, billtest.LongAlloc>>20)
			}
		})
	}
}

// sampleRows returns the header and rows of testdata/cur2_sample.csv.
func sampleRows(t *testing.T) ([]string, [][]string) { return csvRows(t, "testdata/cur2_sample.csv") }

// csvRows returns the header and rows of the CSV fixture at path.
func csvRows(t testing.TB, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := csvscan.New(f, 64<<10)
	var names []string
	var rows [][]string
	for sc.Next() {
		rec := make([]string, sc.Count())
		for i := range sc.Count() {
			rec[i] = string(sc.Field(i))
		}
		if names == nil {
			names = rec
			continue
		}
		rows = append(rows, rec)
	}
	return names, rows
}
