package csvscan

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/limits"
)

// records reads all records of data through a scanner whose reader hands out chunk bytes at a
// time, so that records straddle buffer refills.
func records(data string, chunk int) ([][]string, []int, error) {
	var r io.Reader = strings.NewReader(data)
	if chunk > 0 {
		r = iotest.OneByteReader(r)
	}
	s := New(r, 64)
	var recs [][]string
	var lines []int
	for s.Next() {
		rec := make([]string, s.Count())
		for i := range rec {
			rec[i] = string(s.Field(i))
		}
		recs = append(recs, rec)
		lines = append(lines, s.Line())
	}
	return recs, lines, s.Err()
}

func TestScanner(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		want  [][]string
		lines []int
	}{
		{"plain", "a,b\n1,2\n", [][]string{{"a", "b"}, {"1", "2"}}, []int{1, 2}},
		{"crlf", "a,b\r\n1,2\r\n", [][]string{{"a", "b"}, {"1", "2"}}, []int{1, 2}},
		{"no final newline", "a,b\n1,", [][]string{{"a", "b"}, {"1", ""}}, []int{1, 2}},
		{"blank lines", "\na\n\r\n\nb\n", [][]string{{"a"}, {"b"}}, []int{2, 5}},
		{"quoted", `"a,b","c""d",""` + "\n", [][]string{{"a,b", `c"d`, ""}}, []int{1}},
		{"json cell", `x,"{""team"":""ml""}"` + "\n", [][]string{{"x", `{"team":"ml"}`}}, []int{1}},
		{"line break in quotes", "\"a\nb\",c\nd,e\n", [][]string{{"a\nb", "c"}, {"d", "e"}}, []int{1, 3}},
		{"quote in unquoted", `a"b,c` + "\n", [][]string{{`a"b`, "c"}}, []int{1}},
		{"long quoted", `"` + strings.Repeat(`ab""`, 50) + `",z`, [][]string{{strings.Repeat(`ab"`, 50), "z"}}, []int{1}},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1} {
			got, lines, err := records(tt.in, chunk)
			if err != nil || !slices.EqualFunc(got, tt.want, slices.Equal) || !slices.Equal(lines, tt.lines) {
				t.Errorf("%s: records(%q, chunk %d) = %q lines %v, %v; want %q lines %v",
					tt.name, tt.in, chunk, got, lines, err, tt.want, tt.lines)
			}
		}
	}
}

func TestScannerErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a,b\n\"open,c\n", "line 2, column 1: a quoted field without its closing quote"},
		{"a,b\nx,\"q\"r\n", "line 2, column 2: a quoted field followed by more text"},
		{"a\n\"x\ny\"z\n", "line 3, column 1: a quoted field followed by more text"},
	}
	for _, tt := range tests {
		_, _, err := records(tt.in, 0)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("records(%q) error = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestRawEscape(t *testing.T) {
	s := New(strings.NewReader(`a,"b","c""d"`), 0)
	if !s.Next() {
		t.Fatal(s.Err())
	}
	want := []struct {
		b string
		e Escape
	}{{"a", Plain}, {"b", Quoted}, {`c""d`, Doubled}}
	for i, w := range want {
		if b, e := s.Raw(i); string(b) != w.b || e != w.e {
			t.Errorf("Raw(%d) = %q, %d; want %q, %d", i, b, e, w.b, w.e)
		}
	}
}

func TestTooLong(t *testing.T) {
	long := strings.Repeat("x", limits.MaxField+1)
	fits := strings.Repeat("x", limits.MaxField)
	manyFields := strings.Repeat(fits[:1000]+",", limits.MaxLine/1000+1)
	for _, tc := range []struct {
		name   string
		in     io.Reader
		size   int // the scanner's first buffer
		want   *limits.TooLong
		record bool
	}{
		{"endless quoted field", io.MultiReader(strings.NewReader("a,b\n1,\""), neverEnding('x')), 256 << 10,
			&limits.TooLong{Line: 2, Column: 2, Name: "b", Limit: limits.MaxField}, false},
		{"endless plain field", io.MultiReader(strings.NewReader("a,b\n"), neverEnding('x')), 64,
			&limits.TooLong{Line: 2, Column: 1, Name: "a", Limit: limits.MaxField}, false},
		{"long field in a buffered record", strings.NewReader("a,b\n1,2\n\"" + long + "\",3\n"), 4 << 20,
			&limits.TooLong{Line: 3, Column: 1, Name: "a", Limit: limits.MaxField}, false},
		{"long plain field at the end", strings.NewReader("a,b\n1," + long), 256 << 10,
			&limits.TooLong{Line: 2, Column: 2, Name: "b", Limit: limits.MaxField}, false},
		{"record of short fields", io.MultiReader(strings.NewReader("a,b\n"), strings.NewReader(manyFields)), 256 << 10,
			&limits.TooLong{Line: 2, Column: limits.MaxLine/1001 + 1, Limit: limits.MaxLine, Record: true}, true},
	} {
		s := New(tc.in, tc.size)
		s.Names = []string{"a", "b"}
		for s.Next() {
		}
		var got *limits.TooLong
		if !errors.As(s.Err(), &got) || *got != *tc.want {
			t.Errorf("%s: Next err = %#v, want %#v", tc.name, s.Err(), tc.want)
		}
		if len(s.buf) > limits.MaxLine && tc.size <= limits.MaxLine {
			t.Errorf("%s: the buffer grew to %d bytes, past limits.MaxLine", tc.name, len(s.buf))
		}
	}
	s := New(strings.NewReader("a,b\n\""+fits+"\","+fits[1:]+"\n"), 64)
	if !s.Next() || !s.Next() || len(s.Field(0)) != limits.MaxField || s.Err() != nil {
		t.Errorf("a record of two fields of limits.MaxField: err = %v, want it read", s.Err())
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestReadError(t *testing.T) {
	boom := errors.New("boom")
	s := New(io.MultiReader(strings.NewReader("a,b\n1,"), iotest.ErrReader(boom)), 0)
	for s.Next() {
	}
	if !errors.Is(s.Err(), boom) {
		t.Fatalf("Err() = %v, want the reader's error", s.Err())
	}
}

// TestClosingQuote checks the eight-bytes-at-a-time search against the byte-at-a-time one on
// quote-dense random fields.
func TestClosingQuote(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	alphabet := []byte(`"",,{}ab:"` + "\n")
	for range 100000 {
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		checkClosingQuote(t, b, r.IntN(len(b)+1))
	}
}

func checkClosingQuote(t *testing.T, b []byte, start int) {
	t.Helper()
	for _, atEOF := range []bool{false, true} {
		got, gd, gerr := closingQuote(b, start, atEOF)
		want, wd, werr := closingQuoteBytes(b, start, atEOF)
		if got != want || (gerr == nil) != (werr == nil) || (gerr == nil && gd != wd) {
			t.Fatalf("closingQuote(%q, %d, %v) = %d, %v, %v; byte by byte %d, %v, %v",
				b, start, atEOF, got, gd, gerr, want, wd, werr)
		}
	}
}

func FuzzClosingQuote(f *testing.F) {
	f.Add([]byte(`{""user_team"":""ml""},x`), 0)
	f.Add([]byte(`a""""""""b"",c""",`), 1)
	f.Fuzz(func(t *testing.T, b []byte, start int) {
		if start < 0 || start > len(b) {
			return
		}
		checkClosingQuote(t, b, start)
	})
}

func TestIndexComma(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = ",a\x2c\xac\x00-"[r.IntN(6)]
		}
		if got, want := indexComma(b), bytes.IndexByte(b, ','); got != want {
			t.Fatalf("indexComma(%q) = %d, want %d", b, got, want)
		}
	}
}

// FuzzScanner checks the scanner against encoding/csv: where encoding/csv reads the input
// (strictly, so a quote inside an unquoted field is an error there), the records must agree,
// whole and a byte at a time. Inputs with CR are left out: encoding/csv turns CRLF inside a
// quoted field into LF, the scanner keeps the bytes.
func FuzzScanner(f *testing.F) {
	f.Add("line_item_usage_start_date,resource_tags\n2024-09-01T00:00:00Z,\"{\"\"user_team\"\":\"\"ml\"\"}\"\n")
	f.Add("Date,Tags,Cost\n09/01/2024,\"\"\"team\"\": \"\"ml\"\"\",1.5\n\n")
	f.Add("a,\"b\nc\",d\n\"\"\n,\n")
	f.Fuzz(func(t *testing.T, in string) {
		if strings.ContainsRune(in, '\r') {
			return
		}
		cr := csv.NewReader(strings.NewReader(in))
		cr.FieldsPerRecord = -1
		want, werr := cr.ReadAll()
		for _, chunk := range []int{0, 1} {
			got, _, err := records(in, chunk)
			if werr != nil {
				if err == nil && strings.Contains(werr.Error(), "extraneous or missing \" in quoted-field") {
					t.Fatalf("records(%q) accepted what encoding/csv refuses: %v", in, werr)
				}
				continue
			}
			if err != nil || !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("records(%q, chunk %d) = %q, %v; encoding/csv %q", in, chunk, got, err, want)
			}
		}
	})
}

// A malformed record is a *SyntaxError naming the line, the field and the byte of the line, read
// in one piece or a byte at a time.
func TestSyntaxErrorOffset(t *testing.T) {
	tests := []struct {
		in                   string
		line, column, offset int
		err                  error
	}{
		{"a,b\n\"open,c\n", 2, 1, 1, ErrUnclosedQuote},
		{"a,b\nxy,\"q\"r\n", 2, 2, 7, ErrTextAfterQuote},
		{"a\n\"x\ny\"z\n", 3, 1, 3, ErrTextAfterQuote},
		{"a,b,c\n1,\"two\nlines\",\"3\"x\n", 3, 3, 11, ErrTextAfterQuote},
	}
	for _, tt := range tests {
		for _, chunk := range []int{0, 1} {
			_, _, err := records(tt.in, chunk)
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line != tt.line || se.Column != tt.column || se.Offset != tt.offset || !errors.Is(err, tt.err) {
				t.Errorf("records(%q, chunk %d) error = %#v; want line %d, column %d, offset %d, %v", tt.in, chunk, err, tt.line, tt.column, tt.offset, tt.err)
			}
		}
	}
}

// Where names the line and the byte of the line each field starts at, its opening quote if
// quoted, in records that span lines.
func TestWhere(t *testing.T) {
	s := New(strings.NewReader("h1,h2,h3\n\"a\nb\",cd,\"e\"\n\nx,yy,z\n"), 0)
	want := [][][2]int{{{1, 1}, {1, 4}, {1, 7}}, {{2, 1}, {3, 4}, {3, 7}}, {{5, 1}, {5, 3}, {5, 6}}}
	for r := 0; s.Next(); r++ {
		for i := range s.Count() {
			if line, col := s.Where(i); line != want[r][i][0] || col != want[r][i][1] {
				t.Errorf("record %d: Where(%d) = %d:%d, want %d:%d", r, i, line, col, want[r][i][0], want[r][i][1])
			}
		}
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
}

// Invalid is EInvalid, naming the read, the place and the limit or the malformation.
func TestInvalid(t *testing.T) {
	s := New(strings.NewReader("a,b\nx,\"q\"r\n"), 0)
	s.Names = []string{"a", "b"}
	for s.Next() {
	}
	err := s.Invalid("read X bill.csv")
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.HasPrefix(err.Error(), "read X bill.csv:2: column 2 (b): a quoted field followed by more text") {
		t.Errorf("Invalid = %v", err)
	}
	s = New(strings.NewReader("a\n"+strings.Repeat("x", limits.MaxField+1)+"\n"), 0)
	for s.Next() {
	}
	var tl *limits.TooLong
	if err := s.Invalid("read X bill.csv"); gpucost.ErrorCode(err) != gpucost.EInvalid || !errors.As(s.Err(), &tl) || !strings.Contains(err.Error(), "bill.csv") {
		t.Errorf("Invalid after a long field = %v", err)
	}
}
