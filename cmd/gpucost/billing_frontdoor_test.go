package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/server"
	"github.com/gpucost/gpucost/sqlite"
)

// storedImport returns the one import in the SQLite store at db.
func storedImport(t *testing.T, db string) gpucost.CostImport {
	t.Helper()
	store, err := sqlite.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	imps, err := store.CostImports(context.Background())
	if err != nil || len(imps) != 1 {
		t.Fatalf("%s holds imports %+v, %v; want one", db, imps, err)
	}
	return imps[0]
}

// gpucost import billing, POST /api/v1/bills and the demo import a bill through one importer
// (billimport.Importer): the same file stores the same import — checksum, identity key,
// format, version, rows, lines and totals — whichever way it came in.
func TestBillFrontDoorIsShared(t *testing.T) {
	needSample(t)
	ctx := context.Background()
	bill := filepath.Join(t.TempDir(), "bill.focus.csv")
	copyFile(t, focusSample, bill)

	cliDB := filepath.Join(t.TempDir(), "gpucost.db")
	if code, _, errOut := runCLIDB(t, cliDB, "import", "billing", bill); code != exitOK {
		t.Fatalf("import billing: exit %d, %s", code, errOut)
	}

	uploadDB := filepath.Join(t.TempDir(), "gpucost.db")
	store, err := sqlite.Open(ctx, uploadDB)
	if err != nil {
		t.Fatal(err)
	}
	secret, _ := gpucost.NewTokenSecret()
	if _, err := store.CreateToken(ctx, gpucost.Token{Name: "ci", Role: gpucost.RoleIngest}, gpucost.HashTokenSecret(secret)); err != nil {
		t.Fatal(err)
	}
	e := liveEnv(uploadDB, &lockedBuffer{}, func(string) string { return "" })
	srv := &httpapi.Server{Tokens: store, Bills: &server.Bills{Store: store, Now: e.now}, TempDir: t.TempDir()}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	data, err := os.ReadFile(bill)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", ts.URL+"/api/v1/bills?name=bill.focus.csv", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	store.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /api/v1/bills = %d %s", resp.StatusCode, body)
	}

	demoDB := filepath.Join(t.TempDir(), "gpucost.db")
	demoStore, err := sqlite.Open(ctx, demoDB)
	if err != nil {
		t.Fatal(err)
	}
	res, err := liveEnv(demoDB, &lockedBuffer{}, func(string) string { return "" }).importDemoBill(ctx, demoStore, bill)
	demoStore.Close()
	if err != nil || len(res) != 1 || res[0].Status != "imported" {
		t.Fatalf("importDemoBill = %+v, %v", res, err)
	}

	want := storedImport(t, cliDB)
	if want.Identity == "" || want.Checksum == "" || want.Rows != 1000 {
		t.Fatalf("import billing stored %+v; want 1,000 rows with a checksum and an identity", want)
	}
	same := func(a, b gpucost.CostImport) bool {
		return a.Checksum == b.Checksum && a.Identity == b.Identity && a.Format == b.Format && a.Version == b.Version &&
			a.Rows == b.Rows && a.Lines == b.Lines && a.Grain == b.Grain && equalCostTotals(a.Totals, b.Totals)
	}
	for way, db := range map[string]string{"POST /api/v1/bills": uploadDB, "the demo": demoDB} {
		if got := storedImport(t, db); !same(got, want) {
			t.Errorf("%s stored %+v; want what import billing stored, %+v", way, got, want)
		}
	}
	if res[0].Identity != want.Identity || res[0].Checksum != want.Checksum {
		t.Errorf("the demo's result = %+v; want identity %s, checksum %s", res[0], want.Identity, want.Checksum)
	}
}

func equalCostTotals(a, b []gpucost.CostTotal) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Currency != b[i].Currency || a[i].BilledCost.Nanos != b[i].BilledCost.Nanos || a[i].EffectiveCost.Nanos != b[i].EffectiveCost.Nanos {
			return false
		}
	}
	return true
}

// gpucost import billing of a Data Exports manifest imports the data file it names, found in
// the copy of the export's folder; a folder import passes the manifest over.
func TestImportBillingManifest(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "cur2", "data", "BILLING_PERIOD=2025-06", "cur2-00001.csv")
	manifest := filepath.Join(root, "cur2", "metadata", "BILLING_PERIOD=2025-06", "cur2-Manifest.json")
	for _, d := range []string{filepath.Dir(data), filepath.Dir(manifest)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(t, "../../billing/awscur/testdata/cur2_sample.csv", data)
	body := `{"exportName":"cur2","dataFiles":["s3://bills/exports/cur2/data/BILLING_PERIOD=2025-06/cur2-00001.csv"]}`
	if err := os.WriteFile(manifest, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	files, code, errOut := importJSON(t, t.TempDir(), manifest)
	if code != exitOK || len(files) != 1 || files[0].File != data || files[0].Rows == 0 || files[0].Status != "imported" {
		t.Fatalf("import billing %s: exit %d, %+v, %s; want %s imported", manifest, code, files, errOut, data)
	}
	files, code, errOut = importJSON(t, t.TempDir(), filepath.Join(root, "cur2"))
	if code != exitOK || len(files) != 2 || files[0].File != data || files[0].Status != "imported" || files[1].File != manifest ||
		!strings.HasPrefix(files[1].Status, "skipped: an export's manifest") {
		t.Errorf("import billing of the export folder: exit %d, %+v, %s; want the data file imported and the manifest listed as skipped", code, files, errOut)
	}
}
