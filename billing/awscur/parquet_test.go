package awscur

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"iter"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
)

// pqKind is how a test Parquet file stores a column.
type pqKind int

const (
	pqString    pqKind = iota // optional BYTE_ARRAY STRING
	pqDouble                  // optional DOUBLE, as CUR 2.0 stores costs
	pqTimestamp               // optional INT64 TIMESTAMP(MILLIS), as CUR 2.0 stores times
	pqMapKind                 // optional MAP<STRING,STRING>
	pqDecimal                 // optional INT64 DECIMAL(18,9)
	pqInt96                   // optional INT96 timestamp
	pqMicros                  // optional INT64 TIMESTAMP(MICROS)
)

// curTypes gives the CUR 2.0 Parquet type of each fixture column: DOUBLE for costs and amounts,
// TIMESTAMP for dates, MAP for product, tags and cost categories (the Athena DDL of a CUR 2.0
// export), STRING for the rest.
func curTypes(name string) pqKind {
	switch {
	case name == "product" || name == "resource_tags" || name == "cost_category" || name == "tags":
		return pqMapKind
	case strings.HasSuffix(name, "_date") && !strings.HasSuffix(name, "_to_date"):
		return pqTimestamp
	case strings.HasSuffix(name, "_cost") || strings.HasSuffix(name, "_amount") || strings.HasSuffix(name, "_fee") ||
		strings.HasSuffix(name, "_billing_period") || strings.HasSuffix(name, "_commitment") ||
		strings.HasSuffix(name, "_to_date") || name == "line_item_blended_cost":
		return pqDouble
	}
	return pqString
}

// pqOptions say how a test Parquet file is written.
type pqOptions struct {
	groupRows int64 // rows per row group
	dict      bool  // dictionary-encode strings, as Spark and Arrow writers do
	snappy    bool  // compress pages with Snappy
	mapKeys   bool  // dictionary-encode map keys, not their values: entries mix both kinds
	opts      []parquet.WriterOption
}

// writeParquet writes rows (cells as in a CSV) as a Parquet file with the given column kinds.
func writeParquet(t testing.TB, w io.Writer, names []string, kinds []pqKind, rows [][]string, groupRows int64) {
	t.Helper()
	writeParquetRows(t, w, names, kinds, slices.Values(rows), pqOptions{groupRows: groupRows})
}

// writeParquetRows writes the rows of a sequence as a Parquet file.
func writeParquetRows(t testing.TB, w io.Writer, names []string, kinds []pqKind, rows iter.Seq[[]string], o pqOptions) {
	t.Helper()
	str := func() parquet.Node {
		if o.dict {
			return parquet.Encoded(parquet.String(), &parquet.RLEDictionary)
		}
		return parquet.String()
	}
	group := parquet.Group{}
	for i, n := range names {
		var node parquet.Node
		switch kinds[i] {
		case pqString:
			node = str()
		case pqDouble:
			node = parquet.Leaf(parquet.DoubleType)
		case pqTimestamp:
			node = parquet.Timestamp(parquet.Millisecond)
		case pqMicros:
			node = parquet.Timestamp(parquet.Microsecond)
		case pqMapKind:
			node = parquet.Map(str(), str())
			if o.mapKeys {
				node = parquet.Map(parquet.Encoded(parquet.String(), &parquet.RLEDictionary), parquet.String())
			}
		case pqDecimal:
			node = parquet.Decimal(9, 18, parquet.Int64Type)
		case pqInt96:
			node = parquet.Leaf(parquet.Int96Type)
		}
		group[n] = parquet.Optional(node)
	}
	schema := parquet.NewSchema("cur", group)
	col := map[string]int{}
	for i, n := range names {
		col[n] = i
	}
	opts := []parquet.WriterOption{schema, parquet.MaxRowsPerRowGroup(o.groupRows), parquet.PageBufferSize(4096)}
	if o.snappy {
		opts = append(opts, parquet.Compression(&parquet.Snappy), parquet.PageBufferSize(1<<20))
	}
	pw := parquet.NewWriter(w, append(opts, o.opts...)...)
	paths := schema.Columns()
	batch := make([]parquet.Row, 0, 128)
	for rec := range rows {
		var row parquet.Row
		for ci, path := range paths {
			leaf, _ := schema.Lookup(path...)
			i := col[path[0]]
			row = appendCell(t, row, kinds[i], path, rec[i], leaf.MaxDefinitionLevel, ci)
		}
		if batch = append(batch, row); len(batch) == cap(batch) {
			if _, err := pw.WriteRows(batch); err != nil {
				t.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	if _, err := pw.WriteRows(batch); err != nil {
		t.Fatal(err)
	}
	if err := pw.Close(); err != nil {
		t.Fatal(err)
	}
}

// appendCell appends the values of one cell for one leaf column.
func appendCell(t testing.TB, row parquet.Row, k pqKind, path []string, cell string, maxDef, ci int) parquet.Row {
	if cell == "" {
		return append(row, parquet.NullValue().Level(0, 0, ci))
	}
	var v parquet.Value
	switch k {
	case pqString:
		v = parquet.ByteArrayValue([]byte(cell))
	case pqDouble:
		f, err := strconv.ParseFloat(cell, 64)
		if err != nil {
			t.Fatal(err)
		}
		v = parquet.DoubleValue(f)
	case pqDecimal:
		m, err := gpucost.ParseMoney(cell, "")
		if err != nil {
			t.Fatal(err)
		}
		v = parquet.Int64Value(m.Nanos)
	case pqTimestamp, pqMicros, pqInt96:
		tm, err := time.Parse(time.RFC3339, cell)
		if err != nil {
			t.Fatal(err)
		}
		switch k {
		case pqTimestamp:
			v = parquet.Int64Value(tm.UnixMilli())
		case pqMicros:
			v = parquet.Int64Value(tm.UnixMicro())
		default:
			days := tm.Unix()/86400 + 2440588
			nanos := tm.UnixNano() % (86400 * 1e9)
			v = parquet.Int96Value(deprecated.Int96{uint32(nanos), uint32(nanos >> 32), uint32(days)})
		}
	case pqMapKind:
		entries := mapCells(t, cell)
		if len(entries) == 0 {
			return append(row, parquet.NullValue().Level(0, 1, ci))
		}
		for j, kv := range entries {
			s := kv[0]
			if path[len(path)-1] == "value" {
				s = kv[1]
			}
			row = append(row, parquet.ByteArrayValue([]byte(s)).Level(min(j, 1), maxDef, ci))
		}
		return row
	}
	return append(row, v.Level(0, maxDef, ci))
}

var mapCellCache = map[string][][2]string{}

// mapCells parses a JSON map cell into entries sorted by key.
func mapCells(t testing.TB, cell string) [][2]string {
	if e, ok := mapCellCache[cell]; ok {
		return e
	}
	var m map[string]string
	if err := json.Unmarshal([]byte(cell), &m); err != nil {
		t.Fatal(err)
	}
	var e [][2]string
	for k, v := range m {
		e = append(e, [2]string{k, v})
	}
	slices.SortFunc(e, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	mapCellCache[cell] = e
	return e
}

// fixtureParquet converts a CSV fixture to Parquet with the column kinds kindOf gives.
func fixtureParquet(t testing.TB, csvPath string, kindOf func(string) pqKind, groupRows int64) []byte {
	t.Helper()
	names, rows := csvRows(t, csvPath)
	kinds := make([]pqKind, len(names))
	for i, n := range names {
		kinds[i] = kindOf(n)
	}
	var buf bytes.Buffer
	writeParquet(t, &buf, names, kinds, rows, groupRows)
	return buf.Bytes()
}

// readParquetBytes reads a Parquet file and returns its rendered lines without line numbers.
func readParquetBytes(b []byte) ([]string, Stats, error) {
	var out []string
	st, err := ReadParquet(bytes.NewReader(b), int64(len(b)), "cur.parquet", func(c *gpucost.CostLine) error {
		out = append(out, stripLine(billtest.Line(c)))
		return nil
	})
	return out, st, err
}

func stripLine(s string) string {
	_, rest, _ := strings.Cut(s, " ")
	return rest
}

// TestParquetMatchesCSV writes each CSV fixture as a CUR 2.0 Parquet file and checks that it reads
// to the same lines and the same exact totals, across row groups and pages.
func TestParquetMatchesCSV(t *testing.T) {
	for _, name := range fixtures {
		for _, groupRows := range []int64{1000, 4} {
			t.Run(name+"/"+strconv.FormatInt(groupRows, 10), func(t *testing.T) {
				path := filepath.Join("testdata", name)
				lines, want := readAll(t, path)
				got, st, err := readParquetBytes(fixtureParquet(t, path, curTypes, groupRows))
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(lines) {
					t.Fatalf("ReadParquet = %d lines, want %d", len(got), len(lines))
				}
				for i := range lines {
					if w := stripLine(billtest.Line(&lines[i])); got[i] != w {
						t.Errorf("row %d:\n got %s\nwant %s", i+1, got[i], w)
					}
				}
				if st.Format != "parquet" || st.Rows != want.Rows || !slices.Equal(st.Currencies(), want.Currencies()) {
					t.Errorf("Stats = %+v, want %+v", st, want)
				}
				for cur, w := range want.Totals {
					if st.Totals[cur] != w {
						t.Errorf("Totals[%s] = %+v, want %+v", cur, st.Totals[cur], w)
					}
				}
			})
		}
	}
}

// TestParquetTypes reads amounts stored as DECIMAL and text and times as INT96, TIMESTAMP(MICROS)
// and text, which other writers of CUR Parquet use.
func TestParquetTypes(t *testing.T) {
	path := "testdata/cur2_sample.csv"
	lines, _ := readAll(t, path)
	kinds := map[string]func(string) pqKind{
		"decimal amounts, INT96 times": func(n string) pqKind {
			switch k := curTypes(n); k {
			case pqDouble:
				if n == "line_item_usage_amount" {
					return k
				}
				return pqDecimal
			case pqTimestamp:
				return pqInt96
			default:
				return k
			}
		},
		"text amounts and times": func(n string) pqKind {
			if k := curTypes(n); k == pqMapKind {
				return k
			}
			return pqString
		},
		"micros": func(n string) pqKind {
			if k := curTypes(n); k != pqTimestamp {
				return k
			}
			return pqMicros
		},
	}
	for name, kindOf := range kinds {
		t.Run(name, func(t *testing.T) {
			got, _, err := readParquetBytes(fixtureParquet(t, path, kindOf, 1000))
			if err != nil {
				t.Fatal(err)
			}
			for i := range lines {
				if w := stripLine(billtest.Line(&lines[i])); got[i] != w {
					t.Errorf("row %d:\n got %s\nwant %s", i+1, got[i], w)
				}
			}
		})
	}
}

// TestParquetBadInput checks truncated and damaged files, wrong column types and missing columns.
func TestParquetBadInput(t *testing.T) {
	good := fixtureParquet(t, "testdata/cur2_sample.csv", curTypes, 1000)
	damaged := slices.Clone(good)
	for i := 4; i < len(damaged)/2; i += 7 {
		damaged[i] ^= 0x5a
	}
	boolCost := func() []byte {
		var buf bytes.Buffer
		schema := parquet.NewSchema("cur", parquet.Group{
			"line_item_line_item_type":   parquet.String(),
			"line_item_usage_start_date": parquet.Timestamp(parquet.Millisecond),
			"line_item_usage_end_date":   parquet.Timestamp(parquet.Millisecond),
			"line_item_currency_code":    parquet.String(),
			"line_item_unblended_cost":   parquet.Leaf(parquet.BooleanType),
		})
		w := parquet.NewWriter(&buf, schema)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}()
	tests := []struct {
		name  string
		input []byte
		want  []string
	}{
		{"truncated footer", good[:len(good)-10], []string{"cur.parquet", "truncated"}},
		{"truncated data", append(slices.Clone(good[:len(good)/3]), good[len(good)-8:]...), []string{"cur.parquet"}},
		{"damaged pages", damaged, []string{"cur.parquet"}},
		{"boolean cost", boolCost, []string{"line_item_unblended_cost", "BOOLEAN", "decimal amount"}},
		{"not Parquet", []byte("line_item_unblended_cost\n1\n"), []string{"not a readable Parquet file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := readParquetBytes(tt.input)
			if err == nil {
				t.Fatal("ReadParquet = nil error, want one")
			}
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Errorf("error code = %q (%v), want %q", gpucost.ErrorCode(err), err, gpucost.EInvalid)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error = %q, want it to mention %q", err, w)
				}
			}
		})
	}
}

// TestParquetMissingColumns checks that one error lists every missing required column.
func TestParquetMissingColumns(t *testing.T) {
	var buf bytes.Buffer
	writeParquet(t, &buf, []string{"line_item_line_item_type", "line_item_usage_start_date", "resource_tags"},
		[]pqKind{pqString, pqTimestamp, pqMapKind}, [][]string{{"Usage", "2025-06-01T00:00:00Z", `{"user_team":"a"}`}}, 10)
	_, _, err := readParquetBytes(buf.Bytes())
	for _, w := range []string{"CUR 2.0", "line_item_usage_end_date", "line_item_unblended_cost", "line_item_currency_code"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("ReadParquet error = %v, want it to name %q", err, w)
		}
	}
}

// TestReadFileChooses checks that ReadFile tells Parquet, gzip and plain CSV apart by content.
func TestReadFileChooses(t *testing.T) {
	dir := t.TempDir()
	plain := sampleCSV(t)
	files := map[string][]byte{
		"a.data":  fixtureParquet(t, "testdata/cur2_sample.csv", curTypes, 1000),
		"b.data":  billtest.Gzip(t, plain),
		"c.data":  plain,
		"d.empty": nil,
	}
	want := map[string]string{"a.data": "parquet", "b.data": "csv.gz", "c.data": "csv"}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		st, err := ReadFile(p, func(*gpucost.CostLine) error { n++; return nil })
		if w, ok := want[name]; ok {
			if err != nil || st.Format != w || n != 21 {
				t.Errorf("ReadFile(%s) = %s, %d lines, %v; want %s, 21 lines", name, st.Format, n, err, w)
			}
		} else if err == nil {
			t.Errorf("ReadFile(%s) = nil error, want one for an empty file", name)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.csv"), func(*gpucost.CostLine) error { return nil }); err == nil {
		t.Error("ReadFile(missing) = nil error")
	}
}

// TestParquetCorruption reads damaged copies of a CUR Parquet file: each must fail with an
// EInvalid error or read, never panic, hang or exhaust memory (parquet-go sizes buffers by
// declared lengths and panics on some damaged pages; see pqcheck.go and readParquet).
func TestParquetCorruption(t *testing.T) {
	seed := fixtureParquet(t, "testdata/cur2_net_eur.csv", curTypes, 4)
	r := rand.New(rand.NewPCG(7, 8))
	failed := 0
	for range 1500 {
		b := slices.Clone(seed)
		for range 1 + r.IntN(4) {
			switch i := r.IntN(len(b) - 8); r.IntN(3) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1:
				b[i] ^= 1 << r.IntN(8)
			default:
				copy(b[i:], []byte{0xff, 0xff, 0xff, 0x7f})
			}
		}
		_, _, err := readParquetBytes(b)
		if err != nil {
			failed++
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("error code %q for %v", gpucost.ErrorCode(err), err)
			}
		}
	}
	if failed == 0 {
		t.Error("no damaged copy failed; the damage does not reach the file")
	}
}

// TestParquetMatchesCSVGenerated reads a few thousand generated rows as CSV and as a Parquet file
// written the way AWS writes one (dictionary-encoded strings, Snappy, several row groups and many
// batches and pages), and checks that both give the same lines and totals.
func TestParquetMatchesCSVGenerated(t *testing.T) {
	const rows = 3000
	for _, cols := range [][]string{columnsLean(), columnsFull()} {
		compareGenerated(t, cols, rows, pqOptions{groupRows: 1100, dict: true, snappy: true})
	}
	// Map keys from a dictionary and values from plain pages: a tag's key word is a dictionary
	// entry, its value's the address of an interned string.
	compareGenerated(t, columnsLean(), rows, pqOptions{groupRows: 1100, mapKeys: true})
}

// compareGenerated reads rows generated with cols as CSV and as Parquet written with o, and checks
// that both give the same lines and totals.
func compareGenerated(t *testing.T, cols []string, rows int, o pqOptions) {
	t.Helper()
	csvData, err := io.ReadAll(newCURGen(cols, rows, 700))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	wantSt, err := Read(bytes.NewReader(csvData), "gen.csv", func(c *gpucost.CostLine) error {
		want = append(want, stripLine(billtest.Line(c)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var pq bytes.Buffer
	var header []string
	kinds := make([]pqKind, len(cols))
	for i, c := range cols {
		kinds[i] = curTypes(c)
	}
	writeParquetRows(t, &pq, cols, kinds, csvRecords(bytes.NewReader(csvData), &header), o)
	got, st, err := readParquetBytes(pq.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("ReadParquet = %d lines, CSV %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%d columns, row %d:\n got %s\nwant %s", len(cols), i+1, got[i], want[i])
		}
	}
	if st.Totals["USD"] != wantSt.Totals["USD"] || st.Rows != rows {
		t.Errorf("Parquet totals %+v, CSV %+v", st.Totals, wantSt.Totals)
	}
}

// TestParquetHugeDeclaredSizes writes a huge length into each place of the footer and the page
// headers in turn: every read must fail or succeed without allocating by the declared length
// (parquet-go would ask for gigabytes; see pqcheck.go).
func TestParquetHugeDeclaredSizes(t *testing.T) {
	good := fixtureParquet(t, "testdata/cur2_net_eur.csv", curTypes, 1000)
	var before, after runtime.MemStats
	footer := len(good) - 8 - int(binary.LittleEndian.Uint32(good[len(good)-8:]))
	for i := 4; i+4 < len(good)-8; i++ {
		if i < footer && i%29 != 0 || i >= footer && i%3 != 0 {
			continue // sampled: the footer's thrift fields are a few bytes apart
		}
		b := slices.Clone(good)
		copy(b[i:], []byte{0xff, 0xff, 0xff, 0x7f})
		runtime.ReadMemStats(&before)
		_, _, err := readParquetBytes(b)
		runtime.ReadMemStats(&after)
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
			t.Fatalf("huge length at byte %d: the read allocated %d MB (err %v)", i, grew>>20, err)
		}
		if err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Fatalf("huge length at byte %d: error code %q: %v", i, gpucost.ErrorCode(err), err)
		}
	}
}
