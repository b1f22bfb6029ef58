// Package promtext reads and writes the Prometheus text exposition format (version 0.0.4): the
// /metrics page gpucost serves (Registry, Writer) and the pages of dcgm-exporter it reads
// (ParseSample, ParseLabels, ParseComment, Parse). The parser's messages are those of
// prometheus/common's expfmt, so that skipped lines read the same as before; it replaced expfmt
// and client_golang, which linked protobuf (docs/architecture.md "Binary size").
package promtext

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Label is one name="value" pair of a sample.
type Label struct{ Name, Value string }

// Sample is one sample line: NAME{LABELS} VALUE [TIMESTAMP].
type Sample struct {
	Name        string
	Labels      []Label
	Value       float64
	TimestampMs int64
	HasTime     bool // the line carried a timestamp
}

// Error is a line the parser refuses. Line is its number from 1, or 0 when the line was
// parsed alone.
type Error struct {
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return e.Msg
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

func errorf(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// lexer walks one line; c is the byte at i, or '\n' past the end.
type lexer struct {
	s string
	i int
}

func (l *lexer) c() byte {
	if l.i < len(l.s) {
		return l.s[l.i]
	}
	return '\n'
}

func (l *lexer) blanks() {
	for l.i < len(l.s) && (l.s[l.i] == ' ' || l.s[l.i] == '\t') {
		l.i++
	}
}

// untilBlank returns the text up to the next blank, tab or the line's end.
func (l *lexer) untilBlank() string {
	start := l.i
	for l.i < len(l.s) && l.s[l.i] != ' ' && l.s[l.i] != '\t' {
		l.i++
	}
	return l.s[start:l.i]
}

func nameStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
func nameByte(c byte) bool { return nameStart(c) || (c >= '0' && c <= '9') }

// name reads a metric or label name: the classic character set, or any UTF-8 text in quotes.
// colon says whether ':' is allowed (metric names) or not (label names).
func (l *lexer) name(colon bool) (string, error) {
	if l.c() == '"' {
		n, err := l.quoted("metric name")
		if err == nil && (n == "" || !utf8.ValidString(n)) {
			return "", errorf("invalid metric name %q", n)
		}
		return n, err
	}
	start := l.i
	for l.i < len(l.s) && (nameByte(l.s[l.i]) && (colon || l.s[l.i] != ':')) && !(l.i == start && l.s[l.i] >= '0' && l.s[l.i] <= '9') {
		l.i++
	}
	return l.s[start:l.i], nil
}

// quoted reads a string in double quotes with the escapes \\, \" and \n; l is at the opening
// quote.
func (l *lexer) quoted(what string) (string, error) {
	l.i++
	var b strings.Builder
	start := l.i
	for ; l.i < len(l.s); l.i++ {
		switch l.s[l.i] {
		case '"':
			v := l.s[start:l.i]
			if b.Len() > 0 {
				b.WriteString(v)
				v = b.String()
			}
			l.i++
			return v, nil
		case '\\':
			b.WriteString(l.s[start:l.i])
			l.i++
			switch l.c() {
			case '\\':
				b.WriteByte('\\')
			case '"':
				b.WriteByte('"')
			case 'n':
				b.WriteByte('\n')
			default:
				return "", errorf("invalid escape sequence '\\%c'", l.c())
			}
			start = l.i + 1
		}
	}
	return "", errorf("%s %q contains unescaped new-line", what, b.String()+l.s[start:])
}

// ParseSample parses one sample line, without its newline. The labels are appended to
// buf[:0], which may be nil.
func ParseSample(line string, buf []Label) (Sample, error) {
	l := &lexer{s: line}
	s := Sample{Labels: buf[:0]}
	l.blanks()
	if l.c() != '{' {
		name, err := l.name(true)
		if err != nil {
			return s, err
		}
		if name == "" {
			return s, errorf("invalid metric name")
		}
		s.Name = name
		l.blanks()
	}
	if l.c() == '{' {
		var err error
		if s.Labels, s.Name, err = l.labels(s.Labels, s.Name); err != nil {
			return s, err
		}
		l.blanks()
	}
	tok := l.untilBlank()
	v, err := ParseFloat(tok)
	if err != nil {
		return s, errorf("expected float as value, got %q", tok)
	}
	s.Value = v
	if l.i >= len(l.s) {
		return s, nil
	}
	l.blanks()
	tok = l.untilBlank()
	ts, err := strconv.ParseInt(tok, 10, 64)
	if err != nil {
		return s, errorf("expected integer as timestamp, got %q", tok)
	}
	s.TimestampMs, s.HasTime = ts, true
	if rest := l.s[l.i:]; rest != "" {
		return s, errorf("spurious string after timestamp: %q", rest)
	}
	return s, nil
}

// ParseLabels parses a label set "{a="1",b="2"}" on its own, appending its pairs to buf[:0].
func ParseLabels(set string, buf []Label) ([]Label, error) {
	l := &lexer{s: set}
	if l.c() != '{' {
		return nil, errorf("expected '{' at start of label set, found %q", l.c())
	}
	// "l" stands for the metric name, as in the line "l{…} 0" the set was once parsed in.
	labels, name, err := l.labels(buf[:0], "l")
	if err == nil && name != "l" {
		return nil, errorf("multiple metric names for metric %q", "l")
	}
	if err == nil && l.i < len(l.s) {
		return nil, errorf("unexpected %q after the label set", l.s[l.i:])
	}
	return labels, err
}

// labels reads {…}, l at the brace. A quoted string alone between commas is the metric name
// (the UTF-8 form {"my.metric", a="1"}), allowed only when name is empty.
func (l *lexer) labels(out []Label, name string) ([]Label, string, error) {
	l.i++
	for {
		l.blanks()
		if l.c() == '}' {
			l.i++
			if name == "" {
				return out, name, errorf("invalid metric name")
			}
			return out, name, nil
		}
		quoted := l.c() == '"'
		ln, err := l.name(false)
		if err != nil {
			return out, name, err
		}
		if ln == "" {
			return out, name, errorf("invalid label name for metric %q", name)
		}
		l.blanks()
		if l.c() != '=' {
			if !quoted {
				return out, name, errorf("expected '=' after label name, found %q", l.c())
			}
			if name != "" {
				return out, name, errorf("multiple metric names for metric %q", name)
			}
			if l.c() != ',' && l.c() != '}' {
				return out, name, errorf("unexpected end of metric name %q", l.c())
			}
			name = ln
			if l.c() == ',' {
				l.i++
			}
			continue
		}
		l.i++
		if ln == "__name__" {
			return out, name, errorf("label name %q is reserved", "__name__")
		}
		if !utf8.ValidString(ln) {
			return out, name, errorf("invalid label name %q", ln)
		}
		for _, p := range out {
			if p.Name == ln {
				return out, name, errorf("duplicate label names for metric %q", name)
			}
		}
		l.blanks()
		if l.c() != '"' {
			return out, name, errorf("expected '\"' at start of label value, found %q", l.c())
		}
		v, err := l.quoted("label value")
		if err != nil {
			return out, name, err
		}
		if !utf8.ValidString(v) {
			return out, name, errorf("invalid label value %q", v)
		}
		out = append(out, Label{Name: ln, Value: v})
		l.blanks()
		switch l.c() {
		case ',':
			l.i++
		case '}':
		default:
			return out, name, errorf("unexpected end of label value %q", v)
		}
	}
}

// ParseFloat parses a sample value as Prometheus does: Go's syntax without hexadecimal floats
// or underscores, and "+Inf", "-Inf" and "NaN" in any case.
func ParseFloat(s string) (float64, error) {
	if strings.ContainsAny(s, "pP_") {
		return 0, fmt.Errorf("%q is not a decimal number", s)
	}
	return strconv.ParseFloat(s, 64)
}

// Types are the metric types a TYPE line may name, in lower case.
var Types = []string{"counter", "gauge", "histogram", "gaugehistogram", "gauge_histogram", "summary", "untyped"}

// ParseComment parses a comment line. For "# HELP NAME TEXT" and "# TYPE NAME TYPE" it returns
// the keyword, the name and the (unescaped) text or type; other comments give "".
func ParseComment(line string) (keyword, name, text string, err error) {
	l := &lexer{s: line}
	l.blanks()
	if l.c() != '#' {
		return "", "", "", errorf("a comment begins with '#'")
	}
	l.i++
	l.blanks()
	keyword = l.untilBlank()
	if keyword != "HELP" && keyword != "TYPE" {
		return "", "", "", nil
	}
	l.blanks()
	if name, err = l.name(true); err != nil {
		return "", "", "", err
	}
	if l.i >= len(l.s) {
		return keyword, name, "", nil
	}
	if c := l.c(); c != ' ' && c != '\t' {
		return "", "", "", errorf("invalid metric name in comment")
	}
	l.blanks()
	rest := l.s[l.i:]
	if keyword == "TYPE" {
		t := strings.ToLower(rest)
		for _, ok := range Types {
			if t == ok {
				return keyword, name, strings.ReplaceAll(t, "_", ""), nil
			}
		}
		return "", "", "", errorf("unknown metric type %q", rest)
	}
	if text, err = unescapeHelp(rest); err != nil {
		return "", "", "", err
	}
	return keyword, name, text, nil
}

// unescapeHelp undoes the escapes of HELP text, \\ and \n.
func unescapeHelp(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch {
		case i < len(s) && s[i] == '\\':
			b.WriteByte('\\')
		case i < len(s) && s[i] == 'n':
			b.WriteByte('\n')
		case i < len(s):
			return "", errorf("invalid escape sequence '\\%c'", s[i])
		default:
			return "", errorf("invalid escape sequence at the end of the line")
		}
	}
	return b.String(), nil
}

// Family is the samples of one metric family, with its HELP text and type ("untyped" when no
// TYPE line names it).
type Family struct {
	Name, Help, Type string
	Samples          []Sample
}

// Parse reads a whole page and returns its families in the order they first appear. A family's
// _bucket, _sum and _count samples (of a histogram or summary) belong to it. It fails on the
// first bad line, naming its number, or on a second HELP or TYPE line for a family.
func Parse(r io.Reader) ([]Family, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<20)
	var fams []Family
	index := map[string]int{}
	family := func(name string) *Family {
		if i, ok := index[name]; ok {
			return &fams[i]
		}
		index[name] = len(fams)
		fams = append(fams, Family{Name: name, Type: "untyped"})
		return &fams[len(fams)-1]
	}
	typed := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimLeft(line, " \t") == "" {
			continue
		}
		fail := func(err error) error {
			if e, ok := err.(*Error); ok {
				return &Error{Line: n, Msg: e.Msg}
			}
			return &Error{Line: n, Msg: err.Error()}
		}
		if strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
			kw, name, text, err := ParseComment(line)
			if err != nil {
				return nil, fail(err)
			}
			f := family(name)
			switch {
			case kw == "HELP" && f.Help != "":
				return nil, fail(errorf("second HELP line for metric name %q", name))
			case kw == "HELP":
				f.Help = text
			case kw == "TYPE" && (typed[name] || len(f.Samples) > 0):
				return nil, fail(errorf("second TYPE line for metric name %q, or TYPE reported after samples", name))
			case kw == "TYPE":
				f.Type, typed[name] = text, true
			}
			continue
		}
		s, err := ParseSample(line, nil)
		if err != nil {
			return nil, fail(err)
		}
		name := s.Name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(s.Name, suffix); ok && typed[base] {
				name = base
			}
		}
		f := family(name)
		f.Samples = append(f.Samples, s)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the metrics: %w", err)
	}
	return fams, nil
}
