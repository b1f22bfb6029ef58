package awscur

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/format"
)

// parquet-go v0.32.0 sizes its allocations by the lengths a file declares: a damaged footer or
// page header can ask for gigabytes, which kills the process instead of failing the read (found
// by FuzzReadParquet). The checks below walk the footer and the page headers of the columns the
// reader reads, bounding every declared length by the bytes that are really there, before
// parquet-go decodes them.

// Bounds on what a CUR Parquet file may declare; real files are far inside them.
const (
	maxFooter     = 32 << 20 // bytes of file metadata
	maxPageBytes  = 64 << 20 // uncompressed bytes of one page
	maxPageValues = 1 << 24  // values in one page
	maxThriftNest = 64
)

var errCorrupt = errors.New("corrupt Parquet metadata")

// checkFooter checks the footer's thrift encoding before parquet-go decodes it.
func checkFooter(r io.ReaderAt, size int64) error {
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
	if n <= 0 || n > size-12 || n > maxFooter {
		return fmt.Errorf("footer length %d does not fit the file: truncated", n)
	}
	footer := make([]byte, n)
	if _, err := r.ReadAt(footer, size-8-n); err != nil {
		return err
	}
	if end, err := skipThrift(footer, 0, 12, 0); err != nil || end > len(footer) {
		return fmt.Errorf("footer: %w", errCorrupt)
	}
	return nil
}

// checkPages walks the page headers of one column chunk, checking each declared size against the
// chunk's extent.
func checkPages(r io.ReaderAt, size int64, md *format.ColumnMetaData) error {
	start := md.DataPageOffset
	if d := md.DictionaryPageOffset; d > 0 && d < start {
		start = d
	}
	end := start + md.TotalCompressedSize
	if start < 4 || md.TotalCompressedSize < 0 || end > size-8 || end < start {
		return fmt.Errorf("column chunk at %d+%d outside the file: truncated", start, md.TotalCompressedSize)
	}
	var buf []byte
	for pos := start; pos < end; {
		window := min(end-pos, 1<<16)
		for {
			buf = growTo(buf, int(window))
			if _, err := r.ReadAt(buf, pos); err != nil {
				return err
			}
			n, compressed, err := pageHeader(buf)
			if err == nil {
				if pos += int64(n) + compressed; pos > end {
					return fmt.Errorf("page at %d runs past its column chunk: %w", pos, errCorrupt)
				}
				break
			}
			if err != io.ErrUnexpectedEOF || window == end-pos {
				return fmt.Errorf("page header at %d: %w", pos, errCorrupt)
			}
			window = min(end-pos, window*8)
		}
	}
	return nil
}

func growTo(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// pageHeader checks a PageHeader at the start of b and returns its length and compressed size.
// It returns io.ErrUnexpectedEOF when b ends inside the header.
func pageHeader(b []byte) (n int, compressed int64, err error) {
	var sizes [3]int64 // uncompressed, compressed (fields 2, 3)
	values := int64(0)
	pos, fieldID := 0, int16(0)
	for {
		if pos >= len(b) {
			return 0, 0, io.ErrUnexpectedEOF
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
				return 0, 0, io.ErrUnexpectedEOF
			}
			fieldID, pos = int16(v), pos+w
		}
		switch {
		case (fieldID == 2 || fieldID == 3) && typ == 5:
			v, w := binary.Varint(b[pos:])
			if w <= 0 {
				return 0, 0, io.ErrUnexpectedEOF
			}
			sizes[fieldID-1], pos = v, pos+w
		case (fieldID == 5 || fieldID == 7 || fieldID == 8) && typ == 12:
			// data_page_header, dictionary_page_header, data_page_header_v2: num_values is field 1
			if pos < len(b) && b[pos]&0x0f == 5 && b[pos]>>4 == 1 {
				if v, w := binary.Varint(b[pos+1:]); w > 0 {
					values = max(values, v)
				}
			}
			fallthrough
		default:
			next, err := skipThrift(b, pos, typ, 0)
			if err != nil {
				return 0, 0, err
			}
			pos = next
		}
	}
	if sizes[1] < 0 || sizes[2] < 0 || sizes[1] > maxPageBytes || values < 0 || values > maxPageValues {
		return 0, 0, errCorrupt
	}
	return pos, sizes[2], nil
}

// skipThrift skips one thrift compact value of type typ at b[pos] and returns the position after
// it. Every declared length must fit in what remains of b.
func skipThrift(b []byte, pos int, typ byte, depth int) (int, error) {
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
		if n > uint64(len(b)) {
			return 0, io.ErrUnexpectedEOF
		}
		return need(int(n))
	case 9, 10: // list, set
		return skipList(b, pos, depth)
	case 11: // map
		return skipMap(b, pos, depth)
	case 12: // struct
		return skipStruct(b, pos, depth)
	case 13: // uuid
		return need(16)
	}
	return 0, errCorrupt
}

func skipList(b []byte, pos, depth int) (int, error) {
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
		if pos, err = skipThrift(b, pos, elem, depth+1); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

func skipMap(b []byte, pos, depth int) (int, error) {
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
		if pos, err = skipThrift(b, pos, kt, depth+1); err != nil {
			return 0, err
		}
		if pos, err = skipThrift(b, pos, vt, depth+1); err != nil {
			return 0, err
		}
	}
	return pos, nil
}

func skipStruct(b []byte, pos, depth int) (int, error) {
	for {
		if pos >= len(b) {
			return 0, io.ErrUnexpectedEOF
		}
		h := b[pos]
		pos++
		if h == 0 {
			return pos, nil
		}
		if h>>4 == 0 { // a long-form field id follows
			_, w := binary.Varint(b[pos:])
			if w <= 0 {
				return 0, io.ErrUnexpectedEOF
			}
			pos += w
		}
		var err error
		if pos, err = skipThrift(b, pos, h&0x0f, depth+1); err != nil {
			return 0, err
		}
	}
}
