package azure

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// errJSON is the cause of every malformed JSON cell.
var errJSON = errors.New("not a JSON object")

// jsonObject parses the JSON object in a Tags or AdditionalInfo cell and calls fn for each member
// whose value is a string or another scalar (kept as written: "3", "true"); null members are
// skipped. The outer braces may be missing, as they are in the Tags of EA and pay-as-you-go
// files ("team": "ml","env": "prod"; Microsoft's FOCUS conversion wraps such cells in braces). An
// empty cell has no members. With nested set, object and array values are skipped; otherwise they
// are an error. The slices handed to fn are valid only during the call.
func jsonObject(b []byte, nested bool, scratch *[]byte, fn func(k, v []byte)) error {
	i := skipSpace(b, 0)
	if i == len(b) {
		return nil
	}
	closer := byte(0) // the end of input closes a cell without braces
	if b[i] == '{' {
		closer = '}'
		i = skipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return trailing(b, i+1)
		}
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errJSON
		}
		*scratch = (*scratch)[:0]
		key, j, err := jsonString(b, i, scratch)
		if err != nil {
			return err
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return errJSON
		}
		if i, err = jsonMember(b, skipSpace(b, i+1), key, nested, scratch, fn); err != nil {
			return err
		}
		i = skipSpace(b, i)
		switch {
		case i == len(b) && closer == 0:
			return nil
		case i >= len(b):
			return errJSON
		case b[i] == ',':
			i = skipSpace(b, i+1)
		case b[i] == closer:
			return trailing(b, i+1)
		default:
			return errJSON
		}
	}
}

// jsonMember reads the value at b[i] of the member named key and returns the index after it.
func jsonMember(b []byte, i int, key []byte, nested bool, scratch *[]byte, fn func(k, v []byte)) (int, error) {
	if i >= len(b) {
		return 0, errJSON
	}
	switch b[i] {
	case '"':
		val, j, err := jsonString(b, i, scratch)
		if err != nil {
			return 0, err
		}
		fn(key, val)
		return j, nil
	case '{', '[':
		if !nested {
			return 0, errJSON
		}
		return skipNested(b, i)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && !isSpace(b[j]) {
		j++
	}
	val := b[i:j]
	switch {
	case string(val) == "null":
	case string(val) == "true" || string(val) == "false" || jsonNumber(val):
		fn(key, val)
	default:
		return 0, errJSON
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
			_, j, err := jsonString(b, i, &scratch)
			if err != nil {
				return 0, err
			}
			i = j - 1
		}
	}
	return 0, errJSON
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errJSON
	}
	return nil
}

// jsonString decodes the string starting at b[i] == '"'. Without escapes it returns a slice of b;
// with them, a slice of scratch (appended to). It returns the index after the closing quote.
func jsonString(b []byte, i int, scratch *[]byte) ([]byte, int, error) {
	start := i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !utf8.Valid(b[start:j]) {
				return nil, 0, errJSON
			}
			return b[start:j], j + 1, nil
		case c == '\\':
			return jsonEscaped(b, start, j, scratch)
		case c < 0x20:
			return nil, 0, errJSON
		}
	}
	return nil, 0, errJSON
}

// jsonEscaped decodes a string with escapes; b[start:j] has none.
func jsonEscaped(b []byte, start, j int, scratch *[]byte) ([]byte, int, error) {
	s := *scratch
	from := len(s)
	s = append(s, b[start:j]...)
	for j < len(b) {
		c := b[j]
		switch {
		case c == '"':
			*scratch = s
			if !utf8.Valid(s[from:]) {
				return nil, 0, errJSON
			}
			return s[from:], j + 1, nil
		case c < 0x20:
			return nil, 0, errJSON
		case c != '\\':
			s = append(s, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			return nil, 0, errJSON
		}
		switch e := b[j+1]; e {
		case '"', '\\', '/':
			s = append(s, e)
		case 'b':
			s = append(s, '\b')
		case 'f':
			s = append(s, '\f')
		case 'n':
			s = append(s, '\n')
		case 'r':
			s = append(s, '\r')
		case 't':
			s = append(s, '\t')
		case 'u':
			r, n := jsonRune(b[j:])
			if n == 0 {
				return nil, 0, errJSON
			}
			s = utf8.AppendRune(s, r)
			j += n
			continue
		default:
			return nil, 0, errJSON
		}
		j += 2
	}
	return nil, 0, errJSON
}

// jsonRune decodes \uXXXX, or a surrogate pair of them, at the start of b. It returns the rune
// and the bytes used, 0 when malformed.
func jsonRune(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(b[6:]); ok && len(b) >= 12 {
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

func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// jsonNumber reports whether b is a JSON number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i := 0
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		start := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == start {
			return false
		}
	}
	return i == len(b)
}
