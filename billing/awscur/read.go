package awscur

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Stats describes what a reader read, as every bill reader reports it (totals.Stats): Version
// is the dialect (DialectCUR2 or DialectLegacy); Format "csv", "csv.gz" or "parquet"; Rows the
// lines emitted; Totals, by currency, the exact sums that let a caller reconcile with the source
// (Sums.Source is Σ line_item_unblended_cost as written); Types the rows by
// line_item_line_item_type; Unknown the columns that are not CUR columns, sorted, whose values
// are not read. When a read fails, Stats covers the rows emitted before the failure.
type Stats = totals.Stats

// stats returns the Stats so far.
func (rd *reader) stats(format string) Stats {
	st := Stats{Format: format}
	rd.tally.Fill(&st, true)
	if rd.plan != nil {
		st.Version, st.Unknown = rd.plan.dialect, rd.plan.sortedUnknown()
	}
	return st
}

// reader holds what CSV and Parquet reading share: the plan, caches, the row being built, the
// line handed out and the tally.
type reader struct {
	name  string
	plan  *plan
	in    *interner
	mc    *mapCache
	rec   rec
	line  gpucost.CostLine
	tally totals.Tally
	emit  func(*gpucost.CostLine) error
}

func newReader(name string, emit func(*gpucost.CostLine) error) *reader {
	return &reader{name: name, in: newInterner(), mc: newMapCache(), emit: emit}
}

// finish checks the row's required values, maps it, counts it and hands it to emit. where names
// the row for messages, and the column of a field (as readerr.Column does) when f is not negative.
func (rd *reader) finish(where func(f field) (row, column string)) error {
	r := &rd.rec
	missing := func(f field, want string) error {
		row, column := where(f)
		return cellError(row, column, "", want, nil)
	}
	switch {
	case r.str[fLineItemType] == "":
		return missing(fLineItemType, "a line item type (Usage, Tax, …)")
	case r.str[fCurrency] == "":
		return missing(fCurrency, "a currency code (USD, …)")
	case r.times[tStart-tBillStart].IsZero():
		return missing(tStart, wants[kTime])
	}
	r.extra = rd.mc.extra(r.str[fUsageType], r.str[fOperation], r.str[fServiceCode])
	r.fill(&rd.line)
	err := rd.tally.Add(&rd.line, r.nanos(aUnblended), r.str[fLineItemType])
	if err == nil {
		err = rd.emit(&rd.line)
	}
	if err != nil {
		row, _ := where(-1) // formatted for an error only: every row would allocate it
		return fmt.Errorf("%s: %w", row, err)
	}
	return nil
}

// ReadFile reads a CUR file — Parquet, gzip-compressed CSV or CSV, told apart by their first
// bytes — and calls emit for each line. See Read and ReadParquet.
func ReadFile(path string, emit func(*gpucost.CostLine) error) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read AWS CUR: %w", err)
	}
	defer f.Close()
	var magic [4]byte
	n, err := io.ReadFull(f, magic[:])
	if err != nil && err != io.ErrUnexpectedEOF && err != io.EOF {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: %w", path, err)
	}
	if n == 4 && bytes.Equal(magic[:], parquetMagic) {
		fi, err := f.Stat()
		if err != nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: %w", path, err)
		}
		return ReadParquet(f, fi.Size(), path, emit)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: %w", path, err)
	}
	return Read(bufio.NewReaderSize(f, 64<<10), path, emit)
}

var parquetMagic = []byte("PAR1")
