package focus

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// readAll reads a file's lines into a slice.
func readAll(t *testing.T, path string) ([]gpucost.CostLine, Stats) {
	t.Helper()
	var lines []gpucost.CostLine
	st, err := ReadFile(path, func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	})
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", path, err)
	}
	return lines, st
}

// writeLines writes lines in the format with the given extra columns and returns the file.
func writeLines(t testing.TB, lines []gpucost.CostLine, f Format, extra []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, WriterOptions{Format: f, Extra: extra})
	if err != nil {
		t.Fatal(err)
	}
	for i := range lines {
		if err := w.Write(&lines[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// writeSample writes the sample in format f, with its Id column.
func writeSample(t testing.TB, f Format) []byte {
	var lines []gpucost.CostLine
	if _, err := ReadFile(sample, func(l *gpucost.CostLine) error {
		lines = append(lines, Clone(l))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return writeLines(t, lines, f, []string{"Id"})
}

// TestRoundTrip reads the sample and the fixtures, writes them as CSV, gzip and Parquet, reads
// them again and gets the same lines and the same totals to the nano-unit.
func TestRoundTrip(t *testing.T) {
	for _, src := range []string{sample, "testdata/focus_1_1.csv", "testdata/focus_1_2.csv"} {
		orig, st := readAll(t, src)
		for _, f := range []Format{CSV, CSVGzip, Parquet} {
			data := writeLines(t, orig, f, st.Kept)
			var got []gpucost.CostLine
			var st2 Stats
			var err error
			emit := func(l *gpucost.CostLine) error { got = append(got, Clone(l)); return nil }
			if f == Parquet {
				st2, err = ReadParquet(bytes.NewReader(data), int64(len(data)), "out.parquet", emit)
			} else {
				st2, err = Read(bytes.NewReader(data), "out.csv", emit)
			}
			if err != nil {
				t.Fatalf("%s as %v: read back: %v", src, f, err)
			}
			if len(got) != len(orig) {
				t.Fatalf("%s as %v: read back %d lines, want %d", src, f, len(got), len(orig))
			}
			for i := range orig {
				want := orig[i]
				if f == Parquet {
					want.Line = i + 1 // rows, not lines
				}
				if !reflect.DeepEqual(got[i], want) {
					t.Errorf("%s as %v: line %d\n got  %+v\n want %+v", src, f, i, got[i], want)
					break
				}
			}
			if !reflect.DeepEqual(st2.Totals, st.Totals) || st2.Version != V1_2 || st2.VersionColumns[0] != "InvoiceId" {
				t.Errorf("%s as %v: totals %v version %s, want %v and 1.2", src, f, st2.Totals, st2.Version, st.Totals)
			}
		}
	}
}

func TestWriterColumns(t *testing.T) {
	line := gpucost.CostLine{
		Provider: "AWS", BillingPeriodStart: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		ChargePeriodStart: time.Date(2025, 1, 31, 23, 0, 0, 0, time.UTC), ChargePeriodEnd: time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC),
		ChargeCategory: "Usage", PricingCategory: "Dynamic",
		BilledCost: gpucost.USD(12_500_000_001), EffectiveCost: gpucost.USD(-3),
		Tags:  gpucost.Labels{"team": "ml", "a": "b"},
		Extra: map[string]string{"x_Team": "ml", "x_Job": "train,\"big\""},
	}
	data := string(writeLines(t, []gpucost.CostLine{line}, CSV, []string{"x_Team", "x_Job", "x_Project"}))
	head, body, _ := strings.Cut(data, "\n")
	for _, want := range []string{"BillingAccountName", "BillingPeriodEnd", "InvoiceId", "InvoiceIssuerName", "PublisherName", "ServiceSubcategory"} {
		if strings.Contains(head, want) != (want != "ServiceSubcategory") {
			t.Errorf("header %q: has %s = %v", head, want, !strings.Contains(head, want))
		}
	}
	if !strings.HasSuffix(head, ",x_Team,x_Job,x_Project") || strings.Count(head, ",") != 41 {
		t.Errorf("header = %q, want 39 FOCUS columns then x_Team,x_Job,x_Project", head)
	}
	for _, want := range []string{"12.500000001,", ",-0.000000003,", "2025-02-01T00:00:00Z", `"{""a"":""b"",""team"":""ml""}"`, `,ml,"train,""big""",` + "\n"} {
		if !strings.Contains(body, want) {
			t.Errorf("row %q lacks %q", body, want)
		}
	}
	for _, bad := range [][]string{{"BilledCost"}, {"x_A", "x_A"}, {""}} {
		if _, err := NewWriter(&bytes.Buffer{}, WriterOptions{Extra: bad}); gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("NewWriter(extra %q) error %v, want invalid", bad, err)
		}
	}
	mixed := line
	mixed.ListCost = gpucost.Money{Nanos: 1, Currency: "EUR"}
	w, _ := NewWriter(&bytes.Buffer{}, WriterOptions{})
	if err := w.Write(&mixed); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("Write(USD line with EUR list cost) error %v, want invalid", err)
	}
}

func TestFormatOf(t *testing.T) {
	for path, want := range map[string]Format{"a.csv": CSV, "a.CSV.GZ": CSVGzip, "x/a.parquet": Parquet, "a": CSV} {
		if got := FormatOf(path); got != want {
			t.Errorf("FormatOf(%q) = %v, want %v", path, got, want)
		}
	}
}
