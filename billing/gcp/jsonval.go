package gcp

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/gpucost/gpucost/billing/internal/jsontext"
)

// jsonKind is the kind of a JSON value.
type jsonKind uint8

const (
	jString jsonKind = iota
	jNumber
	jBool
	jNull
	jObject
	jArray
)

// jsonVal is one JSON value found in a buffer: for a string the bytes between its quotes (esc set
// when they hold backslash escapes), for an object or array the whole text, brackets included,
// for a number or literal its text. off is where the value starts in the buffer.
type jsonVal struct {
	kind jsonKind
	raw  []byte
	esc  bool
	off  int
}

// jsonError is malformed JSON at a byte offset.
type jsonError struct {
	off int
	msg string
}

func (e *jsonError) Error() string { return e.msg }

func jsonErr(off int, format string, args ...any) error {
	return &jsonError{off: off, msg: fmt.Sprintf(format, args...)}
}

// errJSONEnd reports a value that runs past the end of the bytes given.
var errJSONEnd = errors.New("the JSON value ends early")

// maxDepth bounds the nesting of JSON values, so hostile input cannot exhaust the stack.
const maxDepth = 64

// value reads the JSON value at b[i] (after any space) and returns it and the index after it.
// An object or array is found by skipComposite; its content is checked when walked.
func value(b []byte, i int) (jsonVal, int, error) {
	i = jsontext.SkipSpace(b, i)
	if i >= len(b) {
		return jsonVal{}, i, errJSONEnd
	}
	switch c := b[i]; {
	case c == '"':
		end, esc, err := stringEnd(b, i)
		if err != nil {
			return jsonVal{}, i, err
		}
		return jsonVal{kind: jString, raw: b[i+1 : end], esc: esc, off: i}, end + 1, nil
	case c == '{' || c == '[':
		end, err := skipComposite(b, i)
		if err != nil {
			return jsonVal{}, i, err
		}
		k := jObject
		if c == '[' {
			k = jArray
		}
		return jsonVal{kind: k, raw: b[i:end], off: i}, end, nil
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			n := min(len(b)-i, len(lit))
			if string(b[i:i+n]) != lit[:n] {
				continue
			}
			if n < len(lit) {
				return jsonVal{}, i, errJSONEnd
			}
			k := jBool
			if lit == "null" {
				k = jNull
			}
			return jsonVal{kind: k, raw: b[i : i+n], off: i}, i + n, nil
		}
	case c == '-' || (c >= '0' && c <= '9'):
		j := i + 1
		for j < len(b) && isNumberByte(b[j]) {
			j++
		}
		if !jsontext.Number(b[i:j]) {
			return jsonVal{}, i, jsonErr(i, "%q is not a JSON number", b[i:j])
		}
		return jsonVal{kind: jNumber, raw: b[i:j], off: i}, j, nil
	}
	return jsonVal{}, i, jsonErr(i, "unexpected %q where a JSON value belongs", b[i])
}

func isNumberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// stringEnd returns the index of the quote that closes the string opening at b[i], and whether
// the string holds escapes. It looks at eight bytes at a time for a quote, a backslash or a
// control character.
func stringEnd(b []byte, i int) (int, bool, error) {
	esc := false
	j := i + 1
	for {
		for ; j+8 <= len(b); j += 8 {
			w := binary.LittleEndian.Uint64(b[j:])
			if m := byteMask(w, quotes8) | byteMask(w, backslashes8) | (w-controls8)&^w&high8; m != 0 {
				j += bits.TrailingZeros64(m) / 8
				break
			}
		}
		if j >= len(b) {
			return 0, false, errJSONEnd
		}
		switch c := b[j]; {
		case c == '"':
			return j, esc, nil
		case c == '\\':
			esc = true
			j += 2
		case c < 0x20:
			return 0, false, jsonErr(j, "a control character inside a JSON string")
		default:
			j++
		}
	}
}

const (
	quotes8      = 0x2222222222222222
	low7         = 0x7f7f7f7f7f7f7f7f
	high8        = 0x8080808080808080
	backslashes8 = 0x5c5c5c5c5c5c5c5c
	controls8    = 0x2020202020202020 // bytes below 0x20 borrow in w − controls8
)

// skipComposite returns the index after the object or array opening at b[i]. It matches
// brackets and skips strings without checking the rest of the syntax, which object and
// elements check for the values the reader walks into: a field the reader does not read is
// only required to be balanced.
func skipComposite(b []byte, i int) (int, error) {
	var stack [maxDepth]byte
	depth := 0
	for j := i; j < len(b); j++ {
		switch c := b[j]; c {
		case '"':
			end, _, err := stringEnd(b, j)
			if err != nil {
				return j, err
			}
			j = end
		case '{', '[':
			if depth == maxDepth {
				return j, jsonErr(j, "JSON nested more than %d deep", maxDepth)
			}
			stack[depth] = c + 2 // '{'+2 == '}', '['+2 == ']'
			depth++
		case '}', ']':
			if depth == 0 || stack[depth-1] != c {
				return j, jsonErr(j, "unexpected %q in JSON", c)
			}
			depth--
			if depth == 0 {
				return j + 1, nil
			}
		}
	}
	return len(b), errJSONEnd
}

// members iterates over the members of the JSON object opening at b[i], without allocating:
//
//	m := members{b: b, i: i}
//	for m.next() { v, err := m.value() … }
//	if m.err != nil { … }
//
// next stops after a member's key and colon: the caller reads the value with value, or reads it
// itself from at and tells skipTo where it ends. key is unescaped, valid until the next call;
// end is the index after the object.
type members struct {
	b       []byte
	i       int
	at      int // where the current member's value starts
	key     []byte
	err     error
	end     int
	started bool
}

func (m *members) next() bool {
	b := m.b
	if !m.started {
		m.started = true
		m.i = jsontext.SkipSpace(b, m.i+1)
		if m.i < len(b) && b[m.i] == '}' {
			m.end = m.i + 1
			return false
		}
	} else {
		i := jsontext.SkipSpace(b, m.i)
		switch {
		case i >= len(b):
			m.err = errJSONEnd
			return false
		case b[i] == '}':
			m.end = i + 1
			return false
		case b[i] != ',':
			m.err = jsonErr(i, "unexpected %q in a JSON object; want , or }", b[i])
			return false
		}
		m.i = jsontext.SkipSpace(b, i+1)
	}
	return m.member()
}

// member reads one "key": at m.i.
func (m *members) member() bool {
	b, i := m.b, m.i
	if i >= len(b) {
		m.err = errJSONEnd
		return false
	}
	if b[i] != '"' {
		m.err = jsonErr(i, "unexpected %q where a JSON object key belongs", b[i])
		return false
	}
	end, esc, err := stringEnd(b, i)
	if err != nil {
		m.err = err
		return false
	}
	m.key = b[i+1 : end]
	if esc {
		if m.key, m.err = unescape(nil, m.key, i); m.err != nil {
			return false
		}
	}
	j := jsontext.SkipSpace(b, end+1)
	if j >= len(b) {
		m.err = errJSONEnd
		return false
	}
	if b[j] != ':' {
		m.err = jsonErr(j, "unexpected %q after a JSON object key; want :", b[j])
		return false
	}
	m.at = jsontext.SkipSpace(b, j+1)
	m.i = m.at
	return true
}

// value reads the current member's value.
func (m *members) value() (jsonVal, error) {
	v, i, err := value(m.b, m.at)
	m.i = i
	if err != nil {
		m.err = err
	}
	return v, err
}

// skipTo records that the current member's value, read by the caller, ends at end.
func (m *members) skipTo(end int) { m.i = end }

// elements calls fn for each element of the array v.raw.
func elements(v jsonVal, fn func(e jsonVal) error) error {
	b := v.raw
	i := jsontext.SkipSpace(b, 1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for {
		e, j, err := value(b, i)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
		j = jsontext.SkipSpace(b, j)
		switch {
		case j >= len(b):
			return errJSONEnd
		case b[j] == ']':
			return nil
		case b[j] != ',':
			return jsonErr(j, "unexpected %q in a JSON array; want , or ]", b[j])
		}
		i = j + 1
	}
}

// unescape appends the decoded form of a JSON string's content s to dst. off locates s for
// messages.
func unescape(dst, s []byte, off int) ([]byte, error) {
	dst, err := jsontext.Unescape(dst, s)
	if err != nil {
		return dst, &jsonError{off: off, msg: err.Error()}
	}
	return dst, nil
}

// byteMask returns the high bit of each byte of w equal to the byte repeated in rep.
func byteMask(w, rep uint64) uint64 {
	x := w ^ rep
	return ^(((x & low7) + low7) | x) & high8
}
