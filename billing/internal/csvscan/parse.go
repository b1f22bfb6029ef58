package csvscan

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/bits"
)

// parse reads one record from the start of data. It returns the bytes and lines it used,
// errNeedMore when the record may continue past data, and io.EOF when data is empty at the end.
func (s *Scanner) parse(data []byte, atEOF bool) (int, int, error) {
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
			s.badCol, s.badOff = s.n+1, i
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
			s.badCol, s.badOff = s.n, i
			return 0, 0, ErrTextAfterQuote
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
// first quote not doubled. It also says whether the content holds (doubled) quotes. Most quoted
// fields hold no quote (FOCUS and Azure text): the first quote, found with bytes.IndexByte,
// closes them. Past a doubled quote it reads eight bytes at a time (see closingQuoteWords) and
// the last few one by one.
func closingQuote(data []byte, start int, atEOF bool) (int, bool, error) {
	if k := bytes.IndexByte(data[start:], '"'); k >= 0 {
		if q := start + k; q+1 < len(data) && data[q+1] != '"' {
			return q, false, nil
		}
	}
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
		k := indexQuote(data[i:])
		if k < 0 {
			if atEOF {
				return 0, false, ErrUnclosedQuote
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

// Short gaps are scanned byte by byte, which beats a call to bytes.IndexByte on quote-dense JSON
// cells; longer ones use IndexByte.
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
