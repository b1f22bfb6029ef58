package cloudsource_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/gpucost/gpucost/azblob/azblobtest"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/sqlite"
)

// TestPullAzureExport pulls an Azure cost export from Azurite: of two runs of a period only
// the newest is imported, and a newer run replaces it.
func TestPullAzureExport(t *testing.T) {
	ctx := context.Background()
	endpoint := azblobtest.Start(t)
	c := azblobtest.Container(t, endpoint, "costs")
	data, err := os.ReadFile("../azure/testdata/ea_actual.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	csv := func(n int) []byte { return []byte(strings.Join(lines[:n+1], "\n") + "\n") }
	put := func(name string, data []byte) {
		t.Helper()
		if err := c.Put(ctx, name, data); err != nil {
			t.Fatal(err)
		}
	}
	const period = "exports/gpu-actual/20251001-20251031/"
	put(period+"run-1/part_0_0001.csv", csv(5))
	put(period+"run-2/part_0_0001.csv", csv(8))
	put(period+"run-2/part_1_0001.csv", []byte(strings.Join(append(lines[:1], lines[9:]...), "\n")+"\n"))
	put(period+"run-2/manifest.json", []byte(`{"blobCount":2,"blobs":[{"blobName":"`+period+`run-2/part_0_0001.csv"},{"blobName":"`+period+`run-2/part_1_0001.csv"}]}`))

	db, err := sqlite.Open(ctx, t.TempDir()+"/gpucost.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	env := map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=http;AccountName=" + azblobtest.Account +
		";AccountKey=" + azblobtest.Key + ";BlobEndpoint=" + endpoint + ";"}
	src, err := cloudsource.Open(ctx, "azure://"+azblobtest.Account+"/costs/exports/", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	p := &cloudsource.Puller{Importer: &billimport.Importer{Store: db}, Dir: t.TempDir()}
	rep, err := p.Pull(ctx, src)
	if err != nil || rep.Deliveries != 1 || rep.Imported != 1 {
		t.Fatalf("first Pull = %s, %v; want run-2 imported", counts(rep), err)
	}
	imps := imports(t, db)
	if len(imps) != 1 || imps[0].Rows != len(lines)-1 || len(imps[0].Files) != 2 || !strings.Contains(imps[0].Files[0].Name, "/run-2/") {
		t.Fatalf("first Pull stored %+v; want one import of run-2's 2 parts, %d rows", imps, len(lines)-1)
	}

	// A later run restates the period with fewer rows.
	put(period+"run-3/part_0_0001.csv", csv(12))
	rep, err = p.Pull(ctx, src)
	if err != nil || rep.Replaced != 1 {
		t.Fatalf("Pull after run-3 = %s, %v; want run-3 to replace run-2", counts(rep), err)
	}
	imps = imports(t, db)
	if len(imps) != 1 || imps[0].Rows != 12 || !strings.Contains(imps[0].Name, "/run-3/") {
		t.Errorf("after run-3 the store holds %+v; want one import of run-3's 12 rows", imps)
	}
}
