// Package pqcheck checks a Parquet file's footer and page headers before parquet-go reads them,
// for the bill readers (billing/awscur, billing/focus). parquet-go v0.32.0 sizes its allocations
// by the lengths a file declares: a damaged footer or page header can ask for gigabytes, which
// kills the process instead of failing the read (found by awscur's FuzzReadParquet), and a small
// compressed page can hold a value of many megabytes. Footer and Pages bound every declared
// length by the bytes that are really there, and each page by the limits of billing/internal/limits.
package pqcheck

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"

	"github.com/gpucost/gpucost/billing/internal/limits"
)

// Bounds on what a bill's Parquet file may declare besides the sizes of its footer and pages
// (limits.MaxFooter, MaxPage, MaxDictPage); real files are far inside them.
const (
	maxPageValues = 1 << 24 // values in one page: writers cut pages at about a megabyte
	maxThriftNest = 64      // nesting of the thrift structs: the format's own go a few deep
)

var errCorrupt = errors.New("corrupt Parquet metadata")

// Footer checks the footer's thrift encoding before parquet-go decodes it. A footer past
// limits.MaxFooter, or a binary value in it longer than limits.MaxField outside the key-value
// metadata (a statistic's min or max, which writers copy whole from the column), is a
// *limits.TooLong with Line 0.
func Footer(r io.ReaderAt, size int64) error {
	if size < 12 {
		return errors.New("too short for a Parquet file")
	}
	var tail [8]byte
	if _, err := r.ReadAt(tail[:], size-8); err != nil {
		return err
	}
	if string(tail[4:]) != "PAR1" {
		return errors.New("no PAR1 at the end: truncated")
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if n <= 0 || n > size-12 {
		return fmt.Errorf("footer length %d does not fit the file: truncated", n)
	}
	if n > limits.MaxFooter {
		return &limits.TooLong{Footer: true, Limit: limits.MaxFooter}
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	end, err := skipThrift(footer, 0, 12, 0, limits.MaxField)
	if errors.Is(err, errLongBinary) {
		return &limits.TooLong{Limit: limits.MaxField}
	}
	if err != nil || end > len(footer) {
		return fmt.Errorf("footer: %w", errCorrupt)
	}
	return nil
}

// Pages walks the page headers of one column chunk, checking each declared size against the
// chunk's extent and the limits. A page past limits.MaxPage or limits.MaxDictPage, or whose values
// average more than limits.MaxField (so one at least is longer), is a *limits.TooLong whose Line
// is the index, from 0, of the chunk's first value in that page; the caller makes it a row.
func Pages(r io.ReaderAt, size int64, md *format.ColumnMetaData) error {
	_, err := walkPages(r, size, md)
	return err
}

// Decoded returns what the Parquet file at r holds once its pages are decompressed: the sum of
// its pages' uncompressed sizes, each page checked as Pages checks it, after Footer. It is, for
// a Parquet bill, what a gzip bill's decompressed size is to the upload limits: Parquet
// compresses inside the file, so a small file can hold gigabytes.
func Decoded(r io.ReaderAt, size int64) (int64, error) {
	if err := Footer(r, size); err != nil {
		return 0, err
	}
	f, err := parquet.OpenFile(r, size, parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return 0, err
	}
	var total int64
	for _, rg := range f.Metadata().RowGroups {
		for i := range rg.Columns {
			n, err := walkPages(r, size, &rg.Columns[i].MetaData)
			if err != nil {
				return 0, err
			}
			total += n
		}
	}
	return total, nil
}

// walkPages is Pages, returning the sum of the pages' uncompressed sizes.
func walkPages(r io.ReaderAt, size int64, md *format.ColumnMetaData) (int64, error) {
	start := md.DataPageOffset
	if d := md.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	end := start + md.TotalCompressedSize
	if start < 4 || md.TotalCompressedSize < 0 || end > size-8 || end < start {
		return 0, fmt.Errorf("column chunk at %d+%d outside the file: truncated", start, md.TotalCompressedSize)
	}
	var buf []byte
	values := int64(0) // the chunk's values before the page
	total := int64(0)  // the pages' uncompressed bytes
	for pos := start; pos < end; {
		window := min(end-pos, 1<<10) // a header without long statistics fits; a longer one grows it
		for {
			buf = growTo(buf, int(window))
			if _, err := r.ReadAt(buf, pos); err != nil {
				return 0, err
			}
			h, err := pageHeader(buf)
			if errors.Is(err, errLongBinary) { // the page's statistics hold a long value
				return 0, &limits.TooLong{Line: int(values), Limit: limits.MaxField}
			}
			if err == nil {
				if err := h.check(values); err != nil {
					return 0, err
				}
				total += h.uncompressed
				if !h.dict {
					values += h.values
				}
				if pos += int64(h.n) + h.compressed; pos > end {
					return 0, fmt.Errorf("page at %d runs past its column chunk: %w", pos, errCorrupt)
				}
				break
			}
			if err != io.ErrUnexpectedEOF || window == end-pos {
				return 0, fmt.Errorf("page header at %d: %w", pos, errCorrupt)
			}
			window = min(end-pos, window*8)
		}
	}
	return total, nil
}

// header is what Pages reads of a page header.
type header struct {
	n                        int // bytes of the header
	uncompressed, compressed int64
	values                   int64
	dict                     bool
}

// check refuses a page past the limits; first is the index of its first value in the chunk.
func (h *header) check(first int64) error {
	limit := limits.MaxPage
	if h.dict {
		limit = limits.MaxDictPage
	}
	if h.uncompressed > int64(limit) {
		return &limits.TooLong{Line: int(first), Page: true, Limit: limit}
	}
	if h.values > 0 && h.uncompressed/h.values > limits.MaxField {
		return &limits.TooLong{Line: int(first), Limit: limits.MaxField}
	}
	return nil
}

func growTo(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// pageHeader checks a PageHeader at the start of b and returns its length, sizes and values.
// It returns io.ErrUnexpectedEOF when b ends inside the header.
func pageHeader(b []byte) (header, error) {
	var sizes [3]int64 // uncompressed, compressed (fields 2, 3)
	values := int64(0)
	dict := false
	pos, fieldID := 0, int16(0)
	for {
		if pos >= len(b) {
			return header{}, io.ErrUnexpectedEOF
		}
		h := b[pos]
		pos++
		if h == 0 {
			break
		}
		typ := h & 0x0f
		if d := int16(h >> 4); d != 0 {
			fieldID += d
		} else {
			v, w := binary.Varint(b[pos:])
			if w <= 0 {
				return header{}, io.ErrUnexpectedEOF
			}
			fieldID, pos = int16(v), pos+w
		}
		switch {
		case (fieldID == 2 || fieldID == 3) && typ == 5:
			v, w := binary.Varint(b[pos:])
			if w <= 0 {
				return header{}, io.ErrUnexpectedEOF
			}
			sizes[fieldID-1], pos = v, pos+w
		case (fieldID == 5 || fieldID == 7 || fieldID == 8) && typ == 12:
			// data_page_header, dictionary_page_header, data_page_header_v2: num_values is field 1
			dict = dict || fieldID == 7
			if pos < len(b) && b[pos]&0x0f == 5 && b[pos]>>4 == 1 {
				if v, w := binary.Varint(b[pos+1:]); w > 0 {
					values = max(values, v)
				}
			}
			fallthrough
		default:
			next, err := skipThrift(b, pos, typ, 0, limits.MaxField)
			if err != nil {
				return header{}, err
			}
			pos = next
		}
	}
	if sizes[1] < 0 || sizes[2] < 0 || values < 0 || values > maxPageValues {
		return header{}, errCorrupt
	}
	return header{n: pos, uncompressed: sizes[1], compressed: sizes[2], values: values, dict: dict}, nil
}

// errLongBinary is a binary field (a statistic's min or max, a name) longer than limits.MaxField.
var errLongBinary = errors.New("a binary field past the limit")

// keyValueMetadata is the FileMetaData field of free-form key-value pairs, where writers keep
// their own schemas (ARROW:schema and Spark's run to tens of kilobytes): its binaries are bounded
// by the footer only.
const keyValueMetadata = 5

// skipThrift skips one thrift compact value of type typ at b[pos] and returns the position after
// it. Every declared length must fit in what remains of b, and a binary value in maxBin bytes
// (else errLongBinary): statistics carry whole values, so a footer can hold a long one.
func skipThrift(b []byte, pos int, typ byte, depth, maxBin int) (int, error) {
	if depth > maxThriftNest {
		return 0, errCorrupt
	}
	need := func(n int) (int, error) {
		if n < 0 || pos+n > len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		return pos + n, nil
	}
	varint := func() (uint64, error) {
		v, w := binary.Uvarint(b[min(pos, len(b)):])
		if w <= 0 {
			return 0, io.ErrUnexpectedEOF
		}
		pos += w
		return v, nil
	}
	switch typ {
	case 1, 2: // booleans: the value is in the type
		return pos, nil
	case 3: // byte
		return need(1)
	case 4, 5, 6: // i16, i32, i64
		_, err := varint()
		return pos, err
	case 7: // double
		return need(8)
	case 8: // binary
		n, err := varint()
		if err != nil {
			return 0, err
		}
		if n > uint64(maxBin) { // before reading more of a header to hold it
			return 0, errLongBinary
		}
		if n > uint64(len(b)) {
			return 0, io.ErrUnexpectedEOF
		}
		return need(int(n))
	case 9, 10: // list, set
		return skipList(b, pos, depth, maxBin)
	case 11: // map
		return skipMap(b, pos, depth, maxBin)
	case 12: // struct
		return skipStruct(b, pos, depth, maxBin)
	case 13: // uuid
		return need(16)
	}
	return 0, errCorrupt
}

func skipList(b []byte, pos, depth, maxBin int) (int, error) {
	if pos >= len(b) {
		return 0, io.ErrUnexpectedEOF
	}
	h := b[pos]
	pos++
	size, elem := uint64(h>>4), h&0x0f
	if size == 15 {
		v, w := binary.Uvarint(b[pos:])
		if w <= 0 {
			return 0, io.ErrUnexpectedEOF
		}
		size, pos = v, pos+w
	}
	if size > uint64(len(b)-pos) { // every element takes a byte at least
		return 0, io.ErrUnexpectedEOF
	}
	if elem == 1 || elem == 2 {
		return pos + int(size), nil // booleans in a list take a byte each
	}
	var err error
	for range size {
		if pos, err = skipThrift(b, pos, elem, depth+1, maxBin); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

func skipMap(b []byte, pos, depth, maxBin int) (int, error) {
	size, w := binary.Uvarint(b[min(pos, len(b)):])
	if w <= 0 {
		return 0, io.ErrUnexpectedEOF
	}
	pos += w
	if size == 0 {
		return pos, nil
	}
	if pos >= len(b) || size > uint64(len(b)-pos)/2 {
		return 0, io.ErrUnexpectedEOF
	}
	kt, vt := b[pos]>>4, b[pos]&0x0f
	pos++
	var err error
	for range size {
		if pos, err = skipThrift(b, pos, kt, depth+1, maxBin); err != nil {
			return 0, err
		}
		if pos, err = skipThrift(b, pos, vt, depth+1, maxBin); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

func skipStruct(b []byte, pos, depth, maxBin int) (int, error) {
	id := int64(0)
	for {
		if pos >= len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		h := b[pos]
		pos++
		if h == 0 {
			return pos, nil
		}
		id += int64(h >> 4)
		if h>>4 == 0 { // a long-form field id follows
			v, w := binary.Varint(b[pos:])
			if w <= 0 {
				return 0, io.ErrUnexpectedEOF
			}
			id, pos = v, pos+w
		}
		limit := maxBin
		if depth == 0 && id == keyValueMetadata {
			limit = len(b)
		}
		var err error
		if pos, err = skipThrift(b, pos, h&0x0f, depth+1, limit); err != nil {
			return 0, err
		}
	}
}

// LongValue returns the index of the first value of a BYTE_ARRAY page, whose values end at
// offs[1:], that is longer than limits.MaxField, or -1. Pages cannot show every long value in
// their headers: a page of many short values and one long one averages little.
func LongValue(offs []uint32) int {
	for i := 1; i < len(offs); i++ {
		if offs[i]-offs[i-1] > limits.MaxField && offs[i] > offs[i-1] {
			return i - 1
		}
	}
	return -1
}
