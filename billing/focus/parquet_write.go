package focus

import (
	"fmt"
	"io"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
)

// parquetWriter writes the Writer's columns as Parquet. Amounts are DECIMAL(18,9) in INT64,
// exact nano-units that Arrow, Spark and DuckDB read as decimals; times are TIMESTAMP in
// microseconds, UTC; quantities DOUBLE; text, Tags (JSON) and extras dictionary-encoded strings.
// Every column but the amounts is optional, null where CSV would be empty.
type parquetWriter struct {
	w     *parquet.Writer
	cols  []outColumn
	index []int // leaf column index of each of cols
	rows  []parquet.Row
}

// parquetBatch is how many rows are handed to parquet-go at once.
const parquetBatch = 1024

func newParquetWriter(w io.Writer, cols []outColumn) (*parquetWriter, error) {
	group := parquet.Group{}
	for _, c := range cols {
		group[c.name] = parquetNode(c)
	}
	schema := parquet.NewSchema("focus", group)
	p := &parquetWriter{cols: cols, index: make([]int, len(cols))}
	for i, c := range cols {
		leaf, ok := schema.Lookup(c.name)
		if !ok {
			return nil, fmt.Errorf("focus: column %s missing from the Parquet schema", c.name)
		}
		p.index[i] = leaf.ColumnIndex
	}
	p.w = parquet.NewWriter(w, schema, parquet.Compression(&parquet.Zstd),
		parquet.KeyValueMetadata("FOCUSVersion", V1_2))
	return p, nil
}

func parquetNode(c outColumn) parquet.Node {
	if c.name == "BillingPeriodEnd" {
		return parquet.Optional(parquet.Timestamp(parquet.Microsecond))
	}
	switch kindOf(c.field) {
	case kMoney:
		return parquet.Decimal(9, 18, parquet.Int64Type)
	case kTime:
		return parquet.Optional(parquet.Timestamp(parquet.Microsecond))
	case kFloat:
		return parquet.Optional(parquet.Leaf(parquet.DoubleType))
	}
	return parquet.Optional(parquet.Encoded(parquet.String(), &parquet.RLEDictionary))
}

// maxDecimal18 is the largest amount DECIMAL(18,9) holds, in nano-units.
const maxDecimal18 = 999_999_999_999_999_999

func (p *parquetWriter) write(l *gpucost.CostLine, n int) error {
	row := make(parquet.Row, len(p.cols))
	for i, c := range p.cols {
		v, err := p.value(l, c)
		if err != nil {
			return gpucost.Errorf(gpucost.EInvalid, "write FOCUS line %d: column %s: %w", n, c.name, err)
		}
		row[p.index[i]] = v.Level(0, definition(c.field, v), p.index[i])
	}
	p.rows = append(p.rows, row)
	if len(p.rows) >= parquetBatch {
		return p.flush()
	}
	return nil
}

// definition is the definition level of value v of a column of field f.
func definition(f field, v parquet.Value) int {
	if kindOf(f) == kMoney || v.IsNull() {
		return 0
	}
	return 1
}

// value returns the Parquet value of column c of line l.
func (p *parquetWriter) value(l *gpucost.CostLine, c outColumn) (parquet.Value, error) {
	if c.field == fNone || c.field == fExtra || c.field == fBillingCurrency || c.field == fTags {
		var s string
		switch c.field {
		case fNone:
			if c.name == "BillingPeriodEnd" {
				return timeValue(billingPeriodEnd(l.BillingPeriodStart)), nil
			}
		case fExtra:
			s = l.Extra[c.name]
		case fBillingCurrency:
			s = l.BillingCurrency()
		case fTags:
			s = tagsJSON(l.Tags)
		}
		return stringValue(s), nil
	}
	switch kindOf(c.field) {
	case kMoney:
		n := moneyOf(l, c.field).Nanos
		if n > maxDecimal18 || n < -maxDecimal18 {
			return parquet.Value{}, fmt.Errorf("%s passes the 18 digits of DECIMAL(18,9)", moneyOf(l, c.field))
		}
		return parquet.Int64Value(n), nil
	case kTime:
		return timeValue(*timeOf(l, c.field)), nil
	case kFloat:
		x, unit := quantityOf(l, c.field)
		if x == 0 && unit == "" {
			return parquet.Value{}, nil
		}
		return parquet.DoubleValue(x), nil
	}
	return stringValue(*stringOf(l, c.field)), nil
}

// stringValue is the value of a text column: null when empty. Strings are immutable, so the
// value refers to their bytes without a copy.
func stringValue(s string) parquet.Value {
	if s == "" {
		return parquet.Value{}
	}
	return parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s)))
}

func timeValue(t time.Time) parquet.Value {
	if t.IsZero() {
		return parquet.Value{}
	}
	return parquet.Int64Value(t.UnixMicro())
}

func (p *parquetWriter) flush() error {
	if len(p.rows) == 0 {
		return nil
	}
	if _, err := p.w.WriteRows(p.rows); err != nil {
		return fmt.Errorf("write FOCUS Parquet: %w", err)
	}
	p.rows = p.rows[:0]
	return nil
}

func (p *parquetWriter) close() error {
	if err := p.flush(); err != nil {
		return err
	}
	if err := p.w.Close(); err != nil {
		return fmt.Errorf("write FOCUS Parquet: %w", err)
	}
	return nil
}
