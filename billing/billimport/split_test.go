package billimport

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/focusgen"
)

// openAt opens the file at path for the test's duration.
func openAt(t *testing.T, path string) *os.File {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// splitting makes files of at least min bytes read in parts (up to four) for the test's
// duration: the test files are small.
func splitting(t *testing.T, min int64) {
	t.Helper()
	old, procs := splitMin, runtime.GOMAXPROCS(4)
	splitMin = min
	t.Cleanup(func() { splitMin = old; runtime.GOMAXPROCS(procs) })
}

// readText reads the bill at path as an import does and returns its lines as text, in order,
// with the quantities to nine significant digits (parts sum them in another order), and its
// stats.
func readText(t *testing.T, path string) ([]string, Stats) {
	t.Helper()
	fr, err := (&Importer{}).readFile(Source{Path: path, Name: "bill.csv"}, Options{}, nil, nil)
	if err != nil {
		t.Fatalf("readFile(%s): %v", path, err)
	}
	var out []string
	for l := range fr.agg.Lines() {
		c := *l
		q := fmt.Sprintf("%.9g %.9g", c.ConsumedQuantity, c.PricingQuantity)
		c.ConsumedQuantity, c.PricingQuantity = 0, 0
		out = append(out, fmt.Sprintf("%+v %s", c, q))
	}
	return out, fr.st
}

// A bill read in parts side by side gives the lines, order and stats of one reader, however
// many parts and wherever they start.
func TestReadSplitSameLines(t *testing.T) {
	gen := new(bytes.Buffer)
	if _, err := (focusgen.Bill{Rows: 3000, Shape: focusgen.Aggregating}).WriteTo(gen); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, path string }{
		{"sample", focusSample},
		{"CUR sample", curSample},
		{"CUR sample many times", writeFile(t, "cur.csv", curCopies(t, 300))},
		{"generated", writeFile(t, "gen.csv", gen.Bytes())},
		{"lines that tie", writeFile(t, "ties.csv", tieRows(3000))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantSt := readText(t, tc.path)
			data := readFile(t, tc.path)
			for _, n := range []int{2, 3, 4} {
				f := openAt(t, tc.path)
				if _, spans, ok := splitCSV(f, int64(len(data)), n); !ok || len(spans) != n {
					t.Fatalf("splitCSV(%s, %d parts) = %d parts, %v", tc.path, n, len(spans), ok)
				}
				splitting(t, int64(len(data))/int64(n))
				got, st := readText(t, tc.path)
				if fmt.Sprint(st) != fmt.Sprint(wantSt) {
					t.Errorf("%d parts: stats\n%+v\nwant\n%+v", n, st, wantSt)
				}
				if len(got) != len(want) {
					t.Fatalf("%d parts: %d lines, want %d", n, len(got), len(want))
				}
				for i := range want {
					if got[i] != want[i] {
						t.Fatalf("%d parts: line %d is\n%s\nwant\n%s", n, i, got[i], want[i])
					}
				}
			}
		})
	}
}

// curCopies is the CUR sample's rows n times over, each copy's resources numbered apart (one
// in 37), so that lines both merge across parts and stay apart.
func curCopies(t *testing.T, n int) []byte {
	t.Helper()
	records, err := csv.NewReader(bytes.NewReader(readFile(t, curSample))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := slices.Index(records[0], "line_item_resource_id")
	if col < 0 {
		t.Fatalf("the CUR sample has no line_item_resource_id")
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write(records[0])
	for i := range n {
		for _, r := range records[1:] {
			r = slices.Clone(r)
			if r[col] != "" {
				r[col] += fmt.Sprint("-", i%37)
			}
			w.Write(r)
		}
	}
	w.Flush()
	return b.Bytes()
}

// tieRows is a FOCUS bill of rows of four resources, one SKU and three days, in seven tag
// sets that first appear far apart: lines whose order only the order they first appeared in
// decides.
func tieRows(rows int) []byte {
	data := focusRows(rows, -1, 0, "")
	lines := bytes.SplitAfter(data, []byte{'\n'})
	var b bytes.Buffer
	b.Write(lines[0])
	for i, l := range lines[1 : len(lines)-1] {
		l = bytes.Replace(l, fmt.Appendf(nil, ",i-%d,", i%40), fmt.Appendf(nil, ",i-%d,", i%4), 1)
		l = bytes.Replace(l, fmt.Appendf(nil, ",SKU-%d,", i%3), []byte(",SKU-0,"), 1)
		l = bytes.Replace(l, fmt.Appendf(nil, `""t%d""`, i%5), fmt.Appendf(nil, `""t%d""`, i*7/rows), 1)
		b.Write(l)
	}
	return b.Bytes()
}

// focusRows is a FOCUS bill of rows like the generator's; row middle's Tags, a JSON object,
// is written over lines lines when lines > 0, and its BilledCost is bad when bad is not empty.
func focusRows(rows, middle, lines int, bad string) []byte {
	var b bytes.Buffer
	b.WriteString("BilledCost,EffectiveCost,ListCost,ContractedCost,BillingAccountId,BillingAccountName,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,ChargeFrequency,ChargePeriodStart,ChargePeriodEnd,InvoiceIssuerName,PricingCategory,PricingQuantity,PricingUnit,ConsumedQuantity,ConsumedUnit,ProviderName,PublisherName,RegionId,ResourceId,ResourceType,ServiceCategory,ServiceName,SkuId,SubAccountId,Tags\n")
	for i := range rows {
		tags := fmt.Sprintf(`"{""team"":""t%d""}"`, i%5)
		if i == middle && lines > 0 {
			tags = `"{""team"":` + strings.Repeat("\n", lines) + `""t9""}"`
		}
		cost := fmt.Sprintf("%d.25", i)
		if i == middle && bad != "" {
			cost = bad
		}
		fmt.Fprintf(&b, "%s,%s,%s,%s,1111,ml,USD,2026-10-01 00:00:00,2026-11-01 00:00:00,Usage,,p5 hour,Usage-Based,2026-10-%02d 00:00:00,2026-10-%02d 00:00:00,AWS,Standard,1,Hours,1.5,Hours,AWS,AWS,us-east-1,i-%d,Instance,Compute,Amazon EC2,SKU-%d,2222,%s\n",
			cost, cost[:len(cost)-1], cost[:len(cost)-1], cost[:len(cost)-1], 1+i%9, 2+i%9, i%40, i%3, tags)
	}
	return b.Bytes()
}

// A quoted field whose line breaks hide where a part starts makes the part before it end in an
// open quote: the parts are dropped and one reader reads the file, with the lines it always
// gives.
func TestReadSplitQuoteSpansSplit(t *testing.T) {
	data := focusRows(400, 200, 3000, "")
	path := writeFile(t, "bill.csv", data)
	want, wantSt := readText(t, path)
	_, spans, ok := splitCSV(openAt(t, path), int64(len(data)), 2)
	field := bytes.Index(data, []byte(`"{""team"":`+"\n"))
	if !ok || len(spans) != 2 || spans[1].off <= int64(field) || spans[1].off > int64(field)+3000 {
		t.Fatalf("splitCSV: parts %v, want the second to start inside the quoted field at %d", spans, field)
	}
	if _, ok := readSplit(openAt(t, path), int64(len(data)), "bill.csv", formats["focus"], Options{}, &billing.Aggregator{}, 2, func() bool { return false }); ok {
		t.Errorf("readSplit across a quoted field's line breaks: ok, want the parts dropped")
	}
	splitting(t, int64(len(data))/2)
	got, st := readText(t, path)
	if fmt.Sprint(got) != fmt.Sprint(want) || fmt.Sprint(st) != fmt.Sprint(wantSt) {
		t.Errorf("read in parts across a quoted field's line breaks:\n%v\n%+v\nwant\n%v\n%+v", got, st, want, wantSt)
	}
}

// A bad value in a later part stops the import with the message one reader gives: its line and
// column in the whole file, and nothing stored.
func TestReadSplitErrorNamesLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines int
		bad   string
	}{
		{"a field too many", 0, "12,x"},
		{"bad amount after a multi-line field", 0, "1.2.3"},
		{"bad tags", 2, "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := focusRows(400, 300, tc.lines, tc.bad)
			if tc.name == "bad tags" {
				data = bytes.Replace(data, []byte(`""t9""}"`), []byte(`""t9""`+"\""), 1)
			}
			if tc.name == "bad amount after a multi-line field" {
				data = bytes.Replace(data, []byte(`"{""team"":""t0""}"`), []byte(`"{""team"":`+"\n\n"+`""t0""}"`), 1)
			}
			path := writeFile(t, "bill.csv", data)
			im := &Importer{Store: newStore(t)}
			_, want := im.Import(context.Background(), []Source{{Path: path, Name: "bill.csv"}}, Options{})
			if want == nil {
				t.Fatalf("Import of a bad value: no error")
			}
			splitting(t, int64(len(data))/4)
			res, err := im.Import(context.Background(), []Source{{Path: path, Name: "bill.csv"}}, Options{})
			if err == nil || err.Error() != want.Error() {
				t.Errorf("Import in parts = %v, want %v", err, want)
			}
			if imps, _ := im.Store.CostImports(context.Background()); len(imps) != 0 || res[0].Lines != 0 {
				t.Errorf("Import in parts of a bad bill stored %d imports, %d lines", len(imps), res[0].Lines)
			}
		})
	}
}

// A header is the file's first record, quoted or not; one the CSV scanner reads otherwise than
// the quotes pair up (a quote inside a field, which it takes as written) keeps the file whole.
func TestSplitCSVQuotedHeader(t *testing.T) {
	data := focusRows(400, 0, 0, "")
	for _, tc := range []struct {
		name, header string
		split        bool
	}{
		{"quoted", `"BilledCost",`, true},
		{"a quoted line break", "\"Billed\nCost\",", true},
		{"a quote inside a field", `Billed"Cost,`, false},
		{"an unclosed quote", `"BilledCost,`, false},
	} {
		bill := bytes.Replace(data, []byte("BilledCost,"), []byte(tc.header), 1)
		header, spans, ok := splitCSV(bytes.NewReader(bill), int64(len(bill)), 2)
		if ok != tc.split || ok && !bytes.HasPrefix(bill, header) || ok && spans[0].off != int64(len(header)) {
			t.Errorf("splitCSV with a header %s = %q, %v, %v; want split %v", tc.name, header, spans, ok, tc.split)
		}
		if ok && bytes.Count(header, []byte{'\n'}) != 1+strings.Count(tc.header, "\n") {
			t.Errorf("splitCSV with a header %s: header %q, want its first record", tc.name, header)
		}
	}
}
