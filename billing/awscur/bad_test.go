package awscur

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// sampleCSV returns the CUR 2.0 sample fixture.
func sampleCSV(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/cur2_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// readBytes reads b with Read and returns the rendered lines.
func readBytes(b []byte, name string) ([]string, Stats, error) {
	return billtest.Lines(func(emit func(*gpucost.CostLine) error) (Stats, error) { return Read(bytes.NewReader(b), name, emit) })
}

func TestReadGzip(t *testing.T) {
	plain := sampleCSV(t)
	want, _, err := readBytes(plain, "cur.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := readBytes(billtest.Gzip(t, plain), "cur.csv.gz")
	if err != nil || st.Format != "csv.gz" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Read(gzip) = %d lines, %+v, %v; want the %d lines of the plain file", len(got), st, err, len(want))
	}
	// AWS may write multi-member gzip files; the members read as one stream.
	i := bytes.IndexByte(plain[200:], '\n') + 201
	multi := append(billtest.Gzip(t, plain[:i]), billtest.Gzip(t, plain[i:])...)
	if got, _, err = readBytes(multi, "multi.csv.gz"); err != nil || len(got) != len(want) {
		t.Errorf("Read(multi-member gzip) = %d lines, %v; want %d", len(got), err, len(want))
	}
}

// TestReadBadInput checks that each kind of bad input stops with an EInvalid error naming the
// place, the value and what to do.
func TestReadBadInput(t *testing.T) {
	plain := sampleCSV(t)
	header, body, _ := bytes.Cut(plain, []byte("\n"))
	row2 := string(plain[len(header)+1:][:bytes.IndexByte(body, '\n')])
	replaceInRow := func(old, new string) []byte {
		return []byte(string(header) + "\n" + strings.Replace(row2, old, new, 1) + "\n")
	}
	dropColumns := func(names ...string) []byte {
		cols := strings.Split(string(header), ",")
		var keep []string
		for _, c := range cols {
			if !strings.Contains(strings.Join(names, " "), c) {
				keep = append(keep, c)
			}
		}
		return []byte(strings.Join(keep, ",") + "\n")
	}
	truncated := billtest.Gzip(t, plain)
	truncated = truncated[:len(truncated)/2]
	tests := []struct {
		name  string
		input []byte
		want  []string // substrings of the message
	}{
		{"bad decimal", replaceInRow(",32.7726,32.7726,444455556666", ",32.77x26,32.7726,444455556666"),
			[]string{"cur.csv:2: column 18 (line_item_unblended_cost)", "line_item_unblended_cost", `"32.77x26"`, "decimal amount", "re-export"}},
		{"bad date", replaceInRow("2025-06-03T14:00:00Z,USE1", "2025-06-31T14:00:00Z,USE1"),
			[]string{"cur.csv:2: column 24 (line_item_usage_start_date)", "line_item_usage_start_date", `"2025-06-31T14:00:00Z"`, "timestamp"}},
		{"bad tag map", replaceInRow(`"{""user_team"":""ml-research""`, `"{""user_team"":ml-research""`),
			[]string{"cur.csv:2: column 42 (resource_tags)", "resource_tags", "JSON object"}},
		{"bad usage amount", replaceInRow(",1.0,2025", ",one,2025"),
			[]string{"cur.csv:2: column 22 (line_item_usage_amount)", "line_item_usage_amount", `"one"`}},
		{"missing columns listed together", dropColumns("line_item_unblended_cost", "line_item_currency_code", "line_item_usage_end_date"),
			[]string{"CUR 2.0", "line_item_usage_end_date", "line_item_unblended_cost", "line_item_currency_code"}},
		{"not a CUR", []byte("BilledCost,EffectiveCost\n1,1\n"), []string{"not an AWS Cost and Usage Report", "BilledCost"}},
		{"empty file", nil, []string{"empty"}},
		{"short row", []byte(string(header) + "\na,b,c\n"), []string{"cur.csv:2", "3 fields", "47"}},
		{"unterminated quote", []byte(string(header) + "\n" + row2[:200] + `,"abc` + "\n"), []string{"closing quote"}},
		{"text after a quoted field", []byte(string(header) + "\n\"a\"b," + row2 + "\n"), []string{"cur.csv:2: column 1 (identity_line_item_id)", "quoted field followed by more text"}},
		{"quote not doubled", []byte(string(header) + "\n" + strings.Replace(row2, `""Team""`, `"Team""`, 1) + "\n"), []string{"cur.csv:2: column 8 (cost_category)", "quoted field followed by more text"}},
		{"quoted field then text", []byte(string(header) + "\n" + strings.Replace(row2, `Org,"{`, `Org,"x"y,"{`, 1) + "\n"), []string{"cur.csv:2: column 8 (cost_category)", "quoted field followed by more text"}},
		{"text after a closing quote", []byte(string(header) + "\n" + strings.Replace(row2, `,Acme AI Org,`, `,"Acme AI Org"x,`, 1) + "\n"), []string{"cur.csv:2: column 7 (bill_payer_account_name)", "quoted field followed by more text"}},
		{"truncated gzip", truncated, []string{"truncated"}},
		{"Parquet given to Read", []byte("PAR1\x00\x00"), []string{"Parquet"}},
		{"empty line item type", replaceInRow(",Usage,RunInstances", ",,RunInstances"), []string{"cur.csv:2: column 13 (line_item_line_item_type)", "line item type"}},
		{"empty currency", replaceInRow(",USD,", ",,"), []string{"cur.csv:2: column 11 (line_item_currency_code)", "currency"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _, err := readBytes(tt.input, "cur.csv")
			if err == nil {
				t.Fatalf("Read = %d lines, nil error; want an error", len(lines))
			}
			billtest.Invalid(t, err, tt.want...)
		})
	}
}

// TestReadStopsAtFirstBadValue checks that lines before a bad value are emitted and none after.
func TestReadStopsAtFirstBadValue(t *testing.T) {
	plain := string(sampleCSV(t))
	bad := strings.Replace(plain, ",-500.0,", ",-5OO.0,", 1) // line 15
	lines, st, err := readBytes([]byte(bad), "cur.csv")
	if err == nil || !strings.Contains(err.Error(), "cur.csv:15: column 18 (line_item_unblended_cost)") {
		t.Fatalf("Read error = %v, want one at cur.csv:15 column 18", err)
	}
	if len(lines) != 13 || st.Rows != 13 {
		t.Errorf("Read emitted %d lines (Stats.Rows %d) before the bad one, want 13", len(lines), st.Rows)
	}
}

func TestReadEmitError(t *testing.T) {
	stop := errors.New("stop here")
	n := 0
	_, err := Read(bytes.NewReader(sampleCSV(t)), "cur.csv", func(*gpucost.CostLine) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 || !strings.Contains(err.Error(), "cur.csv:4") {
		t.Errorf("Read = %v after %d lines, want emit's error at line 4 after 3", err, n)
	}
}

func TestReadHeaderOnly(t *testing.T) {
	header, _, _ := bytes.Cut(sampleCSV(t), []byte("\n"))
	lines, st, err := readBytes(append(header, '\n'), "cur.csv")
	if err != nil || len(lines) != 0 || st.Rows != 0 || st.Version != DialectCUR2 {
		t.Errorf("Read(header only) = %d lines, %+v, %v; want none, no error", len(lines), st, err)
	}
}

// TestReadCSVForms checks CRLF line ends, a BOM, quoted line breaks, blank lines and a last line
// without a line end.
func TestReadCSVForms(t *testing.T) {
	plain := string(sampleCSV(t))
	want, _, err := readBytes([]byte(plain), "cur.csv")
	if err != nil {
		t.Fatal(err)
	}
	crlf := "\ufeff" + strings.ReplaceAll(strings.TrimSuffix(plain, "\n"), "\n", "\r\n")
	got, _, err := readBytes([]byte(crlf), "cur.csv")
	if err != nil || len(got) != len(want) {
		t.Fatalf("Read(CRLF, BOM, no final line end) = %d lines, %v; want %d", len(got), err, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("CRLF line %d = %s\nwant %s", i, got[i], want[i])
		}
	}
	multi := strings.Replace(plain, "Enterprise Program Discount, 10% off", "Enterprise Program\nDiscount, 10% off", 1)
	multi = strings.Replace(multi, "\n", "\n\n", 1) // a blank line after the header
	got, _, err = readBytes([]byte(multi), "cur.csv")
	if err != nil || len(got) != len(want) {
		t.Fatalf("Read(quoted line break) = %d lines, %v", len(got), err)
	}
	if !strings.Contains(got[15], `description="Enterprise Program\nDiscount, 10% off"`) || !strings.Contains(got[16], "line=20") {
		t.Errorf("quoted line break: got %s / %s; want the break kept and later lines numbered from the file", got[15], got[16])
	}
}
