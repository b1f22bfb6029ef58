// Package jsontext reads the small JSON texts that bill files embed in their cells and rows —
// CUR 2.0 map cells, Azure Tags and AdditionalInfo cells, GCP label arrays and JSON rows —
// without allocating: strings come back as slices of the input, or of a caller's scratch buffer
// when they hold escapes.
package jsontext

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// ErrSyntax is the cause of every malformed object that Members refuses. Readers name the cell
// and what it should hold; the exact fault inside a tag cell is seldom worth a message.
var ErrSyntax = errors.New("malformed JSON object")

// Flags widen what Members accepts.
type Flags uint8

const (
	// Bare accepts members without their enclosing braces, as in the Tags of Azure EA and
	// pay-as-you-go files: "team": "ml","env": "prod".
	Bare Flags = 1 << iota
	// SkipNested skips members whose values are objects or arrays instead of refusing them.
	SkipNested
)

// Members parses the JSON object in b and calls fn for each member whose value is a string or
// another scalar (kept as written: "3", "true"); null members are skipped, and so is a member
// whose key repeats unless fn records it. Nested objects and arrays are refused unless flags has
// SkipNested. An empty or all-space b has no members. The slices handed to fn are valid only
// during the call; escaped strings are decoded into *scratch.
func Members(b []byte, flags Flags, scratch *[]byte, fn func(k, v []byte)) error {
	i := SkipSpace(b, 0)
	if i == len(b) {
		return nil
	}
	closer := byte(0) // the end of input closes a bare object
	switch {
	case b[i] == '{':
		closer = '}'
		i = SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return trailing(b, i+1)
		}
	case flags&Bare == 0:
		return ErrSyntax
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return ErrSyntax
		}
		*scratch = (*scratch)[:0]
		key, j, err := String(b, i, scratch)
		if err != nil {
			return err
		}
		i = SkipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return ErrSyntax
		}
		if i, err = member(b, SkipSpace(b, i+1), key, flags, scratch, fn); err != nil {
			return err
		}
		i = SkipSpace(b, i)
		switch {
		case i == len(b) && closer == 0:
			return nil
		case i >= len(b):
			return ErrSyntax
		case b[i] == ',':
			i = SkipSpace(b, i+1)
		case b[i] == closer:
			return trailing(b, i+1)
		default:
			return ErrSyntax
		}
	}
}

// member reads the value at b[i] of the member named key and returns the index after it.
func member(b []byte, i int, key []byte, flags Flags, scratch *[]byte, fn func(k, v []byte)) (int, error) {
	if i >= len(b) {
		return 0, ErrSyntax
	}
	switch b[i] {
	case '"':
		val, j, err := String(b, i, scratch)
		if err != nil {
			return 0, err
		}
		fn(key, val)
		return j, nil
	case '{', '[':
		if flags&SkipNested == 0 {
			return 0, ErrSyntax
		}
		return skipNested(b, i)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && !IsSpace(b[j]) {
		j++
	}
	val := b[i:j]
	switch {
	case string(val) == "null":
	case string(val) == "true" || string(val) == "false" || Number(val):
		fn(key, val)
	default:
		return 0, ErrSyntax
	}
	return j, nil
}

// skipNested returns the index after the object or array starting at b[i], or an error if it is
// not closed. Only its brackets and strings are checked.
func skipNested(b []byte, i int) (int, error) {
	depth := 0
	for ; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		case '"':
			var scratch []byte
			_, j, err := String(b, i, &scratch)
			if err != nil {
				return 0, err
			}
			i = j - 1
		}
	}
	return 0, ErrSyntax
}

func trailing(b []byte, i int) error {
	if SkipSpace(b, i) != len(b) {
		return ErrSyntax
	}
	return nil
}

// String decodes the string starting at b[i] == '"'. Without escapes it returns a slice of b;
// with them, a slice of *scratch (appended to). It returns the index after the closing quote, and
// ErrSyntax for a string that is unclosed, holds a control character or a bad escape, or is not
// UTF-8.
func String(b []byte, i int, scratch *[]byte) ([]byte, int, error) {
	start := i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !utf8.Valid(b[start:j]) {
				return nil, 0, ErrSyntax
			}
			return b[start:j], j + 1, nil
		case c == '\\':
			return escaped(b, start, j, scratch)
		case c < 0x20:
			return nil, 0, ErrSyntax
		}
	}
	return nil, 0, ErrSyntax
}

// escaped decodes a string with escapes; b[start:j] has none and b[j] is the first backslash.
func escaped(b []byte, start, j int, scratch *[]byte) ([]byte, int, error) {
	end := j
	for ; end < len(b) && b[end] != '"'; end++ {
		switch c := b[end]; {
		case c == '\\':
			end++
		case c < 0x20:
			return nil, 0, ErrSyntax
		}
	}
	if end >= len(b) {
		return nil, 0, ErrSyntax
	}
	from := len(*scratch)
	s, err := Unescape(*scratch, b[start:end])
	*scratch = s
	if err != nil || !utf8.Valid(s[from:]) {
		return nil, 0, ErrSyntax
	}
	return s[from:], end + 1, nil
}

// Unescape appends the decoded form of a JSON string's content s (the bytes between its quotes)
// to dst. Its errors say what is wrong with the escape, for readers that report it.
func Unescape(dst, s []byte) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		if i+1 >= len(s) {
			return dst, errors.New("a JSON string ends in a lone backslash")
		}
		i++
		switch e := s[i]; e {
		case '"', '\\', '/':
			dst = append(dst, e)
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, n := Rune(s[i-1:])
			if n == 0 {
				return dst, errors.New(`a JSON string has a bad \u escape`)
			}
			dst = utf8.AppendRune(dst, r)
			i += n - 2
		default:
			return dst, badEscape(e)
		}
	}
	return dst, nil
}

func badEscape(e byte) error {
	return errors.New("a JSON string has a bad escape \\" + string(rune(e)))
}

// Rune decodes \uXXXX, or a surrogate pair of them, at the start of b. It returns the rune and
// the bytes used, 0 when malformed; a lone surrogate decodes as U+FFFD, as in encoding/json.
func Rune(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(b[6:]); ok {
			if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
				return d, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// SkipSpace returns the index of the first byte at or after i that is not JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// Number reports whether b is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func Number(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digitsEnd(b, i)
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		j := digitsEnd(b, i+1)
		if j == i+1 {
			return false
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digitsEnd(b, i)
		if j == i {
			return false
		}
		i = j
	}
	return i == len(b)
}

func digitsEnd(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}
