// Package csvscan splits RFC 4180 CSV into records without allocating per record, for the bill
// readers (AWS CUR, Azure cost details, GCP billing export), whose rows are wide and whose quoted
// cells are JSON text dense with doubled quotes. It is several times faster than encoding/csv on
// those rows: fields are slices of the scanner's buffer, and quoted fields are unescaped only when
// a reader asks, so cells that only key a cache are never copied.
package csvscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// errNeedMore tells the scanner that a record continues past the data buffered.
var errNeedMore = errors.New("need more data")

// Escape says how a field is written in the file.
type Escape uint8

const (
	// Plain is an unquoted field: its bytes are its value.
	Plain Escape = iota
	// Quoted is a quoted field without quotes inside: its bytes between the quotes are its value.
	Quoted
	// Doubled is a quoted field holding doubled quotes (""), which Field unescapes.
	Doubled
)

// Scanner reads CSV records from a reader. Quoted fields may hold commas, doubled quotes and line
// breaks; CRLF and LF line ends are both fine; blank lines are skipped; a quote inside an unquoted
// field is taken as written. A quoted field followed by more text before the next comma is an
// error, as is a quote left open at the end of the input. A field longer than limits.MaxField or
// a record longer than limits.MaxLine stops it with a *limits.TooLong error, found before more
// than MaxLine bytes of the record are buffered: an unclosed quote or a decompression bomb cannot
// take the memory.
type Scanner struct {
	// Names are the columns' names, by position, for messages; readers set them from the header.
	Names []string

	r        io.Reader
	buf      []byte
	pos, end int
	eof      bool
	err      error
	line     int      // line number at which the next record starts
	recLine  int      // line number at which the record just read starts
	rec      []byte   // the current record's bytes
	offs     []uint64 // each field's start<<32 | end in rec, with the flags below
	n        int      // fields in the current record
	scratch  []byte   // unescaped fields of the current record
	badCol   int      // the column of a malformed field, for messages
	badLines int
	badOff   int // where in rec the malformation is, for messages
}

// Errors a malformed record stops the scanner with, as the Err of a *SyntaxError.
var (
	ErrUnclosedQuote  = errors.New("a quoted field without its closing quote")
	ErrTextAfterQuote = errors.New(`a quoted field followed by more text; quote the whole field and double its quotes ("")`)
)

// SyntaxError is a malformed record: where it is, and ErrUnclosedQuote or ErrTextAfterQuote.
// Messages name the line and the field (its number and header name); Offset helps only on very
// long lines.
type SyntaxError struct {
	Line   int    // the line of the malformation, from 1
	Column int    // the field it is in, from 1
	Name   string // the field's header name, where Scanner.Names has it
	Offset int    // the byte of the line it is at, from 1: the field's opening quote, or the text after its closing one
	Err    error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, %s: %v", e.Line, readerr.Column(e.Column, e.Name), e.Err)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

const (
	quotedBit  = 1 << 63 // the field was quoted
	doubledBit = 1 << 62 // … and holds doubled quotes
	offMask    = 1<<30 - 1
)

// New returns a scanner of r with a buffer of size bytes to start with; the buffer grows to hold
// the longest record, up to limits.MaxLine.
func New(r io.Reader, size int) *Scanner {
	return &Scanner{r: r, buf: make([]byte, max(size, 64)), line: 1}
}

// Count returns the number of fields in the current record.
func (s *Scanner) Count() int { return s.n }

// Line returns the line number (from 1) at which the current record starts.
func (s *Scanner) Line() int { return s.recLine }

// Err returns the error that stopped Next, or nil at the end of the input. Its message names the
// line and the column (field number, from 1) of the malformed record; a field or a record past
// the limits is a *limits.TooLong.
func (s *Scanner) Err() error { return s.err }

// Raw returns field i of the current record as written (between its quotes, if quoted) and how
// it is escaped; valid until the next call to Next. Two fields with equal bytes and equal
// Doubled-ness have equal values, so Raw serves as a cache key.
func (s *Scanner) Raw(i int) ([]byte, Escape) {
	o := s.offs[i]
	b := s.rec[o>>32&offMask : o&offMask]
	switch {
	case o&doubledBit != 0:
		return b, Doubled
	case o&quotedBit != 0:
		return b, Quoted
	}
	return b, Plain
}

// Field returns field i of the current record unescaped; valid until the next call to Next.
func (s *Scanner) Field(i int) []byte {
	b, e := s.Raw(i)
	if e != Doubled {
		return b
	}
	from := len(s.scratch)
	s.scratch = AppendUnescaped(s.scratch, b)
	return s.scratch[from:len(s.scratch):len(s.scratch)]
}

// AppendUnescaped appends the value of a quoted field's content b to dst: each doubled quote
// becomes one quote.
func AppendUnescaped(dst, b []byte) []byte {
	for {
		j := bytes.IndexByte(b, '"')
		if j < 0 {
			return append(dst, b...)
		}
		dst = append(dst, b[:j+1]...)
		b = b[j+1:]
		if len(b) > 0 && b[0] == '"' {
			b = b[1:] // the second quote of a pair
		}
	}
}

// Next reads the next record. It returns false at the end of the input or on an error, which Err
// then returns.
func (s *Scanner) Next() bool {
	s.scratch = s.scratch[:0]
	for {
		n, lines, err := s.parse(s.buf[s.pos:s.end], s.eof)
		switch {
		case err == nil:
			s.recLine = s.line
			s.pos += n
			s.line += lines
			if s.n == 1 && s.offs[0]&offMask == 0 && s.offs[0]&quotedBit == 0 {
				continue // a blank line
			}
			if n > limits.MaxField {
				if err := s.checkFields(); err != nil {
					s.err = err
					return false
				}
			}
			return true
		case err == io.EOF:
			return false
		case err != errNeedMore:
			s.err = s.syntaxError(err)
			return false
		}
		if err := s.fill(); err != nil {
			s.err = err
			return false
		}
	}
}

// Invalid is the gpucost.EInvalid error of a read, called what in the message ("read AWS CUR
// bill.csv"), that the scanner's Err stopped: a *limits.TooLong says the limit passed, a
// malformed record where it is (what:line: column n (name):) and what to do.
func (s *Scanner) Invalid(what string) error {
	var tl *limits.TooLong
	if errors.As(s.err, &tl) {
		return limits.Invalid(what, tl)
	}
	var se *SyntaxError
	if errors.As(s.err, &se) {
		return gpucost.Errorf(gpucost.EInvalid, "%s:%d: %s: %v; the file is truncated or not valid CSV, download or export it again",
			what, se.Line, readerr.Column(se.Column, se.Name), se.Err)
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s: %v; the file is truncated or not valid CSV, download or export it again", what, s.err)
}

// syntaxError is the error for the malformation err that parse found at s.badOff in s.rec.
func (s *Scanner) syntaxError(err error) error {
	before := s.rec[:min(s.badOff, len(s.rec))]
	e := &SyntaxError{Line: s.line + s.badLines, Column: s.badCol, Err: err,
		Offset: len(before) - (bytes.LastIndexByte(before, '\n') + 1) + 1}
	if s.badCol >= 1 && s.badCol <= len(s.Names) {
		e.Name = s.Names[s.badCol-1]
	}
	return e
}

// Where returns the line (from 1) and the byte of that line (from 1) at which field i of the
// current record starts — its opening quote, if quoted — for messages that point into the file.
func (s *Scanner) Where(i int) (line, col int) {
	o := s.offs[i]
	p := int(o >> 32 & offMask)
	if o&quotedBit != 0 {
		p--
	}
	before := s.rec[:p]
	return s.recLine + bytes.Count(before, newline), p - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

var newline = []byte{'\n'}

// fill moves the unread data to the front of the buffer, grows it when full, and reads more. A
// record in progress longer than a field may be is looked into first, so that a field past
// limits.MaxField is refused as soon as a refill finds it, with the buffer at most MaxLine.
func (s *Scanner) fill() error {
	open := 0
	if s.end-s.pos > limits.MaxField {
		col, longest, last := probe(s.buf[s.pos:s.end])
		if longest > limits.MaxField {
			return s.tooLong(col, limits.MaxField, false)
		}
		open = last
	}
	var err error
	s.buf, s.end, s.eof, err = Refill(s.r, s.buf, s.pos, s.end)
	s.pos = 0
	if errors.Is(err, ErrTooLong) {
		return s.tooLong(open, limits.MaxLine, true)
	}
	return err
}

// checkFields refuses the current record if one of its fields is longer than limits.MaxField.
func (s *Scanner) checkFields() error {
	for i := range s.n {
		if o := s.offs[i]; int(o&offMask)-int(o>>32&offMask) > limits.MaxField {
			s.line = s.recLine
			return s.tooLong(i, limits.MaxField, false)
		}
	}
	return nil
}

// tooLong returns the error for column col (from 0) of the record starting at s.line.
func (s *Scanner) tooLong(col, limit int, record bool) error {
	e := &limits.TooLong{Line: s.line, Column: col + 1, Limit: limit, Record: record}
	if col < len(s.Names) {
		e.Name = s.Names[col]
	}
	return e
}

// probe looks into data, the start of a record that goes on past it, and returns the column
// (from 0) of its longest field, that field's length so far, and the column data ends in.
func probe(data []byte) (longest, n, last int) {
	col := 0
	for i := 0; ; col++ {
		start, end, next := i, len(data), len(data) // the field's content, and what follows it
		if i < len(data) && data[i] == '"' {
			start++
			if q, _, err := closingQuoteBytes(data, i+1, false); err == nil {
				end, next = q, q+1
			}
		} else if j := bytes.IndexAny(data[i:], ",\n"); j >= 0 {
			end, next = i+j, i+j
		}
		if end-start > n {
			longest, n = col, end-start
		}
		if next >= len(data) || data[next] != ',' {
			return longest, n, col
		}
		i = next + 1
	}
}

// ErrTooLong is Refill's error for a record that outgrows limits.MaxLine.
var ErrTooLong = errors.New("record too long")

// Refill serves scanners that read records in place from a buffer: it moves buf[pos:end] to the
// front, doubles buf when that leaves no room (up to limits.MaxLine, else ErrTooLong), and reads
// from r until it gets bytes or r ends. It returns the buffer, the end of its data and whether
// r has ended; the unread data now starts at 0, moved pos bytes back.
func Refill(r io.Reader, buf []byte, pos, end int) ([]byte, int, bool, error) {
	if pos > 0 {
		end = copy(buf, buf[pos:end])
	}
	if end == len(buf) {
		if len(buf) >= limits.MaxLine {
			return buf, end, false, ErrTooLong
		}
		buf = append(buf, make([]byte, min(len(buf), limits.MaxLine-len(buf)))...)
	}
	for {
		n, err := r.Read(buf[end:])
		end += n
		switch {
		case err == io.EOF:
			return buf, end, true, nil
		case err != nil:
			return buf, end, false, err
		case n > 0:
			return buf, end, false, nil
		}
	}
}
