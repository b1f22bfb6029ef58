package awscur

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Stats describes what a reader read: the rows emitted and, per currency, the exact sums that
// let a caller reconcile with the source. When a read fails, Stats covers the rows emitted before
// the failure.
type Stats struct {
	Dialect        string            // DialectCUR2 or DialectLegacy
	Format         string            // "csv", "csv.gz" or "parquet"
	Rows           int64             // lines emitted
	Totals         map[string]Totals // by currency; currencies are never added together
	LineItemTypes  map[string]int64  // rows by line_item_line_item_type
	UnknownColumns []string          // columns that are not CUR columns, sorted; their values are not read
}

// Totals are exact sums over a file's lines in one currency.
type Totals struct {
	Billed    gpucost.Money // Σ BilledCost
	Effective gpucost.Money // Σ EffectiveCost
	List      gpucost.Money // Σ ListCost
	Unblended gpucost.Money // Σ line_item_unblended_cost as written in the source
	Rows      int64         // lines in this currency
}

// sums accumulates one currency's totals in nano-units.
type sums struct {
	billed, effective, list, unblended, rows int64
}

// tally accumulates Stats while a file is read.
type tally struct {
	byCur totals.Currencies[sums]
	types totals.Counts
	rows  int64
}

func newTally() *tally { return &tally{} }

// add counts one line. It fails when a sum leaves the range of Money.
func (t *tally) add(c *gpucost.CostLine, r *rec) error {
	cur := c.BilledCost.Currency
	s := t.byCur.Of(cur)
	ok := true
	s.billed, ok = totals.Add(s.billed, c.BilledCost.Nanos, ok)
	s.effective, ok = totals.Add(s.effective, c.EffectiveCost.Nanos, ok)
	s.list, ok = totals.Add(s.list, c.ListCost.Nanos, ok)
	s.unblended, ok = totals.Add(s.unblended, r.nanos(aUnblended), ok)
	if !ok {
		return totals.Overflow(cur)
	}
	s.rows++
	t.types.Add(r.str[fLineItemType])
	t.rows++
	return nil
}

// stats returns the Stats so far.
func (t *tally) stats(p *plan, format string) Stats {
	st := Stats{Format: format, Rows: t.rows, Totals: map[string]Totals{}, LineItemTypes: totals.Map[int64](&t.types)}
	if p != nil {
		st.Dialect, st.UnknownColumns = p.dialect, p.sortedUnknown()
	}
	for cur, s := range t.byCur.All() {
		m := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: cur} }
		st.Totals[cur] = Totals{Billed: m(s.billed), Effective: m(s.effective), List: m(s.list),
			Unblended: m(s.unblended), Rows: s.rows}
	}
	return st
}

// Currencies returns the currencies of st.Totals, sorted.
func (st Stats) Currencies() []string {
	return slices.Sorted(maps.Keys(st.Totals))
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
	tally *tally
	emit  func(*gpucost.CostLine) error
}

func newReader(name string, emit func(*gpucost.CostLine) error) *reader {
	return &reader{name: name, in: newInterner(), mc: newMapCache(), tally: newTally(), emit: emit}
}

// finish checks the row's required values, maps it, counts it and hands it to emit. where names
// the cell of a field for messages, or the row for a negative field.
func (rd *reader) finish(where func(f field) string) error {
	r := &rd.rec
	switch {
	case r.str[fLineItemType] == "":
		return cellError(where(fLineItemType), fieldNames[fLineItemType], "", "a line item type (Usage, Tax, …)", nil)
	case r.str[fCurrency] == "":
		return cellError(where(fCurrency), fieldNames[fCurrency], "", "a currency code (USD, …)", nil)
	case r.times[tStart-tBillStart].IsZero():
		return cellError(where(tStart), fieldNames[tStart], "", wants[kTime], nil)
	}
	r.extra = rd.mc.extra(r.str[fUsageType], r.str[fOperation], r.str[fServiceCode])
	r.fill(&rd.line)
	if err := rd.tally.add(&rd.line, r); err != nil {
		return fmt.Errorf("%s: %w", where(-1), err)
	}
	if err := rd.emit(&rd.line); err != nil {
		return fmt.Errorf("%s: %w", where(-1), err)
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
