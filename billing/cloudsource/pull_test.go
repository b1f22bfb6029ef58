package cloudsource_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/s3"
	"github.com/gpucost/gpucost/s3/s3test"
	"github.com/gpucost/gpucost/sqlite"
)

// curRows returns the header and data rows of the bundled CUR 2.0 sample: 21 rows of payer
// 111122223333's June 2025.
func curRows(t *testing.T) (string, []string) {
	t.Helper()
	data, err := os.ReadFile("../awscur/testdata/cur2_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	return lines[0], lines[1:]
}

// gz returns the gzip of the CSV of header and rows, as Data Exports writes .csv.gz.
func gz(t *testing.T, header string, rows []string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(header + "\n" + strings.Join(rows, "\n") + "\n"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// bucket is a Data Exports bucket on versitygw: the test writes deliveries into it.
type bucket struct {
	t     *testing.T
	store *s3.Store
	name  string
}

func (b bucket) put(key string, data []byte) {
	b.t.Helper()
	if err := b.store.Put(context.Background(), key, bytes.NewReader(data), int64(len(data))); err != nil {
		b.t.Fatalf("put %s: %v", key, err)
	}
}

// execution writes one execution of export's period whose parts hold the rows of each slice,
// and, when current, the period's manifest naming its files, as Data Exports does.
func (b bucket) execution(export, period, id string, current bool, header string, parts ...[]string) {
	b.t.Helper()
	var files []string
	for i, rows := range parts {
		key := "exports/" + export + "/data/BILLING_PERIOD=" + period + "/" + id + "/" + export + "-0000" + string(rune('1'+i)) + ".csv.gz"
		b.put(key, gz(b.t, header, rows))
		files = append(files, "s3://"+b.name+"/"+key)
	}
	if !current {
		return
	}
	m, _ := json.Marshal(map[string]any{"executionId": id, "dataFiles": files,
		"exportArn": "arn:aws:bcm-data-exports:us-east-1:111122223333:export/" + export})
	b.put("exports/"+export+"/metadata/BILLING_PERIOD="+period+"/"+export+"-Manifest.json", m)
}

// TestPullDataExports pulls a prefix on versitygw holding two Data Exports and a BigQuery
// export's file three times: the current executions only, then nothing new, then a newer
// execution and a rewritten file that replace the stored ones.
func TestPullDataExports(t *testing.T) {
	ctx := context.Background()
	endpoint, name := s3test.StartVersity(t)
	b := bucket{t: t, store: s3test.Open(t, endpoint, name, ""), name: name}
	header, rows := curRows(t)
	focus, err := os.ReadFile("../focus/testdata/focus_sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	// An old execution left in the data folder, and the current one, in two parts, with 15 rows.
	b.execution("cur2", "2025-06", "exec-old", false, header, rows[:3])
	b.execution("cur2", "2025-06", "exec-a", true, header, rows[:8], rows[8:15])
	focusLines := strings.SplitN(strings.TrimRight(string(focus), "\n"), "\n", 2)
	b.execution("focus", "2024-09", "exec-f", true, focusLines[0], strings.Split(focusLines[1], "\n"))

	// A BigQuery export's file in a folder of its own, first without its last row.
	gcp, err := os.ReadFile("../gcp/testdata/detailed_export.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	gcpRows := strings.Split(strings.TrimRight(string(gcp), "\n"), "\n")
	b.put("exports/gcp/billing-000000000000.jsonl", []byte(strings.Join(gcpRows[:len(gcpRows)-1], "\n")+"\n"))

	db, err := sqlite.Open(ctx, t.TempDir()+"/gpucost.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey, "AWS_SECRET_ACCESS_KEY": s3test.SecretKey}
	src, err := cloudsource.Open(ctx, "s3://"+name+"/exports/", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	p := &cloudsource.Puller{Importer: &billimport.Importer{Store: db}, Dir: t.TempDir()}

	rep, err := p.Pull(ctx, src)
	if err != nil || rep.Deliveries != 3 || rep.Imported != 3 || rep.Replaced+rep.Unchanged+rep.Refused != 0 {
		t.Fatalf("first Pull = %+v, %v; want 3 deliveries imported", counts(rep), err)
	}
	cur := curImport(t, db)
	if cur.Rows != 15 || len(cur.Files) != 2 || !strings.Contains(cur.Files[0].Name, "/exec-a/") {
		t.Errorf("first Pull stored CUR import %q of %d rows from %v; want exec-a's 2 parts, 15 rows", cur.Name, cur.Rows, cur.Files)
	}

	// The same deliveries again: nothing downloaded, nothing stored; a new puller (a CLI run)
	// downloads them and skips them by checksum.
	for _, puller := range []*cloudsource.Puller{p, {Importer: &billimport.Importer{Store: db}, Dir: t.TempDir()}} {
		rep, err = puller.Pull(ctx, src)
		if err != nil || rep.Unchanged != 3 || rep.Imported+rep.Replaced+rep.Refused != 0 {
			t.Errorf("Pull again = %+v, %v; want 3 unchanged", counts(rep), err)
		}
	}
	if n := len(imports(t, db)); n != 3 {
		t.Errorf("after pulling again the store holds %d imports, want 3", n)
	}

	// Data Exports restates the period: a newer execution with every row; the BigQuery export
	// is written again, whole.
	b.execution("cur2", "2025-06", "exec-b", true, header, rows[:10], rows[10:])
	b.put("exports/gcp/billing-000000000000.jsonl", gcp)
	rep, err = p.Pull(ctx, src)
	if err != nil || rep.Replaced != 2 || rep.Unchanged != 1 || rep.Imported+rep.Refused != 0 {
		t.Fatalf("Pull after a restatement = %+v, %v; want 2 replaced, 1 unchanged", counts(rep), err)
	}
	restated := curImport(t, db)
	if restated.Rows != len(rows) || restated.ID == cur.ID || !strings.Contains(restated.Files[0].Name, "/exec-b/") {
		t.Errorf("restated CUR import %d (%q) has %d rows from %v; want a new import of exec-b's %d rows", restated.ID, restated.Name, restated.Rows, restated.Files, len(rows))
	}
	if n := len(imports(t, db)); n != 3 {
		t.Errorf("after the restatement the store holds %d imports, want 3", n)
	}
	for _, imp := range imports(t, db) {
		if strings.Contains(imp.Name, "/gcp/") && imp.Rows != len(gcpRows) {
			t.Errorf("restated GCP import %q has %d rows, want %d", imp.Name, imp.Rows, len(gcpRows))
		}
	}
	if a := billimport.Replacements(rep.Results); len(a) != 2 {
		t.Errorf("Replacements(restatement) = %v, want two audit entries", a)
	}
}

// counts is the report without its files, for messages.
func counts(r cloudsource.Report) string {
	return strings.Join([]string{"deliveries=" + itoa(r.Deliveries), "imported=" + itoa(r.Imported), "replaced=" + itoa(r.Replaced),
		"unchanged=" + itoa(r.Unchanged), "refused=" + itoa(r.Refused), "files=" + statuses(r.Results)}, " ")
}

func itoa(n int) string { return strconv.Itoa(n) }

func statuses(rs []billimport.Result) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.File+": "+r.Status)
	}
	return "[" + strings.Join(s, "; ") + "]"
}

func imports(t *testing.T, db *sqlite.DB) []gpucost.CostImport {
	t.Helper()
	imps, err := db.CostImports(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return imps
}

// curImport returns the stored import of the CUR export.
func curImport(t *testing.T, db *sqlite.DB) gpucost.CostImport {
	t.Helper()
	for _, imp := range imports(t, db) {
		if strings.Contains(imp.Name, "/cur2/") {
			return imp
		}
	}
	t.Fatal("no import of the cur2 export stored")
	return gpucost.CostImport{}
}

// TestPullRefusals refuses, each alone, a delivery whose file is over the size limit and one
// whose manifest names a file not yet delivered, and imports the rest.
func TestPullRefusals(t *testing.T) {
	ctx := context.Background()
	endpoint, name := s3test.StartFake(t)
	b := bucket{t: t, store: s3test.Open(t, endpoint, name, ""), name: name}
	header, rows := curRows(t)
	b.execution("cur2", "2025-06", "exec-a", true, header, rows)
	b.put("exports/big/focus.csv", bytes.Repeat([]byte("x"), 5000))
	b.put("exports/late/metadata/BILLING_PERIOD=2025-07/late-Manifest.json",
		[]byte(`{"dataFiles":["s3://`+name+`/exports/late/data/BILLING_PERIOD=2025-07/late-00001.csv.gz"]}`))
	db, err := sqlite.Open(ctx, t.TempDir()+"/gpucost.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := map[string]string{"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": s3test.AccessKey, "AWS_SECRET_ACCESS_KEY": s3test.SecretKey}
	src, err := cloudsource.Open(ctx, "s3://"+name+"/exports/", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	p := &cloudsource.Puller{Importer: &billimport.Importer{Store: db}, Dir: t.TempDir(), MaxFile: 4096}
	rep, err := p.Pull(ctx, src)
	if rep.Imported != 1 || rep.Refused != 2 || err == nil {
		t.Fatalf("Pull = %s, %v; want cur2 imported, 2 deliveries refused", counts(rep), err)
	}
	for _, want := range []string{"over the 4096 bytes", "late-00001.csv.gz, which is not in the bucket listing"} {
		if !strings.Contains(statuses(rep.Results), want) {
			t.Errorf("Pull's results %s do not say %q", statuses(rep.Results), want)
		}
	}
}
