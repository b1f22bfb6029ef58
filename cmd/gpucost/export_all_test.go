package main

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/sqlite"
)

// focusSources are the FOCUS files the round trip runs over: every file of the shared FOCUS
// datasets (globbed: the folder may gain files) and the FOCUS reader's own 1.1 and 1.2 samples.
func focusSources(t *testing.T) []string {
	shared, _ := filepath.Glob("../../../shared/datasets/focus/*.csv*")
	if len(shared) == 0 {
		t.Log("../../../shared/datasets/focus is absent: the checkout has no shared datasets beside it; testing the reader's samples only")
	}
	own, _ := filepath.Glob("../../billing/focus/testdata/*.csv")
	return append(shared, own...)
}

// TestExportAllFOCUSVerbatim imports each FOCUS file, exports it with export focus --all as CSV
// and as Parquet, and compares the export with the file column by column, row by row: the
// same columns (spec names as the spec spells them), the same rows in the same order (one
// import is written in its file's order) and the same text in every cell, nulls as nulls.
// Importing either export stores the same lines and totals as the file did.
func TestExportAllFOCUSVerbatim(t *testing.T) {
	for _, src := range focusSources(t) {
		// Named by folder and file: two files may share a name, and a "#01" suffix in the
		// folder t.TempDir makes does not serve as a SQLite path.
		t.Run(filepath.Base(filepath.Dir(src))+"_"+filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			mustRun(t, dir, "import", "billing", src)
			header, rows := readRows(t, src)
			for _, out := range []string{"export.csv", "export.parquet"} {
				path := filepath.Join(dir, out)
				mustRun(t, dir, "export", "focus", "--all", "--out", path)
				gotHeader, gotRows := readRows(t, path)
				if out == "export.parquet" { // a Parquet group's columns are sorted by name
					gotHeader, gotRows = inOrder(header, gotHeader, gotRows)
				}
				if !slices.Equal(gotHeader, header) {
					t.Fatalf("%s columns = %v, want the file's %v", out, gotHeader, header)
				}
				if len(gotRows) != len(rows) {
					t.Fatalf("%s has %d rows, the file %d", out, len(gotRows), len(rows))
				}
				for i := range rows {
					for j, col := range header {
						if got, want := gotRows[i][j], rows[i][j]; got != want {
							t.Fatalf("%s row %d column %s = %q, want %q", out, i+1, col, got, want)
						}
					}
				}
				sameStoredLines(t, dir, path)
			}
			// The Parquet export is a FOCUS Parquet bill: imported and exported again, it
			// gives back the file's rows.
			again := t.TempDir()
			mustRun(t, again, "import", "billing", filepath.Join(dir, "export.parquet"))
			path := filepath.Join(again, "again.csv")
			mustRun(t, again, "export", "focus", "--all", "--out", path)
			gotHeader, gotRows := readRows(t, path)
			gotHeader, gotRows = inOrder(header, gotHeader, gotRows)
			if !slices.Equal(gotHeader, header) || !slices.EqualFunc(gotRows, rows, slices.Equal) {
				t.Errorf("export of the Parquet export differs from the file: columns %v, %d rows", gotHeader, len(gotRows))
			}
		})
	}
}

// TestExportAllTypedParquet exports a FOCUS Parquet bill whose amounts are DECIMAL and times
// TIMESTAMP (as focus.Writer writes them): the export's rows import as the same lines.
func TestExportAllTypedParquet(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "typed.parquet")
	f, err := os.Create(bill)
	if err != nil {
		t.Fatal(err)
	}
	w, err := focus.NewWriter(f, focus.WriterOptions{Format: focus.Parquet, Extra: []string{"x_Team"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := focus.ReadFile("../../billing/focus/testdata/focus_1_2.csv", w.Write); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mustRun(t, dir, "import", "billing", "--keep-columns", "x_Team", bill)
	path := filepath.Join(dir, "export.csv")
	mustRun(t, dir, "export", "focus", "--all", "--out", path)
	header, rows := readRows(t, path)
	if !slices.Contains(header, "x_Team") || !slices.Contains(header, "InvoiceId") || len(rows) == 0 {
		t.Errorf("export of a typed Parquet bill: columns %v, %d rows; want the bill's, x_Team and InvoiceId among them", header, len(rows))
	}
	sameStoredLines(t, dir, path)
}

// TestExportAllOtherFormats imports the CUR 2.0, legacy CUR, GCP and Azure samples the readers'
// tests use, exports each with export focus --all, imports the export into a fresh store and
// checks that the stored lines and totals are those the sample gave.
func TestExportAllOtherFormats(t *testing.T) {
	var samples []string
	for _, g := range []string{"awscur/testdata/*.csv", "gcp/testdata/*.json*", "gcp/testdata/*.csv", "azure/testdata/*.csv"} {
		m, _ := filepath.Glob(filepath.Join("../../billing", g))
		samples = append(samples, m...)
	}
	if len(samples) < 10 {
		t.Fatalf("found %d samples under billing/*/testdata, want the 10 or more the readers test", len(samples))
	}
	for _, src := range samples {
		t.Run(filepath.Base(src), func(t *testing.T) {
			dir := t.TempDir()
			mustRun(t, dir, "import", "billing", src)
			path := filepath.Join(dir, "export.csv")
			mustRun(t, dir, "export", "focus", "--all", "--out", path)
			sameStoredLines(t, dir, path)
		})
	}
	// Bills of several formats in one store export as one file, under the union of their
	// columns. The five cover no (billing account, billing period) in common: one import
	// could not store two bills of one period.
	t.Run("mixed", func(t *testing.T) {
		dir := t.TempDir()
		mustRun(t, dir, "import", "billing", focusSample,
			"../../billing/awscur/testdata/cur2_net_eur.csv", "../../billing/awscur/testdata/legacy_cur.csv",
			"../../billing/gcp/testdata/bq_query.json", "../../billing/azure/testdata/ea_actual.csv")
		path := filepath.Join(dir, "export.csv")
		mustRun(t, dir, "export", "focus", "--all", "--out", path)
		sameStoredLines(t, dir, path)
	})
}

// TestExportAllPeriod checks that --since and --until choose rows by ChargePeriodStart, and that
// a one-hour row stays one hour.
func TestExportAllPeriod(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "import", "billing", "../../billing/focus/testdata/focus_sample.csv")
	path := filepath.Join(dir, "sept.csv")
	mustRun(t, dir, "export", "focus", "--all", "--since", "1d", "--until", "2024-09-19T00:00:00Z", "--out", path)
	header, rows := readRows(t, path)
	start, end := slices.Index(header, "ChargePeriodStart"), slices.Index(header, "ChargePeriodEnd")
	_, all := readRows(t, "../../billing/focus/testdata/focus_sample.csv")
	want := 0
	for _, r := range all {
		if r[start] >= "2024-09-18" && r[start] < "2024-09-19" {
			want++
		}
	}
	if len(rows) != want || want == 0 {
		t.Fatalf("export of 2024-09-18 has %d rows, want the sample's %d", len(rows), want)
	}
	for _, r := range rows {
		if !strings.HasPrefix(r[start], "2024-09-18") {
			t.Errorf("row charged from %s exported for 2024-09-18", r[start])
		}
		if r[start] == "2024-09-18 22:00:00" && r[end] != "2024-09-18 23:00:00" {
			t.Errorf("one-hour row from %s ends %s after export, want 2024-09-18 23:00:00", r[start], r[end])
		}
	}
}

// noGPUBill is a FOCUS bill of a queue and a load balancer: no GPU line.
const noGPUBill = `BilledCost,BillingAccountId,BillingCurrency,BillingPeriodStart,BillingPeriodEnd,ChargeCategory,ChargeClass,ChargeDescription,ChargePeriodStart,ChargePeriodEnd,ContractedCost,EffectiveCost,ListCost,PricingQuantity,PricingUnit,ProviderName,ServiceCategory,ServiceName,ResourceId
0.40,111,USD,2024-09-01T00:00:00Z,2024-10-01T00:00:00Z,Usage,,SQS requests,2024-09-18T22:00:00Z,2024-09-18T23:00:00Z,0.40,0.40,0.40,1,Requests,AWS,Integration,Amazon Simple Queue Service,arn:aws:sqs:us-west-2:111:q
0.80,111,USD,2024-09-01T00:00:00Z,2024-10-01T00:00:00Z,Usage,,LCU-Hours,2024-09-19T22:00:00Z,2024-09-19T23:00:00Z,0.80,0.80,0.80,1,LCU-Hours,AWS,Networking,Elastic Load Balancing,arn:aws:elb:us-west-2:111:lb
`

// TestExportNoGPULines checks what a GPU export of a bill without GPU lines says.
func TestExportNoGPULines(t *testing.T) {
	dir := t.TempDir()
	bill := filepath.Join(dir, "queue.csv")
	if err := os.WriteFile(bill, []byte(noGPUBill), 0o644); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dir, "import", "billing", bill)
	code, _, errOut := runCLI(t, dir, "export", "focus", "--since", "60d", "--until", "2024-10-01T00:00:00Z", "--out", filepath.Join(dir, "gpu.csv"))
	if code == exitOK || !strings.Contains(errOut, "no GPU lines charged from 2024-08-02 to 2024-09-30 (") ||
		!strings.Contains(errOut, "(2 bill lines are stored in the period); use --all to export every line") {
		t.Errorf("export focus of a bill without GPU lines: exit %d, %q; want no GPU lines, the lines stored and use --all", code, errOut)
	}
}

func mustRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(t, dir, args...)
	if code != exitOK {
		t.Fatalf("gpucost %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// readRows reads a FOCUS CSV or Parquet file's header and rows as text, nulls (empty, NULL) as "".
func readRows(t *testing.T, path string) ([]string, [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if strings.HasSuffix(path, ".parquet") {
		return readParquetRows(t, f)
	}
	rr, err := focus.NewRowReader(f, path)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for rr.Next() {
		row := make([]string, len(rr.Header()))
		for i, v := range rr.Values() {
			if s := string(v); !strings.EqualFold(s, "null") {
				row[i] = s
			}
		}
		rows = append(rows, row)
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rr.Header(), rows
}

func readParquetRows(t *testing.T, f *os.File) ([]string, [][]string) {
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	// The file's columns are sorted by name (a Parquet group's order); put them back in the
	// order the CSV export writes through the schema's leaf indexes.
	var header []string
	for _, fld := range pf.Schema().Fields() {
		header = append(header, fld.Name())
	}
	r := parquet.NewReader(pf)
	defer r.Close()
	var rows [][]string
	buf := make([]parquet.Row, 64)
	for {
		n, err := r.ReadRows(buf)
		for _, row := range buf[:n] {
			out := make([]string, len(header))
			for _, v := range row {
				if !v.IsNull() {
					out[v.Column()] = string(v.ByteArray())
				}
			}
			rows = append(rows, out)
		}
		if err != nil {
			break
		}
	}
	return header, rows
}

// inOrder returns the columns of header that got has, in header's order, with rows rearranged
// to match, then the columns header lacks.
func inOrder(header, got []string, rows [][]string) ([]string, [][]string) {
	order := slices.Clone(got)
	rank := func(c string) int {
		if i := slices.Index(header, c); i >= 0 {
			return i
		}
		return len(header)
	}
	slices.SortStableFunc(order, func(a, b string) int { return rank(a) - rank(b) })
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(order))
		for j, c := range order {
			out[i][j] = r[slices.Index(got, c)]
		}
	}
	return order, out
}

// sameStoredLines imports export into a fresh store and checks that it stores the lines and
// totals of the store in dir. The import keeps the extras (x_ columns) the stored lines have,
// with --keep-columns: a FOCUS import keeps only those asked for.
func sameStoredLines(t *testing.T, dir, export string) {
	t.Helper()
	fresh := t.TempDir()
	want, wantTotals := storedLines(t, dir)
	keep := map[string]bool{}
	for _, l := range want {
		for k := range l.Extra {
			keep[k] = true
		}
	}
	args := []string{"import", "billing", export}
	if len(keep) > 0 {
		args = append(args, "--keep-columns", strings.Join(slices.Sorted(maps.Keys(keep)), ","))
	}
	mustRun(t, fresh, args...)
	got, gotTotals := storedLines(t, fresh)
	if !reflect.DeepEqual(gotTotals, wantTotals) {
		t.Errorf("import of %s: totals %v, want %v", filepath.Base(export), gotTotals, wantTotals)
	}
	if len(got) != len(want) {
		t.Fatalf("import of %s: %d lines, want %d", filepath.Base(export), len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("import of %s: line %d\n got %+v\nwant %+v", filepath.Base(export), i, got[i], want[i])
		}
	}
}

// storedLines returns the lines and the imports' totals stored in dir's store, lines sorted.
func storedLines(t *testing.T, dir string) ([]gpucost.CostLine, []gpucost.CostTotal) {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(dir, "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var lines []gpucost.CostLine
	err = db.ScanCosts(ctx, gpucost.CostFilter{}, func(l *gpucost.CostLine) error {
		c := focus.Clone(l)
		c.Line = 0
		lines = append(lines, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	imps, err := db.CostImports(ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(lines, func(a, b gpucost.CostLine) int { return strings.Compare(lineKey(&a), lineKey(&b)) })
	return lines, billimport.ImportTotals(imps)
}

func lineKey(l *gpucost.CostLine) string {
	return strings.Join([]string{l.ChargePeriodStart.String(), l.ResourceID, l.SkuPriceID, l.SkuID, l.ChargeDescription, l.ChargeCategory, l.PricingCategory, l.BilledCost.String(), l.EffectiveCost.String()}, "|")
}

// TestExportAllWithoutSource checks what export focus --all says of an import whose file the
// store does not hold (imported before gpucost kept them), and that importing it again with
// --replace keeps it.
func TestExportAllWithoutSource(t *testing.T) {
	dir := t.TempDir()
	bill := "../../billing/focus/testdata/focus_1_1.csv"
	mustRun(t, dir, "import", "billing", bill)
	db, err := sqlite.Open(context.Background(), filepath.Join(dir, "gpucost.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.SQL().Exec(`DELETE FROM bill_sources`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	path := filepath.Join(dir, "all.csv")
	code, _, errOut := runCLI(t, dir, "export", "focus", "--all", "--out", path)
	if code == exitOK || !strings.Contains(errOut, "import it again with --replace") {
		t.Errorf("export focus --all of an import without its file: exit %d, %q; want it named, with the fix", code, errOut)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("export focus --all that failed left %s: %v", path, err)
	}
	mustRun(t, dir, "import", "billing", "--replace", bill)
	mustRun(t, dir, "export", "focus", "--all", "--out", path)
	if _, rows := readRows(t, path); len(rows) == 0 {
		t.Error("export focus --all after the import again wrote no rows")
	}
}
