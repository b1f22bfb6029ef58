// Package thirdparty holds the tests of the dependencies gpucost builds from copies in this
// folder (docs/architecture.md "Binary size").
package thirdparty

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

type row struct {
	Team string  `parquet:"team"`
	Cost float64 `parquet:"cost"`
}

// TestParquetReadsBrotli reads a file written with upstream parquet-go v0.32.0 and BROTLI
// compression: the copy keeps the Brotli decoder.
func TestParquetReadsBrotli(t *testing.T) {
	f, err := os.Open("testdata/brotli.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[row](f)
	defer r.Close()
	rows := make([]row, 1000)
	n, err := r.Read(rows)
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("Read = %d rows, %v", n, err)
	}
	if n != 1000 || rows[4] != (row{"speech", 1}) || rows[999] != (row{"vision", 249.75}) {
		t.Errorf("Read = %d rows, rows[4] %+v, rows[999] %+v; want 1000, {speech 1}, {vision 249.75}", n, rows[4], rows[999])
	}
}

// TestParquetWrites writes and reads back a file in every codec gpucost may write, and checks
// that writing BROTLI fails with a message rather than a broken file.
func TestParquetWrites(t *testing.T) {
	in := []row{{"a", 1.5}, {"b", 2}}
	for _, codec := range []parquet.WriterOption{parquet.Compression(&parquet.Zstd), parquet.Compression(&parquet.Snappy), parquet.Compression(&parquet.Gzip)} {
		var buf bytes.Buffer
		w := parquet.NewGenericWriter[row](&buf, codec)
		if _, err := w.Write(in); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		out, err := parquet.Read[row](bytes.NewReader(buf.Bytes()), int64(buf.Len()))
		if err != nil || len(out) != 2 || out[1] != in[1] {
			t.Errorf("read back = %v, %v; want %v", out, err, in)
		}
	}
	w := parquet.NewGenericWriter[row](io.Discard, parquet.Compression(&parquet.Brotli))
	_, err := w.Write(in)
	if err == nil {
		err = w.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "BROTLI") {
		t.Errorf("writing BROTLI = %v, want an error naming BROTLI", err)
	}
}
