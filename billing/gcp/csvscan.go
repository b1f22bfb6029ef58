package gcp

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

// csvScanner splits RFC 4180 CSV into records without allocating per record: a record's fields
// are slices of the scanner's buffer, valid until the next call to next. A quoted field is handed
// out as written between its quotes, with a flag when it holds doubled quotes, so cells that only
// key a cache are never copied. Quoted fields may hold commas, doubled quotes and line breaks;
// CRLF and LF line ends are both fine; blank lines are skipped. GCP exports flatten repeated
// records (labels, credits) into JSON text, so quoted fields are dense with doubled quotes: the
// scanner finds their ends eight bytes at a time.
type csvScanner struct {
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
	badCol   int      // the column of a malformed field, for messages
	badLines int
}

const (
	quotedBit  = 1 << 63 // the field was quoted
	doubledBit = 1 << 62 // … and holds doubled quotes
	offMask    = 1<<30 - 1
)

func newCSVScanner(r io.Reader) *csvScanner {
	return &csvScanner{r: r, buf: make([]byte, 256<<10), line: 1}
}

// field returns field i as written (between its quotes, if quoted) and how it is escaped.
func (s *csvScanner) field(i int) ([]byte, esc) {
	o := s.offs[i]
	b := s.rec[o>>32&offMask : o&offMask]
	if o&doubledBit != 0 {
		return b, escCSV
	}
	return b, escNone
}

// next reads the next record. It returns false at the end of the input or on an error, which
// s.err then holds.
func (s *csvScanner) next() bool {
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
	if len(data) > offMask {
		data = data[:offMask]
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
			q, doubled, err := closingQuote(data, i+1, atEOF)
			if err != nil {
				return 0, 0, err
			}
			if nl >= 0 && q > nl { // the field holds line breaks
				lines += bytes.Count(data[i:q], []byte{'\n'})
				s.badLines = lines - 1
				nl = indexFrom(data, q, '\n')
			}
			o := uint64(i+1)<<32 | uint64(q) | quotedBit
			if doubled {
				o |= doubledBit
			}
			s.offs[s.n] = o
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

// closingQuote finds the quote that closes the quoted field whose content starts at start: the
// first quote not doubled. It also says whether the content holds (doubled) quotes.
func closingQuote(data []byte, start int, atEOF bool) (int, bool, error) {
	i, odd, seen := closingQuoteWords(data, start)
	if i >= 0 && !odd {
		return i, seen, nil
	}
	if i < 0 {
		i = -i - 1
	}
	if odd { // data[i-1] is a quote that may close the field or start a doubled quote
		i--
	}
	q, more, err := closingQuoteBytes(data, i, atEOF)
	return q, seen || more, err
}

// closingQuoteBytes is closingQuote a byte at a time.
func closingQuoteBytes(data []byte, start int, atEOF bool) (int, bool, error) {
	doubled := false
	for i := start; ; {
		k := bytes.IndexByte(data[i:], '"')
		if k < 0 {
			if atEOF {
				return 0, false, errors.New("a quoted field without its closing quote")
			}
			return 0, false, errNeedMore
		}
		q := i + k
		switch {
		case q+1 < len(data) && data[q+1] == '"':
			i, doubled = q+2, true
		case q+1 == len(data) && !atEOF:
			return 0, false, errNeedMore // a doubled quote may follow
		default:
			return q, doubled, nil
		}
	}
}

const (
	quotes8 = 0x2222222222222222
	commas8 = 0x2c2c2c2c2c2c2c2c
	low7    = 0x7f7f7f7f7f7f7f7f
	high8   = 0x8080808080808080
)

// byteMask returns the high bit of each byte of w equal to the byte repeated in rep.
func byteMask(w, rep uint64) uint64 {
	x := w ^ rep
	return ^(((x & low7) + low7) | x) & high8
}

// closingQuoteWords looks for the closing quote eight bytes at a time, as JSON parsers find
// string ends: the quotes of a word are marked in their high bits, a prefix XOR gives the parity
// of the quotes seen since start, and a quote closes the field when that parity is odd and the
// next byte is not a quote (inside a field quotes come in pairs). It returns the closing quote's
// index, or -(i+1) where i is the first byte not examined, with odd telling whether an odd run of
// quotes ends just before i; seen tells whether quotes came before the closing one.
func closingQuoteWords(data []byte, start int) (at int, odd, seen bool) {
	parity := uint64(0) // all ones while the quotes seen are odd in number
	i := start
	for ; i+9 <= len(data); i += 8 {
		q := byteMask(binary.LittleEndian.Uint64(data[i:]), quotes8)
		if q == 0 {
			continue
		}
		p := q ^ q<<8
		p ^= p << 16
		p ^= p << 32
		p ^= parity // the parity of the quotes from start through each byte
		next := q >> 8
		if data[i+8] == '"' {
			next |= 1 << 63
		}
		if c := q & p & ^next; c != 0 {
			b := bits.TrailingZeros64(c)
			return i + b/8, false, seen || q&(1<<b-1) != 0
		}
		seen = true
		if p&(1<<63) != 0 {
			parity = ^uint64(0)
		} else {
			parity = 0
		}
	}
	return -(i + 1), parity != 0, seen
}

// indexQuote returns the index of the first '"' in b, or -1.
func indexQuote(b []byte) int { return bytes.IndexByte(b, '"') }

// indexComma returns the index of the first ',' in b, or -1, reading eight bytes at a time.
func indexComma(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if c := byteMask(binary.LittleEndian.Uint64(b[i:]), commas8); c != 0 {
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
