package gcp

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/csvscan"
	"github.com/gpucost/gpucost/billing/internal/intern"
	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// jsonScanner splits JSON input into rows: newline-delimited JSON, one object per line as
// BigQuery's extract jobs write it, or a JSON array of objects as `bq query --format=json`
// writes it; objects spread over several lines (pretty-printed) are read too. A row's bytes are
// a slice of the scanner's buffer, valid until the next call to next.
type jsonScanner struct {
	r         io.Reader
	buf       []byte
	pos, end  int
	base      int // the stream offset of buf[0]
	eof       bool
	err       error
	line      int // the line number at pos
	lineStart int // the stream offset where that line starts
	started   bool
	array     bool // the input is one JSON array
	state     arrayState
	rec       []byte
	recLine   int
	recCol    int  // the column, 0-based, where rec starts
	lineMode  bool // rec is the rest of the line, which may end before the object does
}

// arrayState is where an array of rows is.
type arrayState uint8

const (
	arrayStart arrayState = iota // after [
	afterRow                     // after a row
	needRow                      // after a comma
	arrayDone                    // after ]
)

func newJSONScanner(r io.Reader) *jsonScanner {
	return &jsonScanner{r: r, buf: make([]byte, 256<<10), line: 1}
}

// fill moves unread data to the front of the buffer, grows it when full, and reads more.
// A row in progress longer than a field may be is looked into first, so that a string past
// limits.MaxField is refused as soon as a refill finds it, with the buffer at most MaxLine.
func (s *jsonScanner) fill() error {
	var full *limits.TooLong
	if s.end-s.pos > limits.MaxField {
		off, n, name, last := longValue(s.buf[s.pos:s.end])
		if n > limits.MaxField {
			return s.tooLong(off, name, limits.MaxField, false)
		}
		full = s.tooLong(s.end-s.pos, last, limits.MaxLine, true)
	}
	var err error
	s.base += s.pos
	s.buf, s.end, s.eof, err = csvscan.Refill(s.r, s.buf, s.pos, s.end)
	s.pos = 0
	if errors.Is(err, csvscan.ErrTooLong) && full != nil {
		return full
	}
	return err
}

// skip passes over white space, a byte order mark and, in an array, its brackets and the commas
// between rows. It returns false at the end of the input or on an error.
func (s *jsonScanner) skip() bool {
	for {
		for s.pos < s.end {
			switch c := s.buf[s.pos]; {
			case c == '\n':
				s.line++
				s.lineStart = s.base + s.pos + 1
			case c == ' ' || c == '\t' || c == '\r':
			case !s.started && c == '[':
				s.array = true
			case !s.started && c == 0xef && s.end-s.pos >= 3 && string(s.buf[s.pos:s.pos+3]) == "\ufeff":
				s.pos += 2
				s.lineStart += 3
			case s.array && c == ',' && s.state == afterRow:
				s.state = needRow
			case s.array && c == ']' && (s.state == arrayStart || s.state == afterRow):
				s.state = arrayDone
			default:
				s.started = true
				return true
			}
			s.started = true
			s.pos++
		}
		if s.eof {
			return false
		}
		if s.err = s.fill(); s.err != nil {
			return false
		}
	}
}

// next finds the next row. It returns false at the end of the input or on an error.
func (s *jsonScanner) next() bool {
	if !s.skip() {
		if s.err == nil && s.array && s.state != arrayDone {
			s.err = lineErr(s.line, "the JSON array is not closed")
		}
		return false
	}
	c := s.buf[s.pos]
	switch {
	case s.array && s.state == arrayDone:
		s.err = lineErr(s.line, "text after the end of the JSON array")
		return false
	case c != '{':
		s.err = lineErr(s.line, "unexpected %q where a row (a JSON object) belongs", c)
		return false
	case s.array && s.state == afterRow:
		s.err = lineErr(s.line, "rows of the JSON array without a comma between them")
		return false
	}
	s.state = afterRow
	s.recLine, s.recCol = s.line, s.base+s.pos-s.lineStart
	if s.array {
		return s.exact()
	}
	for {
		if nl := bytes.IndexByte(s.buf[s.pos:s.end], '\n'); nl >= 0 || s.eof {
			if nl < 0 {
				nl = s.end - s.pos
			}
			s.rec, s.lineMode = s.buf[s.pos:s.pos+nl], true
			return true
		}
		if s.err = s.fill(); s.err != nil {
			return false
		}
	}
}

// exact sets rec to the whole object at pos, reading more input as needed.
func (s *jsonScanner) exact() bool {
	for {
		end, err := skipComposite(s.buf[s.pos:s.end], 0)
		if err == nil {
			s.rec, s.lineMode = s.buf[s.pos:s.pos+end], false
			return true
		}
		if !errors.Is(err, errJSONEnd) || s.eof {
			var je *jsonError
			if errors.As(err, &je) {
				s.err = lineErr(s.line+bytes.Count(s.buf[s.pos:s.pos+je.off], []byte{'\n'}), "%s", je.msg)
			} else {
				s.err = lineErr(s.line, "a JSON row without its end")
			}
			return false
		}
		if s.err = s.fill(); s.err != nil {
			return false
		}
	}
}

// consume moves past n bytes of the row.
func (s *jsonScanner) consume(n int) {
	b := s.buf[s.pos : s.pos+n]
	if s.lineMode { // rec ends before the line does
		s.pos += n
		return
	}
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		s.line += bytes.Count(b, []byte{'\n'})
		s.lineStart = s.base + s.pos + k + 1
	}
	s.pos += n
}

// readJSON reads every row.
func (rd *reader) readJSON(sc *jsonScanner) error {
	src := &jsonSource{rd: rd, sc: sc}
	rd.src = src
	for sc.next() {
		if tl := sc.checkValues(); tl != nil {
			return limits.Invalid("read GCP billing export "+rd.name, tl)
		}
		rd.begin(sc.recLine)
		end, err := rd.fields(root, sc.rec, 0, 0, -1)
		if errors.Is(err, errJSONEnd) && sc.lineMode {
			if !sc.exact() {
				break
			}
			if tl := sc.checkValues(); tl != nil {
				return limits.Invalid("read GCP billing export "+rd.name, tl)
			}
			rd.begin(sc.recLine)
			end, err = rd.fields(root, sc.rec, 0, 0, -1)
		}
		if err != nil {
			return src.syntax(err)
		}
		sc.consume(end)
		if rd.set&(1<<fResourceName|1<<fResourceGlobal) != 0 {
			rd.detailed = true
		}
		if err := rd.row(rd.cellKey()); err != nil {
			return err
		}
	}
	if sc.err != nil {
		var tl *limits.TooLong
		if errors.As(sc.err, &tl) {
			return limits.Invalid("read GCP billing export "+rd.name, tl)
		}
		var le *lineError
		if errors.As(sc.err, &le) {
			return gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s:%d: %s; the file is truncated or not valid JSON, download or export it again",
				rd.name, le.line, le.msg)
		}
		return gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s: %v; the file is truncated or damaged, download or export it again", rd.name, sc.err)
	}
	return nil
}

// lineError is malformed input found by the JSON scanner.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func lineErr(line int, format string, args ...any) error {
	return &lineError{line: line, msg: fmt.Sprintf(format, args...)}
}

// fields puts the fields of the JSON object b, a record of the schema node n, into the row's
// cells. base is b's offset in the row, for messages; fixed, when not negative, is the CSV
// column holding b. It returns the index after the object. Names the schema does not know are
// reported in Stats.Unknown; a record's fields may also be written flattened at the top,
// "service.description" or "service_description".
func (rd *reader) fields(n *node, b []byte, base, depth, fixed int) (int, error) {
	m := members{b: b}
	for p := 0; m.next(); p++ {
		if err := rd.member(&m, rd.lookup(n, p, m.key), base, depth, fixed); err != nil {
			return 0, err
		}
	}
	return m.end, m.err
}

// lookup finds the node a key of the record n names, nil for a name outside the schema. Rows
// of an export list their keys in one order, so it first tries the key the previous row had at
// the same position p, which costs one comparison instead of a map lookup.
func (rd *reader) lookup(n *node, p int, key []byte) *node {
	seq := &rd.seq[n.id]
	if p < len(*seq) && (*seq)[p].key == string(key) {
		return (*seq)[p].n
	}
	k := n.kids[string(key)]
	if k == nil {
		k = rd.alias(n, key)
	}
	switch {
	case p < len(*seq):
		(*seq)[p] = seqEntry{string(key), k}
	case p == len(*seq) && p < 64:
		*seq = append(*seq, seqEntry{string(key), k})
	}
	return k
}

// seqEntry is a key seen at a position of a record, and the node it names.
type seqEntry struct {
	key string
	n   *node
}

// member puts the current member of a record into the row's cells; a nested record is read in
// place.
func (rd *reader) member(m *members, k *node, base, depth, fixed int) error {
	if k != nil && k.kind == kRecord && m.at < len(m.b) && m.b[m.at] == '{' {
		if depth > 8 {
			return jsonErr(m.at, "records nested too deep")
		}
		end, err := rd.fields(k, m.b[m.at:], base+m.at, depth+1, fixed)
		if je, ok := err.(*jsonError); ok {
			je.off += m.at // make it the row's offset
		}
		m.skipTo(m.at + end)
		return err
	}
	v, err := m.value()
	if err != nil || k == nil {
		return err
	}
	pos := fixed
	if pos < 0 {
		pos = base + v.off
	}
	switch {
	case v.kind == jNull || k.kind == kSkip:
		return nil
	case k.kind == kRecord:
		return jsonErr(v.off, "%s is a %s; want a JSON object", k.name, kindName(v.kind))
	case k.kind == kRepeated || k.kind == kCredits:
		if v.kind != jArray && v.kind != jObject && v.kind != jString {
			return jsonErr(v.off, "%s is a %s; want a JSON array", k.name, kindName(v.kind))
		}
	case v.kind == jObject || v.kind == jArray:
		return jsonErr(v.off, "%s is a JSON %s; want a value", k.name, kindName(v.kind))
	}
	e := escNone
	if v.kind == jString && v.esc {
		e = escJSON
	}
	rd.put(k.field, v.raw, e, pos)
	return nil
}

// alias finds a name the node n does not hold: at the top, a flattened name of a nested field;
// else nothing, and the name is reported once as unknown. Results at the top are remembered.
func (rd *reader) alias(n *node, key []byte) *node {
	if n == root {
		if k, ok := rd.aliases[string(key)]; ok {
			return k
		}
		k, _ := columnNode(string(key))
		if len(rd.aliases) < intern.MapLimit {
			rd.aliases[string(key)] = k
		}
		if k == nil {
			rd.noteUnknown(key)
		}
		return k
	}
	path := append(append(append(rd.vbuf[:0], n.name...), '.'), key...)
	rd.vbuf = path[:0]
	rd.noteUnknown(path)
	return nil
}

// noteUnknown remembers an unknown name, once.
func (rd *reader) noteUnknown(name []byte) {
	if _, ok := rd.unknown[string(name)]; !ok && len(rd.unknown) < maxUnknown {
		rd.unknown[string(name)] = true
	}
}

// maxUnknown bounds the unknown names remembered.
const maxUnknown = 100

// jsonSource locates cells of a JSON row: a cell's pos is its offset in the row.
type jsonSource struct {
	rd *reader
	sc *jsonScanner
}

// where names a JSON value's line and field; the byte of the line it starts at follows the
// field, since JSON rows are long lines.
func (s *jsonSource) where(c *cell, f field) (string, string) {
	line, col := s.at(c.pos)
	return fmt.Sprintf("%s:%d", s.rd.name, line), fmt.Sprintf("%s at byte %d", s.column(f), col)
}

// at returns the line of an offset in the row and the byte of that line it is, from 1.
func (s *jsonSource) at(off int) (line, col int) {
	rec := s.sc.rec
	off = max(0, min(off, len(rec)))
	line = s.sc.recLine + bytes.Count(rec[:off], []byte{'\n'})
	col = s.sc.recCol + off + 1
	if k := bytes.LastIndexByte(rec[:off], '\n'); k >= 0 {
		col = off - k
	}
	return line, col
}

func (s *jsonSource) whereRow() string { return fmt.Sprintf("%s:%d", s.rd.name, s.rd.line) }

func (s *jsonSource) column(f field) string { return readerr.Column(0, fieldNames[f]) }

func (s *jsonSource) putDims() {} // JSON rows put every cell

// syntax reports malformed JSON in the current row.
func (s *jsonSource) syntax(err error) error {
	off := len(s.sc.rec)
	var je *jsonError
	if errors.As(err, &je) {
		off = je.off
	}
	msg := err.Error()
	if errors.Is(err, errJSONEnd) {
		msg = "the row ends before its JSON object does"
	}
	line, col := s.at(off)
	return gpucost.Errorf(gpucost.EInvalid, "read GCP billing export %s:%d: byte %d: %s; the file is not valid JSON, export it again",
		s.rd.name, line, col, strings.TrimSpace(msg))
}
