package gcp

import (
	"bytes"
	"strings"

	"github.com/gpucost/gpucost/billing/internal/limits"
	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// longValue looks into b, a JSON row whole or cut short, and returns where its longest string
// starts (the offset of its opening quote), its length (to the end of b when b ends inside it)
// and the member it is the value of, as a path ("resource.name", "labels.value"); last is the
// member b ends in. It tolerates any input: it only serves the limits.
func longValue(b []byte) (off, n int, name, last string) {
	var stack []string // the member each open object or array is the value of
	key := ""          // the member being read in the innermost container
	path := func() string {
		return strings.Trim(strings.Join(stack, ".")+"."+key, ".")
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			end := stringClose(b, i+1)
			if end-i-1 > n {
				off, n, name = i, end-i-1, path()
			}
			if end < len(b) && isKey(b[end+1:]) {
				key = readerr.Clip(string(b[i+1 : end]))
			}
			i = end
		case '{', '[':
			stack = append(stack, key)
			key = ""
		case '}', ']':
			if len(stack) > 0 {
				key, stack = stack[len(stack)-1], stack[:len(stack)-1]
			}
		}
	}
	return off, n, name, path()
}

// stringClose returns the index of the quote that closes the JSON string whose content starts
// at b[i], or len(b).
func stringClose(b []byte, i int) int {
	for {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return len(b)
		}
		if b[i+j] == '"' {
			return i + j
		}
		i += j + 2
		if i >= len(b) {
			return len(b)
		}
	}
}

// isKey reports whether b, what follows a string, starts with a colon after white space.
func isKey(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == ':'
}

// tooLong returns the error for a value of the row at buf[pos:] starting at offset off of it, in
// member name.
func (s *jsonScanner) tooLong(off int, name string, limit int, record bool) *limits.TooLong {
	b := s.buf[s.pos : s.pos+off]
	col := s.base + s.pos + off - s.lineStart + 1
	if k := bytes.LastIndexByte(b, '\n'); k >= 0 {
		col = off - k
	}
	return &limits.TooLong{Line: s.line + bytes.Count(b, []byte{'\n'}), Column: col, Name: name, Byte: true, Limit: limit, Record: record}
}

// checkValues refuses the current row if one of its strings is longer than limits.MaxField.
func (s *jsonScanner) checkValues() *limits.TooLong {
	if len(s.rec) <= limits.MaxField {
		return nil
	}
	if off, n, name, _ := longValue(s.rec); n > limits.MaxField {
		return s.tooLong(off, name, limits.MaxField, false)
	}
	return nil
}
