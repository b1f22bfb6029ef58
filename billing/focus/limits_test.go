package focus

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/billing/internal/limits"
)

func discard(*gpucost.CostLine) error { return nil }

// A 15 MiB ResourceId in the real FOCUS sample's first row is refused before it is buffered,
// plain or as the gzip bomb the upload was, quoted or not.
func TestReadLongField(t *testing.T) {
	for _, tc := range []struct {
		name   string
		quoted bool
		gzip   bool
	}{{"quoted", true, false}, {"plain", false, false}, {"gzip", true, true}} {
		t.Run(tc.name, func(t *testing.T) {
			in, col := billtest.LongCSVField(t, "testdata/focus_sample.csv", "ResourceId", billtest.LongValue, tc.quoted)
			if tc.gzip {
				var buf bytes.Buffer
				zw := gzip.NewWriter(&buf)
				if _, err := io.Copy(zw, in); err != nil {
					t.Fatal(err)
				}
				zw.Close()
				in = &buf
			}
			var err error
			alloc := billtest.Allocated(func() { _, err = Read(in, "bomb.csv", discard) })
			billtest.TooLong(t, err, alloc, "bomb.csv", fmt.Sprintf("bomb.csv:2: column %d (ResourceId): ", col))
		})
	}
}

// A row of many fields, each within the field limit, is refused past the line limit.
func TestReadLongLine(t *testing.T) {
	b, _, _ := strings.Cut(sampleHeader(t), "\n")
	in := io.MultiReader(strings.NewReader(b+",x_Big\n"), &billtest.Repeat{B: ',', N: 2 * limits.MaxLine})
	_, err := Read(in, "wide.csv", discard)
	billtest.Invalid(t, err, "wide.csv:2: column 1048577: ", "1 MiB", "export it again")
}

func sampleHeader(t *testing.T) string {
	in, _ := billtest.LongCSVField(t, "testdata/focus_sample.csv", "ResourceId", 1, false)
	b, err := io.ReadAll(in)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A Parquet file with a 15 MiB ChargeDescription is refused: from the footer's length when its
// statistics copy the value (parquet-go's do); from the page header, before the page is read,
// when the page's statistics hold it or the value is alone in its page; among enough short values to pass that check, once the
// page is decoded (the page, not the value, bounds what it took), before a line holds it.
func TestReadParquetLongValue(t *testing.T) {
	long := strings.Repeat("A", billtest.LongValue)
	noStats := []parquet.WriterOption{parquet.SkipPageBounds("ChargeDescription"), parquet.DataPageStatistics(false)}
	for _, tc := range []struct {
		name  string
		short int // rows before the long one, each with a short description
		opts  []parquet.WriterOption
		where string
		early bool // refused before the value is read
	}{
		{"in chunk statistics", 0, nil, "the Parquet metadata is larger than 8 MiB", true},
		{"in page statistics", 0, []parquet.WriterOption{parquet.SkipPageBounds("ChargeDescription")}, "row 1, column 8 (ChargeDescription)", true},
		{"alone", 0, noStats, "row 1, column 8 (ChargeDescription)", true},
		{"among short ones", 400, noStats, "row 401, column 8 (ChargeDescription)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, _ := awsRows(tc.short + 1)
			for i := range rows {
				rows[i].ChargeDescription = ptr(fmt.Sprintf("p5.48xlarge hour %d", i))
			}
			rows[tc.short].ChargeDescription = &long
			b := writeParquet(t, rows, tc.opts...)
			var err error
			alloc := billtest.Allocated(func() { _, err = ReadParquet(bytes.NewReader(b), int64(len(b)), "bomb.parquet", discard) })
			billtest.Invalid(t, err, "bomb.parquet", tc.where, "export it again")
			if tc.early && alloc > billtest.LongAlloc {
				t.Errorf("reading a %d MiB value allocated %d MiB, want under %d MiB", billtest.LongValue>>20, alloc>>20, billtest.LongAlloc>>20)
			}
		})
	}
}
