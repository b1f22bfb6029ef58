package awscur

import (
	"errors"
	"unicode/utf16"
	"unicode/utf8"
)

// errJSONMap is the cause of every malformed map cell.
var errJSONMap = errors.New("not a JSON object of strings")

// jsonMap parses a CUR 2.0 CSV map cell — product, resource_tags, cost_category and tags are
// written as JSON objects, {"user_team":"ml"} (the Tailpipe AWS plugin's CUR reader decodes
// resource_tags cells with json.Unmarshal) — and calls fn for each entry. Keys are strings;
// values are strings or other JSON scalars, kept as written ("3", "true"); null values are
// skipped. Nested objects or arrays are refused. An empty cell or "{}" has no entries. The slices
// handed to fn are valid only during the call.
func jsonMap(b []byte, scratch *[]byte, fn func(k, v []byte)) error {
	i := skipSpace(b, 0)
	if i == len(b) {
		return nil
	}
	if b[i] != '{' {
		return errJSONMap
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return trailing(b, i+1)
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return errJSONMap
		}
		*scratch = (*scratch)[:0]
		key, j, err := jsonString(b, i, scratch)
		if err != nil {
			return err
		}
		i = skipSpace(b, j)
		if i >= len(b) || b[i] != ':' {
			return errJSONMap
		}
		i = skipSpace(b, i+1)
		var val []byte
		isNull := false
		if i < len(b) && b[i] == '"' {
			val, j, err = jsonString(b, i, scratch)
			if err != nil {
				return err
			}
		} else {
			j = i
			for j < len(b) && b[j] != ',' && b[j] != '}' && !isSpace(b[j]) {
				j++
			}
			val = b[i:j]
			switch {
			case string(val) == "null":
				isNull = true
			case string(val) != "true" && string(val) != "false" && !jsonNumber(val):
				return errJSONMap
			}
		}
		if !isNull {
			fn(key, val)
		}
		i = skipSpace(b, j)
		if i >= len(b) {
			return errJSONMap
		}
		switch b[i] {
		case '}':
			return trailing(b, i+1)
		case ',':
			i = skipSpace(b, i+1)
		default:
			return errJSONMap
		}
	}
}

func trailing(b []byte, i int) error {
	if skipSpace(b, i) != len(b) {
		return errJSONMap
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
				return nil, 0, errJSONMap
			}
			return b[start:j], j + 1, nil
		case c == '\\':
			return jsonEscaped(b, start, j, scratch)
		case c < 0x20:
			return nil, 0, errJSONMap
		}
	}
	return nil, 0, errJSONMap
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
				return nil, 0, errJSONMap
			}
			return s[from:], j + 1, nil
		case c < 0x20:
			return nil, 0, errJSONMap
		case c != '\\':
			s = append(s, c)
			j++
			continue
		}
		if j+1 >= len(b) {
			return nil, 0, errJSONMap
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
				return nil, 0, errJSONMap
			}
			s = utf8.AppendRune(s, r)
			j += n
			continue
		default:
			return nil, 0, errJSONMap
		}
		j += 2
	}
	return nil, 0, errJSONMap
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
