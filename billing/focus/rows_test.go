package focus

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
)

const rowsCSV = `billedcost,BillingAccountId,BillingCurrency,BillingPeriodStart,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodStart,ChargePeriodEnd,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,ListUnitPrice,x_InstanceType,x_Team
1.5,111,USD,2024-09-01T00:00:00Z,Usage,NULL,"GPU, hour",2024-09-18T22:00:00Z,2024-09-18T23:00:00Z,1.5,1.25,2,1,Hours,AWS,Compute,EC2,2.000000000001,p5.48xlarge,research
`

// TestRowReader reads a gzip-compressed file's rows as written, spec names spelled as the spec
// does, and its ChargePeriodStart and costs.
func TestRowReader(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(rowsCSV))
	zw.Close()
	rr, err := NewRowReader(&gz, "rows.csv.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Close()
	if h := rr.Header(); h[0] != "BilledCost" || h[len(h)-1] != "x_Team" {
		t.Errorf("Header() = %v, want BilledCost first (spelled as the spec does) and x_Team last", h)
	}
	if !rr.Next() {
		t.Fatalf("Next() = false, %v", rr.Err())
	}
	var got []string
	for _, v := range rr.Values() {
		got = append(got, string(v))
	}
	if !slices.Contains(got, "GPU, hour") || !slices.Contains(got, "NULL") || !slices.Contains(got, "2.000000000001") {
		t.Errorf("Values() = %q, want the text as written", got)
	}
	start, err := rr.ChargePeriodStart()
	if err != nil || start.Hour() != 22 {
		t.Errorf("ChargePeriodStart() = %v, %v; want 22:00", start, err)
	}
	billed, effective, err := rr.Costs()
	if err != nil || billed != (gpucost.Money{Nanos: 1_500_000_000, Currency: "USD"}) || effective.Nanos != 1_250_000_000 {
		t.Errorf("Costs() = %v, %v, %v; want USD 1.5 and 1.25", billed, effective, err)
	}
	if rr.Next() || rr.Err() != nil {
		t.Errorf("Next() past the last row = true or %v", rr.Err())
	}
}

// TestRowWriterRoundTrip writes rows as CSV and as Parquet and reads them back with Read: the
// amounts, the null ChargeClass and x_InstanceType (into InstanceType) come back.
func TestRowWriterRoundTrip(t *testing.T) {
	for _, format := range []Format{CSV, Parquet} {
		rr, err := NewRowReader(strings.NewReader(rowsCSV), "rows.csv")
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		w, err := NewRowWriter(&buf, format, rr.Header())
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
			if err := w.Write(rr.Values()); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var lines []gpucost.CostLine
		emit := func(l *gpucost.CostLine) error { lines = append(lines, Clone(l)); return nil }
		if format == Parquet {
			_, err = ReadParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "rows.parquet", emit)
		} else {
			_, err = Read(&buf, "rows.csv", emit)
		}
		if err != nil || len(lines) != 1 {
			t.Fatalf("format %d: read back %d lines, %v", format, len(lines), err)
		}
		l := lines[0]
		if l.BilledCost.Nanos != 1_500_000_000 || l.ChargeClass != "" || l.InstanceType != "p5.48xlarge" || l.Extra["x_Team"] != "research" || l.ChargeDescription != "GPU, hour" {
			t.Errorf("format %d: read back %+v; want 1.5, no ChargeClass, InstanceType p5.48xlarge, x_Team research", format, l)
		}
	}
}

// TestParquetRowsAsText reads AWS-shaped Parquet rows (DOUBLE amounts, millisecond timestamps,
// Tags as a MAP, optional columns, many row groups and small pages) as text, writes them as
// CSV and reads that: the lines are those ReadParquet reads from the Parquet file.
func TestParquetRowsAsText(t *testing.T) {
	rows, want := awsRows(300)
	data := writeParquet(t, rows, parquet.PageBufferSize(512), parquet.MaxRowsPerRowGroup(37))
	rr, err := NewParquetRowReader(bytes.NewReader(data), int64(len(data)), "aws.parquet")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewRowWriter(&buf, CSV, rr.Header())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for rr.Next() {
		if err := w.Write(rr.Values()); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := rr.Err(); err != nil || n != len(rows) {
		t.Fatalf("read %d rows, %v; want %d", n, err, len(rows))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []gpucost.CostLine
	if _, err := Read(&buf, "aws.csv", func(l *gpucost.CostLine) error { got = append(got, Clone(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Line = i + 2 // the CSV file's line, after the header
	}
	compareLines(t, "Parquet rows as CSV", got, want)
}

// TestParquetRowsNested refuses a Parquet file with a nested column other than a MAP.
func TestParquetRowsNested(t *testing.T) {
	type nested struct {
		BilledCost float64  `parquet:"BilledCost"`
		List       []string `parquet:"x_List,list"`
	}
	data := writeParquet(t, []nested{{1, []string{"a"}}})
	if _, err := NewParquetRowReader(bytes.NewReader(data), int64(len(data)), "nested.parquet"); !errors.Is(err, ErrNotRows) {
		t.Errorf("NewParquetRowReader(a LIST column) = %v, want ErrNotRows", err)
	}
}

// FuzzRowReader reads arbitrary CSV row by row. It must never panic; for a file Read accepts,
// it gives as many rows, the same ChargePeriodStart and costs, and writing the rows and
// reading them with Read gives the same totals.
func FuzzRowReader(f *testing.F) {
	f.Add([]byte(sampleHead(f, 5)))
	f.Add([]byte(rowsCSV))
	f.Add([]byte(goodHead + goodRow))
	f.Fuzz(func(t *testing.T, data []byte) {
		var lines []gpucost.CostLine
		st, readErr := Read(bytes.NewReader(data), "fuzz.csv", func(l *gpucost.CostLine) error { lines = append(lines, Clone(l)); return nil })
		rr, err := NewRowReader(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			if readErr == nil {
				t.Fatalf("NewRowReader = %v for a file Read accepts", err)
			}
			return
		}
		var buf bytes.Buffer
		w, err := NewRowWriter(&buf, CSV, rr.Header())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rr.Next() {
			start, serr := rr.ChargePeriodStart()
			billed, effective, cerr := rr.Costs()
			if readErr == nil {
				if n >= len(lines) {
					t.Fatalf("row %d: more rows than Read's %d", n+1, len(lines))
				}
				l := lines[n]
				if serr != nil || cerr != nil || !start.Equal(l.ChargePeriodStart) || billed != l.BilledCost || effective != l.EffectiveCost {
					t.Fatalf("row %d: %v %v %v %v %v; Read has %v %v %v", n+1, start, billed, effective, serr, cerr, l.ChargePeriodStart, l.BilledCost, l.EffectiveCost)
				}
			}
			if err := w.Write(rr.Values()); err != nil {
				t.Fatal(err)
			}
			n++
		}
		if readErr != nil {
			return
		}
		if rr.Err() != nil || n != len(lines) {
			t.Fatalf("NewRowReader read %d rows, %v; Read %d", n, rr.Err(), len(lines))
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		again, err := Read(&buf, "again.csv", func(*gpucost.CostLine) error { return nil })
		if err != nil || !reflect.DeepEqual(again.Totals, st.Totals) {
			t.Fatalf("the rows written read as totals %v, %v; the file's %v", again.Totals, err, st.Totals)
		}
	})
}
