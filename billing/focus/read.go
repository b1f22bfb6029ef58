package focus

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// Read reads a FOCUS 1.0, 1.1 or 1.2 CSV file from r, gzip-compressed or not (told by its first
// bytes), and calls emit with each row as a CostLine, in file order. name names r in errors.
//
// The header maps columns by name, in any order; a byte order mark is ignored. Columns outside
// the specification are kept by name in CostLine.Extra. Empty values and the word NULL, in any case (null, Null), are null.
//
// The emitted line and its Extra map are reused from one call to the next, so reading allocates
// almost nothing per row: use Clone to keep a line. Tags maps are shared by lines with identical
// tags and never change; do not modify them.
//
// An import lands whole or not at all, so Read stops at the first bad value with an error naming
// file:line: column N (name), the value and what to do; a truncated gzip stream is an error too. Lines
// emitted before an error must be discarded by the caller. An error from emit stops the read and
// is returned wrapped with the file and line.
func Read(r io.Reader, name string, emit func(*gpucost.CostLine) error) (Stats, error) {
	return ReadWith(r, name, Options{}, emit)
}

// Options say what a read keeps of the columns outside the specification.
type Options struct {
	// Extra chooses the columns outside the specification whose values are kept in
	// CostLine.Extra; nil keeps them all, as Read and ReadParquet do. The others are read past
	// and listed in Stats.Unknown. An importer that sums lines by their extras keeps only
	// those asked for: a column unique per row (the Id of FOCUS exports) would stop lines
	// merging.
	Extra func(column string) bool

	// Lenient reads amounts written with a currency symbol and thousands separators
	// ("$10,000.00") and dates in unambiguous forms other than ISO 8601 ("2025/10/01", RFC 1123),
	// which a strict read refuses, and counts them in Stats.Coerced (billing/internal/lenient).
	// An amount whose symbol is not the row's BillingCurrency, and a date such as 01/02/2025,
	// stay errors. CSV only: Parquet stores amounts and times typed.
	Lenient bool
}

// ReadWith is Read with options.
func ReadWith(r io.Reader, name string, opts Options, emit func(*gpucost.CostLine) error) (Stats, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	head, _ := br.Peek(4)
	format := "csv"
	var in io.Reader = br
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "%s: not a readable gzip file: %w", name, err)
		}
		defer zr.Close()
		in, format = zr, "csv.gz"
	case bytes.Equal(head, parquetMagic):
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "%s is a Parquet file; read it with ReadFile or ReadParquet", name)
	}
	return readCSV(in, name, format, opts, emit)
}

var parquetMagic = []byte("PAR1")

// Clone returns a copy of l that later reads leave alone: its Extra map is copied. Tags maps,
// which nothing changes, are shared.
func Clone(l *gpucost.CostLine) gpucost.CostLine {
	c := *l
	c.Extra = maps.Clone(l.Extra)
	return c
}

// ReadFile reads the FOCUS file at path, CSV, gzip-compressed CSV or Parquet, told by its
// content. See Read.
func ReadFile(path string, emit func(*gpucost.CostLine) error) (Stats, error) {
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "open FOCUS file: %w", err)
	}
	defer f.Close()
	head := make([]byte, 4)
	n, _ := io.ReadFull(f, head)
	if n == 4 && bytes.Equal(head, parquetMagic) {
		st, err := f.Stat()
		if err != nil {
			return Stats{}, fmt.Errorf("read FOCUS file %s: %w", path, err)
		}
		return ReadParquet(f, st.Size(), path, emit)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return Stats{}, fmt.Errorf("read FOCUS file %s: %w", path, err)
	}
	return Read(f, path, emit)
}

// readCSV reads the header and the rows with the bill readers' CSV scanner
// (billing/internal/csvscan).
func readCSV(r io.Reader, name, format string, opts Options, emit func(*gpucost.CostLine) error) (Stats, error) {
	s := csvscan.New(r, 64<<10)
	if !s.Next() {
		if err := s.Err(); err != nil {
			return Stats{}, csvError(name, err)
		}
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "%s is empty: a FOCUS CSV file starts with a header", name)
	}
	names := make([]string, s.Count())
	for i := range names {
		f := s.Field(i)
		if i == 0 {
			f = bytes.TrimPrefix(f, []byte("\xef\xbb\xbf"))
		}
		names[i] = string(bytes.TrimSpace(f))
	}
	lay, err := newLayout(name, names)
	if err != nil {
		return Stats{}, err
	}
	lay.keepExtra(opts.Extra)
	s.Names = names
	b := newBuilder(name, lay, format)
	b.lenient = opts.Lenient
	plans := b.plan(lay)
	for s.Next() {
		if err := b.csvRow(s, lay, plans); err != nil {
			return b.result(), err
		}
		if err := emit(&b.line); err != nil {
			return b.result(), fmt.Errorf("%s:%d: %w", name, s.Line(), err)
		}
	}
	if err := s.Err(); err != nil {
		return b.result(), csvError(name, err)
	}
	return b.result(), nil
}

// csvWords are what FOCUS messages call the scanner's malformations.
var csvWords = map[error]string{
	csvscan.ErrUnclosedQuote:  "a quoted field is not closed before the end of the file",
	csvscan.ErrTextAfterQuote: `a quote inside a quoted field must be doubled ("")`,
}

func csvError(name string, err error) error {
	var tl *limits.TooLong
	if errors.As(err, &tl) {
		return limits.Invalid(name, tl)
	}
	var e *csvscan.SyntaxError
	if errors.As(err, &e) {
		return gpucost.Errorf(gpucost.EInvalid, "%s:%d: %s: %s; fix the file and import it again",
			name, e.Line, readerr.Column(e.Column, e.Name), csvWords[e.Err])
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) {
		return gpucost.Errorf(gpucost.EInvalid, "%s is truncated or corrupt (%w); copy it again and import it again", name, err)
	}
	return fmt.Errorf("read FOCUS %s: %w", name, err)
}

// kExtra marks the plan of an extra column.
const kExtra kind = 255

// colPlan is where the values of one CSV column go: pointers into the builder's line, so a row
// is filled without looking a field up per value.
type colPlan struct {
	kind  kind
	bit   uint64 // 1 << field
	extra int    // position among the extra columns
	str   *string
	money *int64
	tm    *time.Time
	flt   *float64
	strs  *strCache
	times *timeCache
}

func (b *builder) plan(lay *layout) []colPlan {
	plans := make([]colPlan, len(lay.fields))
	extra := 0
	for i, f := range lay.fields {
		p := &plans[i]
		p.kind, p.bit = kindOf(f), 1<<f
		if f == fExtra {
			p.kind, p.extra = kExtra, extra
			extra++
		}
		switch p.kind {
		case kString, kEnum:
			p.str, p.strs = stringOf(&b.line, f), &b.strs[f]
		case kMoney:
			p.money = &moneyOf(&b.line, f).Nanos
		case kTime:
			p.tm, p.times = timeOf(&b.line, f), &b.times[timeIndex(f)]
		case kFloat:
			p.flt = b.floatField(f)
		}
	}
	return plans
}

// csvRow fills the line from the record in s.
func (b *builder) csvRow(s *csvscan.Scanner, lay *layout, plans []colPlan) error {
	if s.Count() != len(plans) {
		return gpucost.Errorf(gpucost.EInvalid, "%s:%d: the row has %d fields and the header %d; fix the file and import it again",
			b.file, s.Line(), s.Count(), len(plans))
	}
	b.begin(s.Line())
	for i := range plans {
		p := &plans[i]
		if p.kind == kSkip {
			continue
		}
		v, esc := s.Raw(i)
		ok := true
		switch {
		case esc == csvscan.Doubled && p.kind == kTags: // JSON text: cached as written, unescaped once
			ok = b.doubledTags(p, v)
		case esc == csvscan.Doubled:
			ok = b.value(p, s.Field(i))
		case isNull(v):
			p.clear()
		default:
			ok = b.value(p, v)
		}
		if !ok {
			if err := b.coerce(s, lay, p, i); err != nil {
				return err
			}
		}
	}
	if err := b.checkSigns(s, lay); err != nil {
		return err
	}
	missing, err := b.finish()
	if err != nil {
		return err
	}
	if missing != 0 {
		i := fieldColumn(lay, missing)
		line, _ := s.Where(i)
		return gpucost.Errorf(gpucost.EInvalid, "%s:%d: %s is null (empty or NULL); FOCUS requires it in every row, so fix the file and import it again",
			b.file, line, readerr.Column(i+1, lay.names[i]))
	}
	return nil
}

// value stores the text v (not null) of a column; it reports false if v is not a value of the
// column's kind.
func (b *builder) value(p *colPlan, v []byte) bool {
	switch p.kind {
	case kString, kEnum:
		*p.str = p.strs.get(v)
	case kMoney:
		n, err := parseNanos(trimSpace(v))
		if err != nil {
			return false
		}
		*p.money = n
	case kTime:
		t, ok := p.times.get(trimSpace(v))
		if !ok {
			return false
		}
		*p.tm = t
	case kFloat:
		x, ok := parseQuantity(trimSpace(v))
		if !ok {
			return false
		}
		*p.flt = x
	case kTags:
		t, err := b.tags.get(v)
		if err != nil {
			return false
		}
		b.line.Tags = t
	case kExtra:
		b.setExtra(p.extra, v)
		return true
	}
	b.set |= p.bit
	return true
}

// doubledTags stores the Tags of a CSV field written with its quotes doubled, raw as written;
// it reports false if the field is not a JSON object.
func (b *builder) doubledTags(p *colPlan, raw []byte) bool {
	t, err := b.tags.getDoubled(raw)
	if err != nil {
		return false
	}
	b.line.Tags = t
	b.set |= p.bit
	return true
}

// clear sets the column's field to null.
func (p *colPlan) clear() {
	switch p.kind {
	case kString, kEnum:
		*p.str = ""
	case kMoney:
		*p.money = 0
	case kTime:
		*p.tm = time.Time{}
	case kFloat:
		*p.flt = 0
	}
}

// fieldColumn returns the index of the column that fills field f.
func fieldColumn(lay *layout, f field) int {
	for i, g := range lay.fields {
		if g == f {
			return i
		}
	}
	return 0
}
