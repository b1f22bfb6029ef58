package azure

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// readBytes reads b with opt and returns the rendered lines.
func readBytes(opt Options, b []byte, name string) ([]string, Stats, error) {
	return billtest.Lines(func(emit func(*gpucost.CostLine) error) (Stats, error) {
		return opt.Read(bytes.NewReader(b), name, emit)
	})
}

// sample returns the header and the first row of the EA actual fixture.
func sample(t testing.TB) (header, row string) {
	b := string(mustRead(t, "testdata/ea_actual.csv"))
	lines := strings.SplitN(b, "\n", 3)
	return lines[0], lines[1]
}

func TestReadGzip(t *testing.T) {
	plain := mustRead(t, "testdata/mca_actual_eur.csv")
	want, _, err := readBytes(Options{}, plain, "mca.csv")
	if err != nil {
		t.Fatal(err)
	}
	got, st, err := readBytes(Options{}, billtest.Gzip(t, plain), "mca.csv.gz")
	if err != nil || st.Format != "csv.gz" || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("Read(gzip) = %d lines, %+v, %v; want the %d lines of the plain file", len(got), st, err, len(want))
	}
}

// TestReadBadInput checks that each kind of bad input stops with an EInvalid error naming the
// place, the value and what to do.
func TestReadBadInput(t *testing.T) {
	header, row := sample(t)
	replace := func(old, new string) []byte {
		if !strings.Contains(row, old) {
			t.Fatalf("the sample row has no %q", old)
		}
		return []byte(header + "\n" + strings.Replace(row, old, new, 1) + "\n")
	}
	drop := func(names ...string) []byte {
		var keep []string
		for _, c := range strings.Split(header, ",") {
			if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+c+" ") {
				keep = append(keep, c)
			}
		}
		return []byte(strings.Join(keep, ",") + "\n")
	}
	truncated := billtest.Gzip(t, mustRead(t, "testdata/ea_actual.csv"))
	truncated = truncated[:len(truncated)/2]
	tests := []struct {
		name  string
		opt   Options
		input []byte
		want  []string // substrings of the message
	}{
		{"bad cost", Options{}, replace(",83.76,CC-4100", ",83.7x6,CC-4100"),
			[]string{"ea.csv:2: column 18 (CostInBillingCurrency)", "CostInBillingCurrency", `"83.7x6"`, "decimal amount", "export the file again"}},
		{"empty cost", Options{}, replace(",83.76,CC-4100", ",,CC-4100"), []string{"ea.csv:2: column 18 (CostInBillingCurrency)", "CostInBillingCurrency", `""`}},
		{"bad date", Options{}, replace(",09/14/2024,", ",09/31/2024,"), []string{"ea.csv:2: column 8 (Date)", "Date", `"09/31/2024"`, "MM/DD/YYYY"}},
		{"day first", Options{}, replace(",09/14/2024,", ",14/09/2024,"), []string{"ea.csv:2: column 8 (Date)", `"14/09/2024"`}},
		{"bad billing period", Options{}, replace(",09/01/2024,09/30/2024,", ",2024-9-1,09/30/2024,"), []string{"ea.csv:2: column 43 (BillingPeriodStartDate)", "BillingPeriodStartDate", `"2024-9-1"`}},
		{"bad quantity", Options{}, replace(",24,3.49,", ",twenty,3.49,"), []string{"ea.csv:2: column 16 (Quantity)", "Quantity", `"twenty"`, "a number"}},
		{"bad unit price", Options{}, replace(",gpu-a100-01,,,3.49,", ",gpu-a100-01,,,3.4.9,"), []string{"ea.csv:2", "UnitPrice", `"3.4.9"`, "decimal price"}},
		{"bad tags", Options{}, replace(`"""team"": ""ml-research""`, `"""team"": ml-research`), []string{"ea.csv:2: column 22 (Tags)", "Tags", "JSON object"}},
		{"nested tag value", Options{}, replace(`"""team"": ""ml-research""`, `"""team"": {""a"": ""b""}`), []string{"ea.csv:2: column 22 (Tags)", "Tags"}},
		{"empty currency", Options{}, replace(",USD,", ",,"), []string{"ea.csv:2: column 42 (BillingCurrencyCode)", "BillingCurrencyCode", "currency code"}},
		{"missing columns listed together", Options{}, drop("CostInBillingCurrency", "Date", "BillingCurrencyCode"),
			[]string{"EA cost details file lacks required column(s) CostInBillingCurrency, Date, BillingCurrencyCode;"}},
		{"not Azure", Options{}, []byte("BilledCost,EffectiveCost\n1,1\n"), []string{"not an Azure cost details file", "BilledCost"}},
		{"empty file", Options{}, nil, []string{"empty"}},
		{"short row", Options{}, []byte(header + "\na,b,c\n"), []string{"ea.csv:2", "3 fields", "57"}},
		{"unterminated quote", Options{}, []byte(header + "\n" + row[:300] + `,"abc` + "\n"), []string{"closing quote"}},
		{"text after a quoted field", Options{}, []byte(header + "\n\"a\"b," + row + "\n"), []string{"ea.csv:2: column 1 (InvoiceSectionName)", "quoted field followed by more text"}},
		{"truncated gzip", Options{}, truncated, []string{"truncated"}},
		{"damaged gzip header", Options{}, []byte{0x1f, 0x8b, 0, 0}, []string{"gzip"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _, err := readBytes(tt.opt, tt.input, "ea.csv")
			if err == nil {
				t.Fatalf("Read = %d lines, nil error; want an error", len(lines))
			}
			billtest.Invalid(t, err, tt.want...)
		})
	}
}

// TestReadCurrencyOption checks a file without a currency column: an error naming the column,
// or the caller's currency.
func TestReadCurrencyOption(t *testing.T) {
	header, row := sample(t)
	cols := strings.Split(header, ",")
	i := strings.Index(header, ",BillingCurrencyCode,")
	noCur := header[:i] + header[i+len(",BillingCurrencyCode"):] + "\n" + dropCell(t, row, len(strings.Split(header[:i], ","))) + "\n"
	if _, _, err := readBytes(Options{}, []byte(noCur), "ea.csv"); err == nil || !strings.Contains(err.Error(), "BillingCurrencyCode") {
		t.Errorf("Read(no currency column) = %v, want an error naming the currency column", err)
	}
	lines, st, err := readBytes(Options{Currency: "USD"}, []byte(noCur), "ea.csv")
	if err != nil || len(lines) != 1 || st.Totals["USD"].BilledCost.Decimal() != "83.76" {
		t.Errorf("Options{Currency: USD}.Read = %d lines, %+v, %v (header had %d columns)", len(lines), st, err, len(cols))
	}
}

// dropCell removes the i-th cell of a CSV row whose first i cells hold no quoted commas.
func dropCell(t testing.TB, row string, i int) string {
	cells := strings.SplitN(row, ",", i+2)
	if len(cells) < i+2 {
		t.Fatalf("row has fewer than %d cells", i+2)
	}
	return strings.Join(cells[:i], ",") + "," + cells[i+1]
}

// TestReadStopsAtFirstBadValue checks that lines before a bad value are emitted and none after.
func TestReadStopsAtFirstBadValue(t *testing.T) {
	plain := string(mustRead(t, "testdata/ea_actual.csv"))
	bad := strings.Replace(plain, ",1250.00,-1250.00,", ",1250.00,-12S0.00,", 1) // line 16
	lines, st, err := readBytes(Options{}, []byte(bad), "ea.csv")
	if err == nil || !strings.Contains(err.Error(), "ea.csv:16: column 18 (CostInBillingCurrency)") {
		t.Fatalf("Read error = %v, want one at ea.csv:16 column 18", err)
	}
	if len(lines) != 14 || st.Rows != 14 {
		t.Errorf("Read emitted %d lines (Stats.Rows %d) before the bad one, want 14", len(lines), st.Rows)
	}
}

func TestReadEmitError(t *testing.T) {
	stop := errors.New("stop here")
	n := 0
	_, err := ReadFile("testdata/ea_actual.csv", func(*gpucost.CostLine) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 || !strings.Contains(err.Error(), "ea_actual.csv:4") {
		t.Errorf("Read = %v after %d lines, want emit's error at line 4 after 3", err, n)
	}
}

func TestReadHeaderOnly(t *testing.T) {
	header, _ := sample(t)
	lines, st, err := readBytes(Options{}, []byte(header+"\n"), "ea.csv")
	if err != nil || len(lines) != 0 || st.Rows != 0 || st.Schema != SchemaEA {
		t.Errorf("Read(header only) = %d lines, %+v, %v; want none, no error", len(lines), st, err)
	}
}

// TestReadCSVForms checks CRLF line ends, a BOM, quoted line breaks, blank lines, a last line
// without a line end and header casing and spacing.
func TestReadCSVForms(t *testing.T) {
	plain := string(mustRead(t, "testdata/ea_actual.csv"))
	want, _, err := readBytes(Options{}, []byte(plain), "ea.csv")
	if err != nil {
		t.Fatal(err)
	}
	header, rest, _ := strings.Cut(plain, "\n")
	lower := strings.ToLower(header)
	spaced := strings.ReplaceAll(strings.ReplaceAll(header, "Date", "Date "), "MeterCategory", "Meter Category")
	for name, text := range map[string]string{
		"CRLF, BOM, no final line end": "\ufeff" + strings.ReplaceAll(strings.TrimSuffix(plain, "\n"), "\n", "\r\n"),
		"lower-case header":            lower + "\n" + rest,
		"spaced header":                spaced + "\n" + rest,
		"blank lines":                  header + "\n\n" + strings.ReplaceAll(rest, "\n", "\n\n"),
	} {
		got, _, err := readBytes(Options{}, []byte(text), "ea.csv")
		if err != nil || len(got) != len(want) {
			t.Fatalf("Read(%s) = %d lines, %v; want %d", name, len(got), err, len(want))
		}
		if name == "blank lines" {
			continue // line numbers shift
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s line %d = %s\nwant %s", name, i, got[i], want[i])
			}
		}
	}
	multi := strings.Replace(plain, ",Rounding Adjustment,", ",\"Rounding\nAdjustment\",", 1)
	got, _, err := readBytes(Options{}, []byte(multi), "ea.csv")
	if err != nil || !strings.Contains(got[15], `description="Rounding\nAdjustment"`) || !strings.Contains(got[16], "line=19") {
		t.Errorf("quoted line break: %v; got %s / %s", err, got[15], got[16])
	}
}
