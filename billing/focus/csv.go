package focus

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"

	"github.com/gpucost/gpucost/billing/internal/limits"
)

// csvScanner splits RFC 4180 CSV into records without copying: fields are slices of its buffer,
// valid until the next call. encoding/csv copies every record into a new string and splits the
// FOCUS sample at about half the speed; a FOCUS row is 40-odd columns, most of them quoted.
//
// Differences from encoding/csv: a quote inside an unquoted field is taken literally (as with
// LazyQuotes); blank lines are skipped likewise; a lone CR ends a line.
type csvScanner struct {
	r      io.Reader
	buf    []byte
	pos    int  // start of the unread data in buf
	end    int  // end of the data in buf
	eof    bool // r has no more data
	line   int  // line number of buf[pos]
	fields [][]byte
	starts []int // where each field starts in buf, for messages
	unq    []byte
	start  int      // line the current record starts on
	names  []string // the columns' names, for messages
}

// errCSV is a malformed record; its message says where.
type errCSV struct {
	line, col int
	msg       string
}

func (e *errCSV) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

func newCSVScanner(r io.Reader) *csvScanner {
	return &csvScanner{r: r, buf: make([]byte, 64<<10), line: 1}
}

// isSpecial marks the bytes that end an unquoted field.
var isSpecial = [256]bool{',': true, '\n': true, '\r': true}

// next reads the next record. It returns false at the end of the input. A field longer than
// limits.MaxField or a record longer than limits.MaxLine is a *limits.TooLong error, found before
// more than MaxLine bytes of it are buffered.
func (s *csvScanner) next() (bool, error) {
	for {
		done, ok, err := s.parse()
		if ok && s.pos-s.recordStart() > limits.MaxField {
			for i, f := range s.fields {
				if len(f) > limits.MaxField {
					return false, s.tooLong(s.start, i, limits.MaxField, false)
				}
			}
		}
		if err != nil || ok {
			return ok, err
		}
		if done {
			return false, nil
		}
		if err := s.fill(); err != nil {
			return false, err
		}
	}
}

// fill moves the unread data to the front of the buffer, grows it if a record fills it, and reads
// more. A record in progress longer than a field may be is looked into first: parse left the
// start of each of its fields in starts, the last one open.
func (s *csvScanner) fill() error {
	if s.eof {
		return nil
	}
	open := 0
	if s.end-s.pos > limits.MaxField && len(s.starts) > 0 && s.starts[0] >= s.pos {
		open = len(s.starts) - 1
		for i, f := range s.fields[:min(len(s.fields), open)] {
			if len(f) > limits.MaxField {
				return s.tooLong(s.line, i, limits.MaxField, false)
			}
		}
		if s.end-s.starts[open] > limits.MaxField {
			return s.tooLong(s.line, open, limits.MaxField, false)
		}
	}
	n := copy(s.buf, s.buf[s.pos:s.end])
	s.pos, s.end = 0, n
	if n == len(s.buf) {
		if len(s.buf) >= limits.MaxLine {
			return s.tooLong(s.line, open, limits.MaxLine, true)
		}
		nb := make([]byte, min(2*len(s.buf), limits.MaxLine))
		copy(nb, s.buf[:n])
		s.buf = nb
	}
	for s.end < len(s.buf) { // fill the buffer: a reader may hand out a few bytes at a time
		m, err := s.r.Read(s.buf[s.end:])
		s.end += m
		if errors.Is(err, io.EOF) {
			s.eof = true
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// parse tries to take one record from the buffer. It returns ok when it did; done when the input
// is over; neither when it needs more data.
func (s *csvScanner) parse() (done, ok bool, err error) {
	b := s.buf[:s.end]
	p, line := s.pos, s.line
	for p < len(b) && (b[p] == '\n' || b[p] == '\r') { // blank lines
		if b[p] == '\r' && p+1 == len(b) && !s.eof {
			return false, false, nil
		}
		if b[p] == '\n' || p+1 == len(b) || b[p+1] != '\n' {
			line++
		}
		p++
	}
	s.pos, s.line = p, line
	if p == len(b) {
		return s.eof, false, nil
	}
	s.fields, s.starts, s.unq = s.fields[:0], s.starts[:0], s.unq[:0]
	s.start = s.line
	quoted := false
	for {
		s.starts = append(s.starts, p)
		if p == len(b) { // a comma ended the input: one more, empty field
			s.fields = append(s.fields, b[p:p])
			return s.endRecord(b, p, quoted)
		}
		var f []byte
		q := p
		if b[p] == '"' {
			quoted = true
			if f, q, err = s.quoted(b, p); err != nil || q < 0 {
				return false, false, err
			}
		} else {
			q = scanUnquoted(b, p)
			f = b[p:q]
		}
		s.fields = append(s.fields, f)
		if q == len(b) { // the input ends without a newline
			if !s.eof {
				return false, false, nil
			}
			return s.endRecord(b, q, quoted)
		}
		if b[q] == ',' {
			p = q + 1
			if p == len(b) && !s.eof {
				return false, false, nil
			}
			continue
		}
		return s.endRecord(b, q, quoted)
	}
}

// scanUnquoted returns the index of the first comma, CR or LF at or after p, or len(b). It looks
// at eight bytes at a time: a FOCUS row is mostly short fields.
func scanUnquoted(b []byte, p int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; p+8 <= len(b); p += 8 {
		w := binary.LittleEndian.Uint64(b[p:])
		x, y, z := w^(','*ones), w^('\n'*ones), w^('\r'*ones)
		m := (x-ones)&^x | (y-ones)&^y | (z-ones)&^z
		if m &= highs; m != 0 {
			return p + bits.TrailingZeros64(m)/8
		}
	}
	for p < len(b) && !isSpecial[b[p]] {
		p++
	}
	return p
}

// endRecord consumes the line end at b[q] (if any) and counts the lines the record spans.
func (s *csvScanner) endRecord(b []byte, q int, quoted bool) (done, ok bool, err error) {
	if quoted { // quoted fields may hold line ends
		s.line += bytes.Count(b[s.pos:q], newline)
	}
	if q < len(b) {
		if b[q] == '\r' {
			if q+1 == len(b) && !s.eof {
				return false, false, nil
			}
			if q+1 < len(b) && b[q+1] == '\n' {
				q++
			}
		}
		q++
		s.line++
	}
	s.pos = q
	return false, true, nil
}

// where returns the line and the 1-based byte column at which field i of the record starts, for
// messages. Valid until the next call of next.
func (s *csvScanner) where(i int) (line, col int) {
	return s.lineCol(s.starts[i])
}

func (s *csvScanner) lineCol(p int) (line, col int) {
	b := s.buf[:p]
	first := s.recordStart()
	line = s.start + bytes.Count(b[first:], newline)
	return line, p - (bytes.LastIndexByte(b, '\n') + 1) + 1
}

// recordStart is where the current record starts in the buffer.
func (s *csvScanner) recordStart() int {
	if len(s.starts) == 0 {
		return s.pos
	}
	return s.starts[0]
}

// quoted reads the quoted field at b[p]. It returns the field and the index just past the closing
// quote; the index is -1 if the buffer ends first.
func (s *csvScanner) quoted(b []byte, p int) ([]byte, int, error) {
	i := p + 1
	off := -1 // where the field starts in s.unq once a doubled quote is met
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			if s.eof {
				line, col := s.lineCol(p)
				return nil, 0, &errCSV{line, col, "a quoted field is not closed before the end of the file"}
			}
			return nil, -1, nil
		}
		k := i + j
		if k+1 == len(b) && !s.eof {
			return nil, -1, nil
		}
		if k+1 < len(b) && b[k+1] == '"' { // "" is one quote
			if off < 0 {
				off = len(s.unq)
			}
			s.unq = append(s.unq, b[i:k+1]...)
			i = k + 2
			continue
		}
		if k+1 < len(b) && !isSpecial[b[k+1]] {
			line, col := s.lineCol(k + 1)
			return nil, 0, &errCSV{line, col, `a quote inside a quoted field must be doubled ("")`}
		}
		if off < 0 {
			return b[p+1 : k], k + 1, nil
		}
		s.unq = append(s.unq, b[i:k]...)
		return s.unq[off:], k + 1, nil
	}
}

var newline = []byte{'\n'}

// tooLong returns the error for column col (from 0) of the record starting on line.
func (s *csvScanner) tooLong(line, col, limit int, record bool) *limits.TooLong {
	e := &limits.TooLong{Line: line, Column: col + 1, Limit: limit, Record: record}
	if col < len(s.names) {
		e.Name = s.names[col]
	}
	return e
}
