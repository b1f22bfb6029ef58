package dcgm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

// recKind says how a line is parsed.
type recKind uint8

const (
	recSample  recKind = iota // "ALIAS VALUE [TS]" in the block's text; the label set is parsed apart
	recComment                // a HELP or TYPE line, parsed alone
	recOdd                    // a sample line the splitter cannot take apart, parsed alone
	recBad                    // a line the splitter rejects (err says why); not parsed
)

// rec is one line of a block: where it was, what the parser is given, and what it made of it.
type rec struct {
	num      int    // line number in the file
	off, end int32  // a sample line's text for the parser, in block.buf
	text     string // the line of a comment or odd line
	kind     recKind
	name     string // metric name
	alias    string // the name the parser is given for it in this block (see block.aliases)
	ls       *labelSet
	f        dcgmfields.Field
	val      float64
	ts       int64
	hasTS    bool
	err      string // why the line is left out
}

// block is a run of lines of one scrape: its sample lines are parsed with their label sets apart,
// the others whole.
type block struct {
	buf       []byte // the sample lines, as the parser is given them
	recs      []rec
	samples   int               // recSample lines in recs
	newSets   []*labelSet       // label sets first seen in this block, parsed with it
	aliases   map[string]string // metric name → its alias in this block
	newScrape bool              // the first block of a scrape: samples before it are complete
	done      chan struct{}
}

const (
	maxBlockLines = 1024
	maxBlockBytes = 256 << 10
	maxLineBytes  = 64 << 10
	maxLabelSets  = 1 << 14 // cached label sets; the cache restarts past this
	maxNames      = 1 << 12 // interned metric names
	maxComments   = 1 << 12 // distinct HELP and TYPE lines remembered
)

func (b *block) reset() {
	b.buf, b.recs, b.newSets = b.buf[:0], b.recs[:0], b.newSets[:0]
	clear(b.aliases)
	b.samples, b.newScrape = 0, false
	b.done = nil
}

func (b *block) full() bool { return len(b.recs) >= maxBlockLines || len(b.buf) >= maxBlockBytes }

// Flags of what a scrape has shown of a metric family.
const (
	seenHelp uint8 = 1 << iota
	seenType
	seenSample
)

// scrape tracks the metric families of the scrape being read, to find where the next begins:
// a family that comes back after another, or a second HELP or TYPE line for it.
type scrape struct {
	seen     map[string]uint8
	cur      string
	curFlags uint8
}

// same reports whether a sample line of family name continues the current run, which is most
// lines: then neither begins nor note need be called.
func (s *scrape) same(name string) bool { return name == s.cur && s.curFlags&seenSample != 0 }

func (s *scrape) begins(name string, what uint8) bool {
	flags, ok := s.seen[name]
	switch {
	case !ok:
		return false
	case name != s.cur:
		return true
	case what != seenSample && flags&what != 0:
		return true
	case what == seenType && flags&seenSample != 0:
		return true
	}
	return false
}

func (s *scrape) note(name string, what uint8) {
	s.seen[name] |= what
	s.cur, s.curFlags = name, s.seen[name]
}

func (s *scrape) reset() {
	clear(s.seen)
	s.cur, s.curFlags = "", 0
}

// family returns the family a sample line belongs to: histogram and summary series end in
// _bucket, _sum or _count after a TYPE line for the bare name.
func (s *scrape) family(name string) string {
	if _, ok := s.seen[name]; ok {
		return name
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := trimSuffix(name, suffix); ok {
			if flags := s.seen[base]; flags&seenType != 0 {
				return base
			}
		}
	}
	return name
}

func trimSuffix(s, suffix string) (string, bool) {
	if len(s) > len(suffix) && s[len(s)-len(suffix):] == suffix {
		return s[:len(s)-len(suffix)], true
	}
	return s, false
}

// splitter cuts the input into blocks: it takes each sample line apart into its name, label set
// and value, finds where one scrape ends and the next begins, and sends each block on.
type splitter struct {
	p         *parser
	b         *block
	send      func(*block) bool
	last      string // the metric name of the last sample line
	lastAlias string // and its alias in the block
}

// scan reads r line by line into blocks and hands each block to send, which returns false to
// stop. It returns the read error, if any.
func (p *parser) scan(r io.Reader, send func(*block) bool) error {
	br := bufio.NewReaderSize(r, maxLineBytes)
	s := &splitter{p: p, b: p.getBlock(), send: send}
	num := 0
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			num++
		}
		ok := true
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			s.b.bad(num, fmt.Sprintf("line longer than %d KiB; left out", maxLineBytes>>10))
			err = discardLine(br)
		case len(line) > 0 && line[len(line)-1] == '\n':
			ok = s.addLine(line[:len(line)-1], num)
		case len(line) > 0:
			s.b.bad(num, "truncated: the last line has no newline (was the file cut short?); left out")
		}
		if ok && s.b.full() {
			ok = s.next(false)
		}
		if !ok {
			return nil
		}
		if err != nil {
			if len(s.b.recs) > 0 && !send(s.b) {
				return nil
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("read line %d: %w", num+1, err)
		}
	}
}

// next sends the block on, if it holds lines, and starts another; with newScrape the next line
// begins a new scrape. It returns false if the reader is to stop.
func (s *splitter) next(newScrape bool) bool {
	if len(s.b.recs) > 0 {
		if !s.send(s.b) {
			return false
		}
		s.b = s.p.getBlock()
		s.lastAlias = ""
	}
	if newScrape {
		s.p.scrape.reset()
		s.b.newScrape = true
	}
	return true
}

// discardLine skips the rest of a line too long for the buffer.
func discardLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func (b *block) bad(num int, why string) {
	b.recs = append(b.recs, rec{num: num, kind: recBad, err: why})
}

// addSample appends a sample line for the parser: its alias and the rest of the line.
func (b *block) addSample(r rec, alias string, rest []byte) {
	r.off = int32(len(b.buf))
	b.buf = append(append(append(append(b.buf, alias...), ' '), rest...), '\n')
	r.end = int32(len(b.buf))
	b.recs = append(b.recs, r)
	b.samples++
}

// addLine adds one line, without its newline. It returns false if the reader is to stop.
func (s *splitter) addLine(line []byte, num int) bool {
	line = bytes.TrimRight(bytes.TrimLeft(line, " \t"), "\r")
	switch {
	case len(line) == 0:
		return true
	case bytes.IndexByte(line, 0) >= 0:
		s.b.bad(num, "binary data (a NUL byte): not Prometheus text")
		return true
	case line[0] == '#':
		return s.addComment(line, num)
	}
	return s.addSample(line, num)
}

// addComment adds a HELP or TYPE line; "# EOF" ends the scrape and other comments are dropped.
func (s *splitter) addComment(line []byte, num int) bool {
	keyword, rest := word(line[1:])
	name, _ := word(rest)
	switch {
	case string(keyword) == "EOF" && len(name) == 0:
		return s.next(true)
	case len(name) == 0 || (string(keyword) != "HELP" && string(keyword) != "TYPE"):
		return true
	}
	what := seenHelp
	if string(keyword) == "TYPE" {
		what = seenType
	}
	family := s.p.intern(name)
	if s.p.scrape.begins(family, what) && !s.next(true) {
		return false
	}
	s.p.scrape.note(family, what)
	// A scrape repeats the same HELP and TYPE lines: the parser checks each distinct one once.
	if _, ok := s.p.comments[string(line)]; ok {
		return true
	}
	if len(s.p.comments) >= maxComments {
		clear(s.p.comments)
	}
	s.p.comments[string(line)] = struct{}{}
	s.b.recs = append(s.b.recs, rec{num: num, kind: recComment, name: family, text: string(line)})
	return true
}

// word returns the first word of b, after blanks and tabs, and what follows it.
func word(b []byte) (w, rest []byte) {
	b = bytes.TrimLeft(b, " \t")
	i := bytes.IndexAny(b, " \t")
	if i < 0 {
		return b, nil
	}
	return b[:i], b[i:]
}

// addSample adds a sample line. A line of the usual shape, NAME{LABELS} VALUE [TIMESTAMP], goes
// to the parser as "ALIAS VALUE [TIMESTAMP]" and its label set, if new, apart; any other goes
// whole. The alias is a short name standing for NAME within the block: NAME has the classic
// character set (nameEnd), which the parser always accepts, so it need not read it again.
func (s *splitter) addSample(line []byte, num int) bool {
	i := nameEnd(line)
	if i == 0 {
		s.b.recs = append(s.b.recs, rec{num: num, kind: recOdd, text: string(line)})
		return true
	}
	name := s.last
	if name != string(line[:i]) {
		name = s.p.intern(line[:i])
	}
	rest := trimBlanks(line[i:])
	var raw []byte
	if len(rest) > 0 && rest[0] == '{' {
		end := labelsEnd(rest)
		if end < 0 {
			s.b.recs = append(s.b.recs, rec{num: num, kind: recOdd, text: string(line)})
			return true
		}
		raw, rest = rest[:end], trimBlanks(rest[end:])
	}
	if !s.p.scrape.same(name) {
		family := s.p.scrape.family(name)
		if s.p.scrape.begins(family, seenSample) && !s.next(true) {
			return false
		}
		s.p.scrape.note(family, seenSample)
	}
	ls := s.p.labelSet(raw, s.b)
	if s.lastAlias == "" || name != s.last {
		s.lastAlias = s.b.alias(name)
	}
	s.last = name
	s.b.addSample(rec{num: num, kind: recSample, name: name, alias: s.lastAlias, ls: ls, f: dcgmfields.Of(name)}, s.lastAlias, rest)
	return true
}

// aliasNames are the aliases blocks give metric names: a…z, A…Z, then two letters.
var aliasNames = func() []string {
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	var out []string
	for _, c := range letters {
		out = append(out, string(c))
	}
	for _, c := range letters {
		for _, d := range letters {
			out = append(out, string(c)+string(d))
		}
	}
	return out[:maxBlockLines]
}()

// alias returns the alias of a metric name in the block.
func (b *block) alias(name string) string {
	if a, ok := b.aliases[name]; ok {
		return a
	}
	if b.aliases == nil {
		b.aliases = map[string]string{}
	}
	a := aliasNames[len(b.aliases)]
	b.aliases[name] = a
	return a
}

// labelsEnd returns the length of the label set {…} that b begins with, or -1 if it does not end
// on this line. In a valid line nothing after the label set — the value and the timestamp — holds
// a brace, so the set ends at the last one; in an invalid line the set so cut fails to parse, and
// the line is rejected all the same.
func labelsEnd(b []byte) int {
	if i := bytes.LastIndexByte(b, '}'); i > 0 {
		return i + 1
	}
	return -1
}

// nameEnd returns the length of the metric name that b begins with, in the classic character set
// [a-zA-Z_:][a-zA-Z0-9_:]*, if a label set, a blank or a tab follows it; otherwise 0.
func nameEnd(b []byte) int {
	for i, c := range b {
		switch {
		case c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9'):
		case i > 0 && (c == '{' || c == ' ' || c == '\t'):
			return i
		default:
			return 0
		}
	}
	return 0
}

// validName reports whether s is a name in the classic character set.
func validName(s string) bool {
	for i, c := range []byte(s) {
		if !(c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (i > 0 && c >= '0' && c <= '9')) {
			return false
		}
	}
	return s != ""
}

// trimBlanks drops the blanks and tabs b begins with.
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

// intern returns b as a string, shared with earlier lines of the same name.
func (p *parser) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.names) < maxNames {
		p.names[s] = s
	}
	return s
}

// labelSet returns the label set of raw, shared with earlier lines; a new one is parsed with b.
func (p *parser) labelSet(raw []byte, b *block) *labelSet {
	if ls, ok := p.sets[string(raw)]; ok {
		return ls
	}
	if len(p.sets) >= maxLabelSets {
		clear(p.sets)
	}
	ls := &labelSet{raw: string(raw)}
	p.sets[ls.raw] = ls
	b.newSets = append(b.newSets, ls)
	return ls
}
