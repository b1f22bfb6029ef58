package promtext

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ContentType is the media type of the text format Writer produces.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Writer builds a page in the text format: a Family call for each metric family, then its
// samples.
type Writer struct {
	buf []byte
}

// Family writes the HELP and TYPE lines of a family; typ is counter, gauge, histogram, summary
// or untyped.
func (w *Writer) Family(name, typ, help string) {
	w.buf = append(w.buf, "# HELP "...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, ' ')
	w.buf = appendEscaped(w.buf, help, false)
	w.buf = append(w.buf, "\n# TYPE "...)
	w.buf = append(w.buf, name...)
	w.buf = append(w.buf, ' ')
	w.buf = append(w.buf, typ...)
	w.buf = append(w.buf, '\n')
}

// Sample writes one sample line; labels are name, value pairs.
func (w *Writer) Sample(name string, v float64, labels ...string) {
	w.buf = append(w.buf, name...)
	if len(labels) > 0 {
		w.buf = append(w.buf, '{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.buf = append(w.buf, labels[i]...)
			w.buf = append(w.buf, '=', '"')
			w.buf = appendEscaped(w.buf, labels[i+1], true)
			w.buf = append(w.buf, '"')
		}
		w.buf = append(w.buf, '}')
	}
	w.buf = append(w.buf, ' ')
	w.buf = AppendFloat(w.buf, v)
	w.buf = append(w.buf, '\n')
}

// Bytes returns the page written so far.
func (w *Writer) Bytes() []byte { return w.buf }

// Reset empties the page, keeping its memory.
func (w *Writer) Reset() { w.buf = w.buf[:0] }

// AppendFloat appends v as the text format writes it: the shortest decimal that reads back as v,
// and +Inf, -Inf and NaN.
func AppendFloat(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// appendEscaped appends s with backslash and new-line escaped, and double quotes too in a label
// value. Bytes that are not UTF-8 become U+FFFD: Prometheus refuses a whole page for one such
// label value, and a namespace or team name comes from outside.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if !strings.ContainsAny(s, "\\\n\"") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '"' && quote:
			b = append(b, '\\', '"')
		default:
			b = append(b, c)
		}
	}
	return b
}
