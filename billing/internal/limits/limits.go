// Package limits holds the bounds every bill reader puts on one field and one line, and the
// error they return past one. A bill upload is untrusted input: a few hundred kilobytes of gzip
// can hold megabyte fields, and a reader that buffers whatever a line holds lets one file take
// the server's memory. The readers refuse a value or a line past these bounds before they have
// buffered it whole.
//
// The bounds leave a wide margin over real bills. Measured on the real FOCUS sample
// (billing/focus/testdata/focus_sample.csv, the FinOps Foundation's public sample with AWS,
// Microsoft, Google and Oracle rows), the longest field is 913 bytes (a Tags JSON object)
// and the longest record 1,702 bytes; the reader fixtures built from the providers' schemas
// (billing/*/testdata) stay under 310 bytes a field and 2,100 bytes a line.
package limits

import (
	"fmt"

	"github.com/gpucost/gpucost"
)

// MaxField bounds the bytes of one field: a CSV cell as written, a JSON string, a Parquet
// value. 64 KiB is 70 times the longest field of the real FOCUS sample (913 bytes of Tags) and
// room for tags JSON of tens of kilobytes, the largest field providers write.
const MaxField = 64 << 10

// MaxLine bounds the bytes of one record: a CSV record (which may span lines inside quotes) or
// a JSON row. 1 MiB is 600 times the longest record of the real FOCUS sample (1,702 bytes) and
// holds sixteen fields at MaxField.
const MaxLine = 1 << 20

// MaxPage bounds the uncompressed bytes of one Parquet data page, checked in its header before
// the page is read. Writers cut data pages at about 1 MiB (parquet-mr and Spark, which AWS and
// Athena use, Arrow) or 256 KiB (parquet-go), overshooting by at most a batch of values; 16 MiB
// leaves room for a batch of 1,024 values of 16 KiB each. A page also may not hold values that
// average more than MaxField.
const MaxPage = 16 << 20

// MaxDictPage bounds the uncompressed bytes of one Parquet dictionary page. parquet-go, which
// gpucost export writes with, puts every distinct value of a column chunk in one dictionary, so
// it gets more room than a data page: a dictionary of a million 64-byte resource ids fits.
const MaxDictPage = 64 << 20

// MaxFooter bounds the bytes of a Parquet file's metadata (its footer), read whole before any
// page. A footer holds a few hundred bytes per column chunk plus the writer's schema: a CUR month
// of 10 row groups × 300 columns is under 1 MiB. Its statistics copy whole values, so a long
// value makes a long footer; 8 MiB is past any real bill's and refused before it is read.
const MaxFooter = 8 << 20

// TooLong is a field or a record longer than the limits allow.
type TooLong struct {
	Line   int    // the line (CSV, JSON) or, with Row, the row (Parquet) where it starts, from 1; 0 in metadata
	Row    bool   // Line counts rows
	Column int    // the column of the value, or the one a too long record reached, from 1; 0 if unknown
	Name   string // the column's name, where known
	Byte   bool   // Column is the byte of the line (a JSON row, whose fields are named, not numbered)
	Record bool   // the record as a whole passed Limit (MaxLine), not one value (MaxField)
	Page   bool   // a Parquet page passed Limit (MaxPage, MaxDictPage) uncompressed
	Footer bool   // a Parquet footer passed Limit (MaxFooter)
	Limit  int    // the limit passed, in bytes
}

func (e *TooLong) Error() string { return e.message(true) }

// message is Error's text; without the line when line is false, for a message that names it
// before (file:line:).
func (e *TooLong) message(line bool) string {
	where := fmt.Sprintf("line %d", e.Line)
	switch {
	case e.Footer:
		return fmt.Sprintf("the Parquet metadata is larger than %s, the most gpucost reads (a real bill's is under 1 MiB); "+
			"a column's statistics may hold a damaged or giant value: export it again", size(e.Limit))
	case e.Line == 0:
		where = "the Parquet metadata (a column's statistics)"
	case e.Row:
		where = fmt.Sprintf("row %d", e.Line)
	}
	if e.Column > 0 {
		where += ", " + e.column()
	}
	if !line {
		where = e.column()
	}
	what := fmt.Sprintf("a value longer than %s, the most gpucost reads in one field", size(e.Limit))
	switch {
	case e.Record:
		what = fmt.Sprintf("the row passes %s here, the most gpucost reads in one line", size(e.Limit))
	case e.Page:
		what = fmt.Sprintf("a Parquet page larger than %s uncompressed, the most gpucost reads in one page", size(e.Limit))
	}
	return fmt.Sprintf("%s: %s (real bills stay under 2 KiB a line); the file is damaged or not a bill export: "+
		"export it again, or shorten the value", where, what)
}

// column names the column of the value: "column 21 (ResourceId)", or for a JSON row "column
// labels at byte 1048577".
func (e *TooLong) column() string {
	switch {
	case e.Byte && e.Name != "":
		return fmt.Sprintf("column %s at byte %d", e.Name, e.Column)
	case e.Byte:
		return fmt.Sprintf("byte %d", e.Column)
	case e.Name != "":
		return fmt.Sprintf("column %d (%s)", e.Column, e.Name)
	}
	return fmt.Sprintf("column %d", e.Column)
}

// size writes n bytes in KiB or MiB.
func size(n int) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// Invalid returns err, a *TooLong, as a gpucost.EInvalid error after what the reader was doing
// ("read AWS CUR file.csv"). A value or record of a CSV or JSON line is placed as every reader
// error is, "read AWS CUR file.csv:2: column 21 (ResourceId): …"; a Parquet one by its row.
func Invalid(doing string, err *TooLong) error {
	if err.Line > 0 && !err.Row && err.Column > 0 {
		return gpucost.Errorf(gpucost.EInvalid, "%s:%d: %w", doing, err.Line, placed{err})
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s: %w", doing, err)
}

// placed is a *TooLong whose line its message leaves to the text before it.
type placed struct{ e *TooLong }

func (p placed) Error() string { return p.e.message(false) }
func (p placed) Unwrap() error { return p.e }
