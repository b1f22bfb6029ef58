package gcp

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// csvParts splits the euro CSV fixture into its header and first data row, and says where a
// column is (1-based).
func csvParts(t testing.TB) (header, row string, col func(string) int) {
	t.Helper()
	header, rest, _ := strings.Cut(fixture(t, "standard_export_eur.csv"), "\n")
	row, _, _ = strings.Cut(rest, "\n")
	names := strings.Split(header, ",")
	return header, row, func(name string) int { return slices.Index(names, name) + 1 }
}

// TestReadBadInput checks that each kind of bad input stops with an EInvalid error naming the
// place, the value and what to do.
func TestReadBadInput(t *testing.T) {
	header, row, col := csvParts(t)
	csvRow := func(old, new string) []byte { return []byte(header + "\n" + strings.Replace(row, old, new, 1) + "\n") }
	dropColumns := func(names ...string) []byte {
		var keep []string
		for _, c := range strings.Split(header, ",") {
			if !slices.Contains(names, c) {
				keep = append(keep, c)
			}
		}
		return []byte(strings.Join(keep, ",") + "\n")
	}
	jsonRows := strings.SplitAfter(fixture(t, "detailed_export.jsonl"), "\n")
	jsonRow := func(old, new string) []byte {
		return []byte(jsonRows[0] + strings.Replace(jsonRows[1], old, new, 1))
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(fixture(t, "detailed_export.jsonl")))
	zw.Close()
	truncated := gz.Bytes()[:gz.Len()/2]
	at := func(line int, column string) string {
		return fmt.Sprintf("x:%d: column %d (%s)", line, col(column), column)
	}
	tests := []struct {
		name  string
		input []byte
		want  []string // substrings of the message
	}{
		{"csv bad decimal", csvRow(",2.699197,EUR,", ",2.69x197,EUR,"), []string{at(2, "cost"), "cost", `"2.69x197"`, "decimal amount", "export the table again"}},
		{"csv bad date", csvRow("2025-06-03 14:00:00 UTC", "2025-06-31 14:00:00 UTC"), []string{at(2, "usage_start_time"), `"2025-06-31 14:00:00 UTC"`, "timestamp"}},
		{"csv bad invoice month", csvRow(",202506,", ",2025-13,"), []string{at(2, "invoice.month"), `"2025-13"`, "month"}},
		{"csv bad usage amount", csvRow(",3600,seconds,", ",3600s,seconds,"), []string{at(2, "usage.amount"), `"3600s"`, "a number"}},
		{"csv bad labels JSON", csvRow(`""value"":""vision-eu""}]`, `""value"":""vision-eu""]`), []string{at(2, "project.labels"), "JSON array"}},
		{"csv bad credits JSON", csvRow(",[],202506,", ",[{],202506,"), []string{at(2, "credits"), "credits"}},
		{"csv credit amount not a number", csvRow(",[],202506,", `,"[{""amount"":""lots""}]",202506,`), []string{at(2, "credits"), "lots"}},
		{"csv empty currency", csvRow(",EUR,", ",,"), []string{at(2, "currency") + " is empty"}},
		{"csv empty cost", csvRow(",2.699197,EUR,", ",,EUR,"), []string{at(2, "cost") + " is empty"}},
		{"missing columns listed together", dropColumns("cost", "currency", "usage_end_time"),
			[]string{"standard usage cost export", "usage_end_time", "cost", "currency", "SELECT *"}},
		{"not an export", []byte("BilledCost,EffectiveCost\n1,1\n"), []string{"not a Cloud Billing export", "BilledCost"}},
		{"empty file", nil, []string{"empty"}},
		{"short row", []byte(header + "\na,b,c\n"), []string{"x:2", "3 fields", "41"}},
		{"unterminated quote", []byte(header + "\n" + row[:100] + `,"abc` + "\n"), []string{"closing quote"}},
		{"text after a closing quote", []byte(header + "\n" + strings.Replace(row, ",Compute Engine,", `,"Compute"Engine,`, 1) + "\n"),
			[]string{"x:2: column 3 (service.description)", "quoted field followed by more text"}},
		{"json bad decimal", jsonRow(`"cost":0.379332`, `"cost":"0.3x"`), []string{"x:2:", "cost", `"0.3x"`, "decimal amount"}},
		{"json bad date", jsonRow(`"usage_start_time":"2025-06-03 14:00:00 UTC"`, `"usage_start_time":"03/06/2025"`), []string{"x:2:", "usage_start_time", `"03/06/2025"`}},
		{"json syntax", jsonRow(`"cost":0.379332,`, `"cost":0.379332,,`), []string{"x:2:", "JSON object key", "not valid JSON"}},
		{"json cost missing", jsonRow(`"cost":0.379332,`, ``), []string{"x:2", "cost is empty"}},
		{"json record of the wrong kind", jsonRow(`"service":{"id":"6F81-5844-456A","description":"Compute Engine"}`, `"service":"Compute Engine"`), []string{"x:2:", "service is a string"}},
		{"json row not an object", []byte(jsonRows[0] + "[1,2]\n"), []string{"x:2:", "JSON object"}},
		{"json truncated row", []byte(jsonRows[0] + jsonRows[1][:200]), []string{"x:2:", "without its end", "truncated"}},
		{"json array not closed", []byte("[" + strings.TrimSpace(jsonRows[0])), []string{"not closed"}},
		{"json rows without a comma", []byte("[" + strings.TrimSpace(jsonRows[0]) + strings.TrimSpace(jsonRows[1]) + "]"), []string{"without a comma"}},
		{"truncated gzip", truncated, []string{"truncated"}},
		{"Parquet", []byte("PAR1\x00\x00"), []string{"Parquet", "newline-delimited JSON"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _, err := readBytes(tt.input, "x")
			if err == nil {
				t.Fatalf("Read = %d lines, nil error; want an error", len(lines))
			}
			billtest.Invalid(t, err, tt.want...)
		})
	}
}

// TestJSONErrorColumn checks that a bad JSON value is located by line, field and byte of the line.
func TestJSONErrorColumn(t *testing.T) {
	rows := strings.SplitAfter(fixture(t, "detailed_export.jsonl"), "\n")
	bad := strings.Replace(rows[2], `"cost":0.360145`, `"cost":"0.3x"`, 1)
	_, _, err := readBytes([]byte(rows[0]+rows[1]+bad), "x.jsonl")
	want := fmt.Sprintf("x.jsonl:3: column cost at byte %d:", strings.Index(bad, `"0.3x"`)+1)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read error = %v, want it at %s", err, want)
	}
	pretty := fixture(t, "bq_query.json")
	i := strings.Index(pretty, `"cost": "2.93391"`)
	pretty = pretty[:i] + `"cost": "2.9x"` + pretty[i+len(`"cost": "2.93391"`):]
	line := strings.Count(pretty[:i], "\n") + 1
	col := i - strings.LastIndex(pretty[:i], "\n") + len(`"cost": `)
	_, _, err = readBytes([]byte(pretty), "q.json")
	if want := fmt.Sprintf("q.json:%d: column cost at byte %d:", line, col); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Read(pretty JSON) error = %v, want it at %s", err, want)
	}
}

// TestReadStopsAtFirstBadValue checks that lines before a bad value are emitted and none after.
func TestReadStopsAtFirstBadValue(t *testing.T) {
	rows := strings.SplitAfter(fixture(t, "detailed_export.jsonl"), "\n")
	rows[9] = strings.Replace(rows[9], `"cost":`, `"cost":"x`, 1)
	lines, st, err := readBytes([]byte(strings.Join(rows, "")), "x.jsonl")
	if err == nil || !strings.Contains(err.Error(), "x.jsonl:10:") {
		t.Fatalf("Read error = %v, want one on line 10", err)
	}
	if len(lines) != 9 || st.Rows != 9 {
		t.Errorf("Read emitted %d lines (Stats.Rows %d) before the bad one, want 9", len(lines), st.Rows)
	}
}

func TestReadEmitError(t *testing.T) {
	stop := errors.New("stop here")
	n := 0
	_, err := Read(strings.NewReader(fixture(t, "standard_export_eur.csv")), "x.csv", func(*gpucost.CostLine) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 || !strings.Contains(err.Error(), "x.csv:4") {
		t.Errorf("Read = %v after %d lines, want emit's error at line 4 after 3", err, n)
	}
}

func TestReadHeaderOnly(t *testing.T) {
	header, _, _ := csvParts(t)
	lines, st, err := readBytes([]byte(header+"\n"), "x.csv")
	if err != nil || len(lines) != 0 || st.Rows != 0 || st.Dialect != DialectStandard || st.Names != NamesDotted {
		t.Errorf("Read(header only) = %d lines, %+v, %v; want none, no error", len(lines), st, err)
	}
	if lines, st, err := readBytes([]byte("[]"), "x.json"); err != nil || len(lines) != 0 || st.Format != "json" {
		t.Errorf("Read([]) = %d lines, %+v, %v; want none, no error", len(lines), st, err)
	}
}

// TestReadCSVForms checks CRLF line ends, a byte order mark, quoted line breaks, blank lines and
// a last line without a line end.
func TestReadCSVForms(t *testing.T) {
	plain := fixture(t, "standard_export_eur.csv")
	want, _, err := readBytes([]byte(plain), "x.csv")
	if err != nil {
		t.Fatal(err)
	}
	crlf := "\ufeff" + strings.ReplaceAll(strings.TrimSuffix(plain, "\n"), "\n", "\r\n")
	got, _, err := readBytes([]byte(crlf), "x.csv")
	if err != nil || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Read(CRLF, BOM, no final line end) = %d lines, %v; want the %d of the plain file", len(got), err, len(want))
	}
	multi := strings.Replace(plain, ",Goodwill credit,", ",\"Goodwill\ncredit\",", 1)
	multi = strings.Replace(multi, "\n", "\n\n", 1) // a blank line after the header
	got, _, err = readBytes([]byte(multi), "x.csv")
	if err != nil || len(got) != len(want) {
		t.Fatalf("Read(quoted line break) = %d lines, %v", len(got), err)
	}
	if last := got[len(got)-1]; !strings.Contains(last, `description="Goodwill\ncredit"`) || !strings.HasPrefix(last, "line=12 ") {
		t.Errorf("quoted line break: got %s; want the break kept and the line numbered from the file", last)
	}
}

// TestReadJSONForms checks rows spread over lines, several rows on a line, blank lines and CRLF.
func TestReadJSONForms(t *testing.T) {
	plain := fixture(t, "detailed_export.jsonl")
	want, _, err := readBytes([]byte(plain), "x.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	strip := func(lines []string) string {
		var b strings.Builder
		for _, l := range lines {
			_, rest, _ := strings.Cut(l, " ")
			b.WriteString(rest + "\n")
		}
		return b.String()
	}
	rows := strings.Split(strings.TrimSpace(plain), "\n")
	forms := map[string]string{
		"CRLF and blank lines":  "\r\n" + strings.Join(rows, "\r\n\r\n") + "\r\n",
		"two rows on a line":    strings.Join(rows, " "),
		"pretty-printed rows":   strings.ReplaceAll(plain, `,"`, ",\n  \""),
		"a JSON array":          "[" + strings.Join(rows, ",\n") + "]\n",
		"a byte order mark too": "\ufeff" + plain,
	}
	for name, in := range forms {
		got, _, err := readBytes([]byte(in), "x.json")
		if err != nil || strip(got) != strip(want) {
			t.Errorf("Read(%s) = %d lines, %v; want the %d of the plain file", name, len(got), err, len(want))
		}
	}
}

// TestUnknownNames checks that names outside the schema are reported once and not read.
func TestUnknownNames(t *testing.T) {
	rows := strings.SplitAfter(fixture(t, "detailed_export.jsonl"), "\n")
	in := strings.Replace(rows[0], `{"billing_account_id"`, `{"x_team":"a","sku":{"x_tier":1},"billing_account_id"`, 1)
	in += strings.Replace(rows[1], `{"billing_account_id"`, `{"x_team":"b","billing_account_id"`, 1)
	_, st, err := readBytes([]byte(in), "x.jsonl")
	if err != nil || !slices.Equal(st.Unknown, []string{"sku.x_tier", "x_team"}) {
		t.Errorf("Read = %v, Unknown %q; want [sku.x_tier x_team]", err, st.Unknown)
	}
}
