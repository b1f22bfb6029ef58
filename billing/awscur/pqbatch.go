package awscur

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
	"unsafe"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// batchRows is the number of rows read column by column before they are put together.
const batchRows = 256

// pqBatch holds one batch of rows as the columns fill it: strings, times and amounts by row, so
// that the row being finished (rec) points at its own, the rest by column. Map entries are kept
// by their maps (mapBatch).
type pqBatch struct {
	str   [batchRows][numStrings]string
	times [batchRows][numTimes]time.Time
	usage [batchRows]float64
	amt   [batchRows][numAmounts]int64
	has   [batchRows][numAmounts]bool
	ok    [batchRows]bool
}

// readGroup reads every row of a row group, a batch at a time.
func (pr *pqRow) readGroup(rg parquet.RowGroup) error {
	chunks := rg.ColumnChunks()
	ls := pr.leaves()
	for _, l := range ls {
		l.cur.open(chunks[l.index].Pages(), l.maxDef)
	}
	defer func() {
		for _, l := range ls {
			l.cur.close()
		}
	}()
	for left := rg.NumRows(); left > 0; {
		n := int(min(left, batchRows))
		good, err := pr.fillBatch(n)
		for r := range good {
			pr.row++
			if err := pr.assemble(r); err != nil {
				return err
			}
		}
		if err != nil {
			return err
		}
		left -= int64(n)
	}
	return nil
}

// fillBatch reads n rows of every column. It returns the rows before the first bad value and
// the error about it.
func (pr *pqRow) fillBatch(n int) (int, error) {
	good := n
	var first error
	for _, f := range pr.fields {
		bad, err := pr.fillFlat(f, pr.flat[f], n)
		if err != nil && bad < good {
			good, first = bad, err
		}
		if err != nil && bad < 0 {
			return 0, err // damaged pages: nothing of the batch is usable
		}
	}
	if err := pr.fillMaps(n); err != nil {
		return 0, err
	}
	return good, first
}

// where names a row for messages; r is the row within the batch, -1 for the current row.
func (pr *pqRow) where(r int) string {
	row := pr.row
	if r >= 0 {
		row += int64(r) + 1
	}
	return fmt.Sprintf("%s: row %d", pr.rd.name, row)
}

func (pr *pqRow) damaged(l *pqLeaf, err error) error {
	var tl *limits.TooLong
	if errors.As(err, &tl) { // a value in the rows of the batch after pr.row
		tl.Line, tl.Row, tl.Column, tl.Name = int(pr.row)+1, true, l.index+1, l.name
		return limits.Invalid("read AWS CUR "+pr.rd.name, tl)
	}
	if errors.Is(err, io.EOF) {
		err = errors.New("the column ends before the row group does")
	}
	return gpucost.Errorf(gpucost.EInvalid, "read AWS CUR %s: %s: %v; the file is truncated or damaged, export or download it again", pr.where(-1), readerr.Column(l.index+1, l.name), err)
}

// fillFlat fills column f of the batch. A bad value returns its row and an error; damaged pages
// return row -1.
func (pr *pqRow) fillFlat(f field, l *pqLeaf, n int) (int, error) {
	b, c := pr.b, &l.cur
	switch k := f.kind(); {
	case k == kString && l.conv == cvText:
		if err := c.stringsRows(b.str[:n], pr.rd.in, f); err != nil {
			return -1, pr.damaged(l, err)
		}
		return n, nil
	case k == kAmount && l.conv == cvDouble:
		return pr.amounts(l, f-aUnblended, n)
	case k == kQuantity && l.conv == cvDouble:
		if err := c.doubles(b.usage[:n], b.ok[:n]); err != nil {
			return -1, pr.damaged(l, err)
		}
		for r := range n {
			if v := b.usage[r]; math.IsNaN(v) || math.IsInf(v, 0) {
				return r, pr.bad(l, r, parquet.DoubleValue(v), kQuantity, errors.New("not a finite number"))
			}
		}
		return n, nil
	case k == kTime && l.conv == cvTimeInt:
		if err := pr.unixTimes(l, f-tBillStart, n); err != nil {
			return -1, pr.damaged(l, err)
		}
		return n, nil
	}
	for r := range n {
		present, err := c.next()
		if err != nil {
			return -1, pr.damaged(l, err)
		}
		if err := pr.value(f, l, r, present); err != nil {
			return r, err
		}
	}
	return n, nil
}

// amounts fills amount i of the batch's n rows from a DOUBLE column, converting each value as the
// page gives it. A bad value returns its row and an error; damaged pages return row -1.
func (pr *pqRow) amounts(l *pqLeaf, i field, n int) (int, error) {
	b, c := pr.b, &l.cur
	for r := 0; r < n; {
		m, err := c.Run(n - r)
		if err != nil {
			return -1, pr.damaged(l, err)
		}
		for end := r + m; r < end; r++ {
			k, ok := c.Take()
			v := int64(0)
			if ok {
				f := c.Float(k)
				if v, err = pr.nanos(f); err != nil {
					return r, pr.bad(l, r, parquet.DoubleValue(f), kAmount, err)
				}
			}
			b.amt[r][i], b.has[r][i] = v, ok
		}
	}
	return n, nil
}

// unixTimes fills time slot of the batch's n rows from an INT64 TIMESTAMP column, converting each
// value as the page gives it.
func (pr *pqRow) unixTimes(l *pqLeaf, slot field, n int) error {
	b, c := pr.b, &l.cur
	for r := 0; r < n; {
		m, err := c.Run(n - r)
		if err != nil {
			return err
		}
		for end := r + m; r < end; r++ {
			t := zeroTime
			if k, ok := c.Take(); ok {
				t = pr.unixTime(slot, c.Int(k), l.unit)
			}
			b.times[r][slot] = t
		}
	}
	return nil
}

// nanos converts a DOUBLE amount (floatNanos), remembering the amounts that take its slow path:
// the same prices and rates recur down a bill.
func (pr *pqRow) nanos(f float64) (int64, error) {
	if n, ok := fastNanos(f); ok {
		return n, nil
	}
	bits := math.Float64bits(f)
	e := &pr.slowNanos[(bits^bits>>29)%uint64(len(pr.slowNanos))]
	if e.ok && e.bits == bits {
		return e.n, nil
	}
	n, err := slowFloatNanos(f)
	if err == nil {
		*e = slowNanos{bits, n, true}
	}
	return n, err
}

// slowNanos is a slot of pqRow's cache of amounts floatNanos converts the slow way.
type slowNanos struct {
	bits uint64
	n    int64
	ok   bool
}

// unixTime converts a timestamp in units since the epoch, reusing the last result.
func (pr *pqRow) unixTime(slot field, n int64, unit time.Duration) time.Time {
	if n == pr.lastTime[slot] && !pr.lastVal[slot].IsZero() {
		return pr.lastVal[slot]
	}
	t := time.Unix(0, 0).Add(time.Duration(n) * unit).UTC()
	if unit == time.Millisecond {
		t = time.UnixMilli(n).UTC()
	} else if unit == time.Microsecond {
		t = time.UnixMicro(n).UTC()
	}
	pr.lastTime[slot], pr.lastVal[slot] = n, t
	return t
}

func (pr *pqRow) bad(l *pqLeaf, r int, v parquet.Value, k kind, cause error) error {
	return cellError(pr.where(r), readerr.Column(l.index+1, l.name), v.String(), wants[k], cause)
}

// value stores the current value of a flat column in row r of the batch, for the conversions
// without a bulk path.
func (pr *pqRow) value(f field, l *pqLeaf, r int, present bool) error {
	b := pr.b
	switch f.kind() {
	case kString:
		b.str[r][f] = ""
		if present {
			b.str[r][f] = pr.rd.in.field(f, pr.text(l))
		}
	case kTime:
		t, err := pr.time(f, l, present)
		if err != nil {
			return pr.bad(l, r, l.cur.value(), kTime, err)
		}
		b.times[r][f-tBillStart] = t
	case kQuantity:
		b.usage[r] = 0
		if present {
			q, err := quantity(l)
			if err != nil {
				return pr.bad(l, r, l.cur.value(), kQuantity, err)
			}
			b.usage[r] = q
		}
	case kAmount:
		i := f - aUnblended
		b.amt[r][i], b.has[r][i] = 0, false
		if present {
			n, ok, err := amount(l)
			if err != nil {
				return pr.bad(l, r, l.cur.value(), kAmount, err)
			}
			b.amt[r][i], b.has[r][i] = n, ok
		}
	}
	return nil
}

// text returns a column's current value as text; valid until the next call.
func (pr *pqRow) text(l *pqLeaf) []byte {
	c := &l.cur
	switch l.conv {
	case cvInt:
		pr.scratch = strconv.AppendInt(pr.scratch[:0], c.int64Val(), 10)
		return pr.scratch
	case cvDouble:
		pr.scratch = strconv.AppendFloat(pr.scratch[:0], c.doubleVal(), 'f', -1, 64)
		return pr.scratch
	case cvDecInt:
		n, _ := scaledNanos(c.int64Val(), l.scale)
		pr.scratch = append(pr.scratch[:0], gpucost.Money{Nanos: n}.Decimal()...)
		return pr.scratch
	}
	return c.bytesVal()
}

// time converts a column's current timestamp.
func (pr *pqRow) time(f field, l *pqLeaf, present bool) (time.Time, error) {
	if !present {
		return zeroTime, nil
	}
	slot := f - tBillStart
	c := &l.cur
	switch l.conv {
	case cvTimeInt:
		return pr.unixTime(slot, c.int64Val(), l.unit), nil
	case cvDate:
		return time.Unix(int64(c.int32Val())*86400, 0).UTC(), nil
	case cvInt96:
		i96 := c.int96Val()
		nanos := int64(i96[0]) | int64(i96[1])<<32
		days := int64(i96[2]) - 2440588 // the Julian day of 1970-01-01
		return time.Unix(days*86400, nanos).UTC(), nil
	}
	b := c.bytesVal()
	if string(b) == string(pr.lastText[slot]) && !pr.lastVal[slot].IsZero() {
		return pr.lastVal[slot], nil
	}
	tv, ok := parseTime(b)
	if !ok {
		return zeroTime, errors.New("unreadable timestamp")
	}
	pr.lastText[slot], pr.lastVal[slot], pr.lastTime[slot] = append(pr.lastText[slot][:0], b...), tv, math.MinInt64
	return tv, nil
}

// amount converts a column's current amount to nano-units.
func amount(l *pqLeaf) (int64, bool, error) {
	c := &l.cur
	switch l.conv {
	case cvDouble:
		n, err := floatNanos(c.doubleVal())
		return n, err == nil, err
	case cvFloat:
		m, err := gpucost.ParseMoney(strconv.FormatFloat(float64(c.floatVal()), 'g', -1, 32), "")
		return m.Nanos, err == nil, err
	case cvInt:
		n, err := scaledNanos(c.int64Val(), 0)
		return n, err == nil, err
	case cvDecInt:
		n, err := scaledNanos(c.int64Val(), l.scale)
		return n, err == nil, err
	case cvDecBin:
		n, err := bigNanos(twos(c.bytesVal()), l.scale)
		return n, err == nil, err
	}
	return parseNanos(c.bytesVal())
}

// quantity converts a column's current usage amount.
func quantity(l *pqLeaf) (float64, error) {
	c := &l.cur
	switch l.conv {
	case cvDouble:
		return c.doubleVal(), nil
	case cvFloat:
		return float64(c.floatVal()), nil
	case cvInt:
		return float64(c.int64Val()), nil
	case cvDecInt, cvDecBin:
		n, ok, err := amount(l)
		if !ok {
			return 0, err
		}
		return float64(n) / 1e9, nil
	}
	b := c.bytesVal()
	if len(b) == 0 {
		return 0, nil
	}
	q, err := strconv.ParseFloat(unsafe.String(&b[0], len(b)), 64)
	if err != nil || math.IsNaN(q) || math.IsInf(q, 0) {
		return 0, errors.New("not a finite number")
	}
	return q, nil
}

// assemble puts row r of the batch together and finishes it.
func (pr *pqRow) assemble(r int) error {
	rd, b := pr.rd, pr.b
	rec := &rd.rec
	rec.line = int(pr.row)
	rec.str = &b.str[r]                     // a string column the file lacks is never set: ""
	rec.times = &b.times[r]                 // a time column the file lacks is never set: zero
	rec.amt, rec.has = &b.amt[r], &b.has[r] // an absent column's amount is never set: 0, not had
	if pr.flat[qUsageAmount] != nil {
		rec.usage = b.usage[r]
	}
	pr.resolveMaps(r)
	return rd.finish(func(f field) (string, string) {
		if f < 0 {
			return pr.where(-1), ""
		}
		return pr.where(-1), readerr.Column(0, fieldNames[f])
	})
}
