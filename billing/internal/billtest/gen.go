package billtest

import "io"

// Teams are the team tag values generated bills spread their resources over.
var Teams = []string{"ml-research", "inference", "vision", "speech", "ranking", "platform", "data", "safety"}

// Stream is an io.Reader over a generated bill: a header, then rows appended batch by batch by
// a reader's generator, so a file of any size streams without being held in memory.
type Stream struct {
	header    []byte
	rows, row int
	batch     int
	appendRow func(dst []byte, i int) []byte
	buf       []byte
	off       int
}

// NewStream returns a Stream of header (none when empty) followed by rows rows, row i being
// what appendRow(dst, i) appends to dst; rows are made batch at a time.
func NewStream(header string, rows, batch int, appendRow func(dst []byte, i int) []byte) *Stream {
	return &Stream{header: []byte(header), rows: rows, batch: batch, appendRow: appendRow}
}

// Read implements io.Reader.
func (s *Stream) Read(p []byte) (int, error) {
	for s.off >= len(s.buf) {
		if len(s.header) == 0 && s.row >= s.rows {
			return 0, io.EOF
		}
		s.buf, s.off = s.buf[:0], 0
		if len(s.header) > 0 {
			s.buf, s.header = append(s.buf, s.header...), nil
			continue
		}
		for n := 0; n < s.batch && s.row < s.rows; n++ {
			s.buf = s.appendRow(s.buf, s.row)
			s.row++
		}
	}
	n := copy(p, s.buf[s.off:])
	s.off += n
	return n, nil
}
