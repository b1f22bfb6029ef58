package billtest

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/billing/internal/limits"
)

// LongValue is the length of the value the limit tests put in a bill: 15 MiB, as in the upload
// that took the server to a gigabyte (a 940 KB gzip of 60 rows with 15 MiB ResourceIds).
const LongValue = 15 << 20

// LongAlloc bounds what a reader may allocate on a file with one LongValue field: its buffer
// (at most limits.MaxLine) and its caches, far less than the value.
const LongAlloc = 6 << 20

// Repeat is a reader of N copies of byte B.
type Repeat struct {
	B byte
	N int
}

func (r *Repeat) Read(p []byte) (int, error) {
	if r.N == 0 {
		return 0, io.EOF
	}
	n := min(len(p), r.N)
	for i := range p[:n] {
		p[i] = r.B
	}
	r.N -= n
	return n, nil
}

// LongCSVField returns the header and the first row of the CSV fixture at path with the value
// of column replaced by n bytes of 'A', quoted or not, as a stream that never holds the value:
// what a decompression bomb hands a reader. It returns the column's number, from 1, too.
func LongCSVField(t testing.TB, path, column string, n int, quoted bool) (io.Reader, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := csv.NewReader(bytes.NewReader(b))
	header, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	row, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.IndexFunc(header, func(h string) bool { return strings.TrimPrefix(h, "\ufeff") == column })
	if col < 0 {
		t.Fatalf("%s has no column %s", path, column)
	}
	var pre, post bytes.Buffer
	w := csv.NewWriter(&pre)
	if err := w.Write(header); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	for _, v := range row[:col] {
		pre.WriteString(csvValue(v) + ",")
	}
	for _, v := range row[col+1:] {
		post.WriteString("," + csvValue(v))
	}
	post.WriteString("\n")
	q := ""
	if quoted {
		q = `"`
	}
	return io.MultiReader(&pre, strings.NewReader(q), &Repeat{'A', n}, strings.NewReader(q), &post), col + 1
}

func csvValue(v string) string {
	if strings.ContainsAny(v, ",\"\r\n") {
		return `"` + strings.ReplaceAll(v, `"`, `""`) + `"`
	}
	return v
}

// LongJSONValue returns the first line of the JSON lines fixture at path with the string value
// of the first member named key replaced by n bytes of 'A', as a stream that never holds it.
// It returns the byte column of the value's opening quote, from 1.
func LongJSONValue(t testing.TB, path, key string, n int) (io.Reader, int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	k := bytes.Index(line, []byte(`"`+key+`":"`))
	if k < 0 {
		t.Fatalf("%s: no %q string in the first line", path, key)
	}
	open := k + len(key) + 3 // the value's opening quote
	end := open + 1 + bytes.IndexByte(line[open+1:], '"')
	return io.MultiReader(bytes.NewReader(line[:open+1]), &Repeat{'A', n}, bytes.NewReader(line[end:]),
		strings.NewReader("\n")), open + 1
}

// Allocated returns the bytes f allocates on the heap.
func Allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TooLong checks that a reader refused a LongValue field in time: err is EInvalid and names the
// file, the place (where, such as "bill.csv:2: column 21 (ResourceId): "), the limit and what to do,
// and the read allocated less than LongAlloc.
func TooLong(t testing.TB, err error, alloc uint64, file, where string) {
	t.Helper()
	Invalid(t, err, file, where, fmt.Sprintf("longer than %d KiB", limits.MaxField>>10), "export it again")
	if alloc > LongAlloc {
		t.Errorf("reading a %d MiB field allocated %d MiB, want under %d MiB: the reader buffered it", LongValue>>20, alloc>>20, LongAlloc>>20)
	}
}
