package azure

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
)

// maxRecord bounds one CSV record; a longer one is refused rather than buffered without end.
const maxRecord = 64 << 20

// errNeedMore tells the scanner that a record continues past the data buffered.
var errNeedMore = errors.New("need more data")

// csvScanner splits RFC 4180 CSV into records without allocating per record: the fields of a
// record are slices of the scanner's buffer, valid until the next call to next. A quoted field is
// handed out as written between its quotes, doubled quotes and all (raw); field unescapes it on
// demand, so cells that only key a cache are never copied. Quoted fields may hold commas, doubled
// quotes and line breaks; CRLF and LF line ends are both fine; blank lines are skipped; a quote
// inside an unquoted field is taken as written. It is faster than encoding/csv on cost details rows, whose
// Tags and AdditionalInfo cells are JSON full of quotes, and allocates nothing per record.
type csvScanner struct {
	r        io.Reader
	buf      []byte
	pos, end int
	eof      bool
	err      error
	line     int      // line number at which the next record starts
	recLine  int      // line number at which the record just read starts
	rec      []byte   // the current record's bytes
	offs     []uint64 // each field's start<<32 | end in rec; the top bit marks a quoted field
	n        int      // fields in the current record
	scratch  []byte   // unescaped quoted fields
	badCol   int      // the column of a malformed quote, for messages
	badLines int
}

// newCSVScanner returns a scanner of r with a buffer of size bytes to start with; it grows to
// hold the longest record.
func newCSVScanner(r io.Reader, size int) *csvScanner {
	return &csvScanner{r: r, buf: make([]byte, max(size, 64)), line: 1}
}

const quotedBit = 1 << 63

// count returns the number of fields in the current record.
func (s *csvScanner) count() int { return s.n }

// raw returns field i as written (between its quotes, if quoted) and whether it was quoted.
func (s *csvScanner) raw(i int) ([]byte, bool) {
	o := s.offs[i]
	return s.rec[o>>32&0x7fffffff : uint32(o)], o&quotedBit != 0
}

// field returns field i of the current record unescaped; valid until the next call to next. ok
// is false when a quote inside a quoted field is not doubled.
func (s *csvScanner) field(i int) (b []byte, ok bool) {
	f, quoted := s.raw(i)
	if !quoted || bytes.IndexByte(f, '"') < 0 {
		return f, true
	}
	from := len(s.scratch)
	for {
		j := bytes.IndexByte(f, '"')
		if j < 0 {
			s.scratch = append(s.scratch, f...)
			break
		}
		if j+1 == len(f) || f[j+1] != '"' {
			return nil, false
		}
		s.scratch = append(s.scratch, f[:j+1]...)
		f = f[j+2:]
	}
	return s.scratch[from:len(s.scratch):len(s.scratch)], true
}

// next reads the next record into s.fields. It returns false at the end of the input or on an
// error, which s.err then holds.
func (s *csvScanner) next() bool {
	s.scratch = s.scratch[:0]
	for {
		n, lines, err := s.parse(s.buf[s.pos:s.end], s.eof)
		switch {
		case err == nil:
			s.recLine = s.line
			s.pos += n
			s.line += lines
			if s.n == 1 && s.offs[0] == 0 {
				continue // a blank line
			}
			return true
		case err == io.EOF:
			return false
		case err != errNeedMore:
			s.err = fmt.Errorf("line %d, column %d: %w", s.line+s.badLines, s.badCol, err)
			return false
		}
		if err := s.fill(); err != nil {
			s.err = err
			return false
		}
	}
}

// fill moves the unread data to the front of the buffer, grows it when full, and reads more.
func (s *csvScanner) fill() error {
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxRecord {
			return fmt.Errorf("line %d: a record longer than %d MiB", s.line, maxRecord>>20)
		}
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for {
		n, err := s.r.Read(s.buf[s.end:])
		s.end += n
		if err == io.EOF {
			s.eof = true
			return nil
		}
		if err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
	}
}

// parse reads one record from the start of data. It returns the bytes and lines it used,
// errNeedMore when the record may continue past data, and io.EOF when data is empty at the end.
func (s *csvScanner) parse(data []byte, atEOF bool) (int, int, error) {
	if len(data) == 0 {
		if atEOF {
			return 0, 0, io.EOF
		}
		return 0, 0, errNeedMore
	}
	s.rec, s.n, s.badLines = data, 0, 0
	lines, i := 1, 0
	nl := bytes.IndexByte(data, '\n') // the end of the line being read, -1 when beyond data
	if nl < 0 && !atEOF {
		return 0, 0, errNeedMore
	}
	for {
		if s.n == len(s.offs) {
			s.offs = append(s.offs, make([]uint64, len(s.offs)+16)...)
		}
		if i < len(data) && data[i] == '"' {
			s.badCol = s.n + 1
			q, err := closingQuote(data, i+1, atEOF)
			if err != nil {
				return 0, 0, err
			}
			if nl >= 0 && q > nl { // the field holds line breaks
				lines += bytes.Count(data[i:q], []byte{'\n'})
				s.badLines = lines - 1
				nl = indexFrom(data, q, '\n')
			}
			s.offs[s.n] = uint64(i+1)<<32 | uint64(q) | quotedBit
			i = q + 1
		} else {
			end := nl
			if end < 0 {
				end = len(data)
			}
			j := i + indexComma(data[i:end])
			if j < i {
				j = end
			}
			e := j
			if j == nl && j > i && data[j-1] == '\r' {
				e--
			}
			s.offs[s.n] = uint64(i)<<32 | uint64(e)
			i = j
		}
		s.n++
		switch {
		case i == len(data):
			if !atEOF {
				return 0, 0, errNeedMore
			}
			return i, lines, nil
		case data[i] == ',':
			i++
		case data[i] == '\n':
			return i + 1, lines, nil
		case data[i] == '\r' && i+1 < len(data) && data[i+1] == '\n':
			return i + 2, lines, nil
		case data[i] == '\r' && i+1 == len(data) && !atEOF:
			return 0, 0, errNeedMore
		default:
			s.badCol = s.n
			return 0, 0, errors.New(`a quoted field followed by more text; quote the whole field and double its quotes ("")`)
		}
	}
}

// indexFrom returns the index of c in data at or after i, or -1.
func indexFrom(data []byte, i int, c byte) int {
	if j := bytes.IndexByte(data[i:], c); j >= 0 {
		return i + j
	}
	return -1
}

// closingQuote finds the quote that closes the quoted field whose content starts at start:
// the first quote not doubled. It reads eight bytes at a time (see closingQuoteWords) and the
// last few one by one.
func closingQuote(data []byte, start int, atEOF bool) (int, error) {
	i, odd := closingQuoteWords(data, start)
	if i >= 0 && !odd {
		return i, nil
	}
	if i < 0 {
		i = -i - 1
	}
	if odd { // data[i-1] is a quote that may close the field or start a doubled quote
		i--
	}
	return closingQuoteBytes(data, i, atEOF)
}

// closingQuoteBytes is closingQuote a byte at a time.
func closingQuoteBytes(data []byte, start int, atEOF bool) (int, error) {
	for i := start; ; {
		k := indexQuote(data[i:])
		if k < 0 {
			if atEOF {
				return 0, errors.New("a quoted field without its closing quote")
			}
			return 0, errNeedMore
		}
		q := i + k
		switch {
		case q+1 < len(data) && data[q+1] == '"':
			i = q + 2 // a doubled quote
		case q+1 == len(data) && !atEOF:
			return 0, errNeedMore // a doubled quote may follow
		default:
			return q, nil
		}
	}
}

const (
	quotes8 = 0x2222222222222222
	low7    = 0x7f7f7f7f7f7f7f7f
	high8   = 0x8080808080808080
)

// closingQuoteWords looks for the closing quote eight bytes at a time, the way JSON parsers find
// string ends: a word's quote bytes are marked in their high bits, a prefix XOR gives the parity
// of the quotes seen since start, and a quote closes the field when that parity is odd and the
// next byte is not a quote (inside a field quotes come doubled). It returns the closing quote's
// index, or -(i+1) where i is the first byte not examined; odd then tells whether an odd run
// of quotes ends just before i, whose last quote the caller must look at again.
func closingQuoteWords(data []byte, start int) (int, bool) {
	parity := uint64(0) // all ones when the quotes seen so far are odd in number
	i := start
	for ; i+9 <= len(data); i += 8 {
		w := binary.LittleEndian.Uint64(data[i:])
		x := w ^ quotes8
		q := ^(((x & low7) + low7) | x) & high8 // the high bit of each quote byte
		if q == 0 {
			continue
		}
		p := q ^ q<<8
		p ^= p << 16
		p ^= p << 32
		p ^= parity // now the parity of the quotes from start through each byte
		next := q >> 8
		if data[i+8] == '"' {
			next |= 1 << 63
		}
		if c := q & p & ^next; c != 0 {
			return i + bits.TrailingZeros64(c)/8, false
		}
		if p&(1<<63) != 0 {
			parity = ^uint64(0)
		} else {
			parity = 0
		}
	}
	return -(i + 1), parity != 0
}

// Short gaps are scanned byte by byte, which beats a call to bytes.IndexByte on the quote-dense
// JSON cells of Tags and AdditionalInfo; longer ones use IndexByte.
const shortScan = 16

// indexQuote returns the index of the first '"' in b, or -1.
func indexQuote(b []byte) int {
	n := min(len(b), shortScan)
	for i, c := range b[:n] {
		if c == '"' {
			return i
		}
	}
	if n == len(b) {
		return -1
	}
	if j := bytes.IndexByte(b[n:], '"'); j >= 0 {
		return n + j
	}
	return -1
}

// indexComma returns the index of the first ',' in b, or -1. It reads eight bytes at a time,
// marking comma bytes as closingQuoteWords marks quotes.
func indexComma(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:]) ^ commas8
		if c := ^(((x & low7) + low7) | x) & high8; c != 0 {
			return i + bits.TrailingZeros64(c)/8
		}
	}
	for ; i < len(b); i++ {
		if b[i] == ',' {
			return i
		}
	}
	return -1
}

const commas8 = 0x2c2c2c2c2c2c2c2c
