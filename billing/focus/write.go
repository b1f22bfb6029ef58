package focus

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/gpucost/gpucost"
)

// Format is a file format a Writer writes.
type Format int

const (
	CSV     Format = iota // comma-separated values with a header, RFC 4180
	CSVGzip               // CSV compressed with gzip
	Parquet               // Apache Parquet: exact DECIMAL(18,9) amounts, dictionary-encoded text
)

// FormatOf returns the format a file name asks for: Parquet for .parquet, CSVGzip for .gz, CSV
// otherwise.
func FormatOf(path string) Format {
	switch p := strings.ToLower(path); {
	case strings.HasSuffix(p, ".parquet"):
		return Parquet
	case strings.HasSuffix(p, ".gz"):
		return CSVGzip
	}
	return CSV
}

// WriterOptions say what a Writer writes.
type WriterOptions struct {
	Format Format
	// Extra names columns outside the spec to write after the FOCUS ones, each from
	// CostLine.Extra under the same name (x_Team, x_Project, x_Namespace, x_Job,
	// x_AllocationPolicy, …). FOCUS asks that custom columns start with x_.
	Extra []string
}

// Writer writes cost lines as a FOCUS 1.2 file: every column Mandatory in 1.2 (null where a
// CostLine has no value: BillingAccountName, InvoiceIssuerName, PublisherName), the Conditional
// columns a CostLine carries, InvoiceId (null; it marks the file as 1.2) and the extra columns
// asked for. BillingPeriodEnd is one calendar month after BillingPeriodStart when that is the
// first of a month at midnight UTC, as billing periods are, and null otherwise. Amounts are
// written exactly; a quantity of zero with no unit is null.
//
// The readers give the lines back unchanged, with identical totals, but for what FOCUS has no
// column for (InstanceType), extras not written, the text NULL (read as null), times in Parquet
// (kept to the microsecond) and CostLine.Line (a Parquet row number).
type Writer struct {
	cols  []outColumn
	csv   *csv.Writer
	gz    *gzip.Writer
	pq    *parquetWriter
	rec   []string
	tmp   []byte
	lines int
}

// outColumn is one written column: a spec column with the field it comes from, or an extra.
type outColumn struct {
	name  string
	field field // fNone for mandatory columns CostLine lacks, fExtra for extras
}

// writtenColumns are the FOCUS columns a Writer writes, sorted by name.
var writtenColumns = func() []outColumn {
	var cols []outColumn
	for _, c := range spec {
		if c.field != fNone && c.field != fServiceProvider || c.mandatory || c.name == "InvoiceId" {
			cols = append(cols, outColumn{c.name, c.field})
		}
	}
	slices.SortFunc(cols, func(a, b outColumn) int { return strings.Compare(a.name, b.name) })
	return cols
}()

// NewWriter returns a Writer that writes to w. Close flushes what is buffered; it does not close
// w.
func NewWriter(w io.Writer, opts WriterOptions) (*Writer, error) {
	cols := slices.Clone(writtenColumns)
	seen := map[string]bool{}
	for _, name := range opts.Extra {
		switch {
		case name == "" || strings.ContainsAny(name, "\r\n"):
			return nil, gpucost.Errorf(gpucost.EInvalid, "extra column name %q is not a column name", name)
		case IsSpecColumn(name):
			return nil, gpucost.Errorf(gpucost.EInvalid, "extra column %q is a FOCUS column; name custom columns x_Something", name)
		case seen[name]:
			return nil, gpucost.Errorf(gpucost.EInvalid, "extra column %q is named twice", name)
		}
		seen[name] = true
		cols = append(cols, outColumn{name, fExtra})
	}
	wr := &Writer{cols: cols}
	switch opts.Format {
	case Parquet:
		pw, err := newParquetWriter(w, cols)
		if err != nil {
			return nil, err
		}
		wr.pq = pw
		return wr, nil
	case CSVGzip:
		wr.gz = gzip.NewWriter(w)
		w = wr.gz
	}
	wr.csv = csv.NewWriter(w)
	wr.rec = make([]string, len(cols))
	for i, c := range cols {
		wr.rec[i] = c.name
	}
	if err := wr.csv.Write(wr.rec); err != nil {
		return nil, fmt.Errorf("write FOCUS header: %w", err)
	}
	return wr, nil
}

// Write writes one line. Its amounts must all be in its billing currency.
func (w *Writer) Write(l *gpucost.CostLine) error {
	w.lines++
	cur := l.BillingCurrency()
	for _, m := range []gpucost.Money{l.EffectiveCost, l.ListCost, l.ContractedCost} {
		if m.Currency != "" && m.Currency != cur {
			return gpucost.Errorf(gpucost.EInvalid, "write FOCUS line %d: an amount in %s on a line billed in %s; currencies are never mixed", w.lines, m.Currency, cur)
		}
	}
	if w.pq != nil {
		return w.pq.write(l, w.lines)
	}
	for i, c := range w.cols {
		w.rec[i] = w.text(l, c)
	}
	if err := w.csv.Write(w.rec); err != nil {
		return fmt.Errorf("write FOCUS line %d: %w", w.lines, err)
	}
	return nil
}

// text formats the value of column c of line l; null is empty.
func (w *Writer) text(l *gpucost.CostLine, c outColumn) string {
	switch c.field {
	case fNone:
		if c.name == "BillingPeriodEnd" {
			return formatTime(billingPeriodEnd(l.BillingPeriodStart))
		}
		return ""
	case fExtra:
		return l.Extra[c.name]
	case fBillingCurrency:
		return l.BillingCurrency()
	case fTags:
		return tagsJSON(l.Tags)
	}
	switch kindOf(c.field) {
	case kMoney:
		w.tmp = appendNanos(w.tmp[:0], moneyOf(l, c.field).Nanos)
		return string(w.tmp)
	case kTime:
		return formatTime(*timeOf(l, c.field))
	case kFloat:
		x, unit := quantityOf(l, c.field)
		if x == 0 && unit == "" {
			return ""
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return *stringOf(l, c.field)
}

// Close flushes the file.
func (w *Writer) Close() error {
	if w.pq != nil {
		return w.pq.close()
	}
	w.csv.Flush()
	if err := w.csv.Error(); err != nil {
		return fmt.Errorf("write FOCUS file: %w", err)
	}
	if w.gz != nil {
		if err := w.gz.Close(); err != nil {
			return fmt.Errorf("write FOCUS file: %w", err)
		}
	}
	return nil
}

// billingPeriodEnd is the exclusive end of the calendar-month billing period starting at s, or
// the zero time if s does not start a month.
func billingPeriodEnd(s time.Time) time.Time {
	if s.IsZero() {
		return time.Time{}
	}
	s = s.UTC()
	if s.Day() != 1 || s.Hour() != 0 || s.Minute() != 0 || s.Second() != 0 || s.Nanosecond() != 0 {
		return time.Time{}
	}
	return s.AddDate(0, 1, 0)
}

func formatTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// tagsJSON writes tags as a JSON object with sorted keys, FOCUS's Key-Value Format.
func tagsJSON(t gpucost.Labels) string {
	if len(t) == 0 {
		return ""
	}
	b, _ := json.Marshal(map[string]string(t)) // maps of strings always marshal
	return string(b)
}

// appendNanos appends n nano-units as a plain decimal with trailing zeros trimmed.
func appendNanos(b []byte, n int64) []byte {
	u := uint64(n)
	if n < 0 {
		b = append(b, '-')
		u = -u
	}
	b = strconv.AppendUint(b, u/1e9, 10)
	frac := u % 1e9
	if frac == 0 {
		return b
	}
	var d [10]byte
	d[0] = '.'
	for i := 9; i >= 1; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	k := 9
	for d[k] == '0' {
		k--
	}
	return append(b, d[:k+1]...)
}

func moneyOf(l *gpucost.CostLine, f field) *gpucost.Money {
	switch f {
	case fBilledCost:
		return &l.BilledCost
	case fEffectiveCost:
		return &l.EffectiveCost
	case fListCost:
		return &l.ListCost
	}
	return &l.ContractedCost
}

func timeOf(l *gpucost.CostLine, f field) *time.Time {
	switch f {
	case fBillingPeriodStart:
		return &l.BillingPeriodStart
	case fChargePeriodStart:
		return &l.ChargePeriodStart
	}
	return &l.ChargePeriodEnd
}

func quantityOf(l *gpucost.CostLine, f field) (float64, string) {
	if f == fConsumedQuantity {
		return l.ConsumedQuantity, l.ConsumedUnit
	}
	return l.PricingQuantity, l.PricingUnit
}
