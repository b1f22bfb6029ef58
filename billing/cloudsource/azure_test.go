package cloudsource_test

import (
	"context"
	"os"
	"strconv"
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
	put, csv, lines, src, db := azureExport(t)
	const period = "exports/gpu-actual/20251001-20251031/"
	put(period+"run-1/part_0_0001.csv", csv(5))
	put(period+"run-2/part_0_0001.csv", csv(8))
	put(period+"run-2/part_1_0001.csv", []byte(strings.Join(append(lines[:1], lines[9:]...), "\n")+"\n"))
	put(period+"run-2/manifest.json", []byte(`{"blobCount":2,"blobs":[{"blobName":"`+period+`run-2/part_0_0001.csv"},{"blobName":"`+period+`run-2/part_1_0001.csv"}]}`))

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

// TestPullAzurePartitionedManifest pulls a run whose manifest is a partitioned export's
// _manifest.json (manifestVersion 2021-01-01, blob names relative to the run, with byteCount
// and blobCount). A newer run whose manifest gives a size the bucket does not hold yet is still
// being written: it is refused with "pull again later" and the stored run stays; one whose
// blobCount disagrees with its blobs is refused as damaged.
func TestPullAzurePartitionedManifest(t *testing.T) {
	ctx := context.Background()
	put, csv, _, src, db := azureExport(t)
	manifest := func(count int, size int) []byte {
		return []byte(`{"manifestVersion":"2021-01-01","dataFormat":"csv","blobCount":` + strconv.Itoa(count) +
			`,"blobs":[{"blobName":"part_0.csv","byteCount":` + strconv.Itoa(size) + `,"dataRowCount":8,"headerRowCount":1}]}`)
	}
	const period = "exports/gpu-actual/20251001-20251031/"
	put(period+"run-1/part_0.csv", csv(8))
	put(period+"run-1/_manifest.json", manifest(1, len(csv(8))))

	p := &cloudsource.Puller{Importer: &billimport.Importer{Store: db}, Dir: t.TempDir()}
	rep, err := p.Pull(ctx, src)
	if err != nil || rep.Imported != 1 {
		t.Fatalf("Pull = %s, %v; want run-1 imported through its _manifest.json", counts(rep), err)
	}
	if imps := imports(t, db); len(imps) != 1 || imps[0].Rows != 8 {
		t.Fatalf("stored %+v; want run-1's 8 rows", imps)
	}

	// run-2's manifest says its part is larger than what the bucket holds so far.
	put(period+"run-2/part_0.csv", csv(5))
	put(period+"run-2/_manifest.json", manifest(1, len(csv(12))))
	rep, err = p.Pull(ctx, src)
	if err == nil || rep.Refused != 1 || !strings.Contains(err.Error(), "still be delivering: pull again later") {
		t.Fatalf("Pull of a run still being written = %s, %v; want it refused until its part is whole", counts(rep), err)
	}
	if imps := imports(t, db); len(imps) != 1 || imps[0].Rows != 8 || !strings.Contains(imps[0].Name, "/run-1/") {
		t.Fatalf("after the refused run the store holds %+v; want run-1 kept", imps)
	}

	// The part is whole now, but the manifest counts two blobs and lists one.
	put(period+"run-2/part_0.csv", csv(12))
	put(period+"run-2/_manifest.json", manifest(2, len(csv(12))))
	if rep, err = p.Pull(ctx, src); err == nil || !strings.Contains(err.Error(), "blobCount is 2 but it lists 1 blobs") {
		t.Fatalf("Pull of a damaged manifest = %s, %v; want it refused", counts(rep), err)
	}

	put(period+"run-2/_manifest.json", manifest(1, len(csv(12))))
	if rep, err = p.Pull(ctx, src); err != nil || rep.Replaced != 1 {
		t.Fatalf("Pull of the whole run-2 = %s, %v; want it to replace run-1", counts(rep), err)
	}
	if imps := imports(t, db); len(imps) != 1 || imps[0].Rows != 12 {
		t.Errorf("after run-2 the store holds %+v; want run-2's 12 rows", imps)
	}
}

// azureExport starts Azurite with a container "costs" and returns: put, which writes a blob;
// csv, the first n data lines of the EA actual-cost sample with its header; lines, the sample's
// lines; the source over the container's exports/ folder; and a fresh store.
func azureExport(t *testing.T) (put func(string, []byte), csv func(int) []byte, lines []string, src *cloudsource.Source, db *sqlite.DB) {
	t.Helper()
	ctx := context.Background()
	endpoint := azblobtest.Start(t)
	c := azblobtest.Container(t, endpoint, "costs")
	data, err := os.ReadFile("../azure/testdata/ea_actual.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines = strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	csv = func(n int) []byte { return []byte(strings.Join(lines[:n+1], "\n") + "\n") }
	put = func(name string, data []byte) {
		t.Helper()
		if err := c.Put(ctx, name, data); err != nil {
			t.Fatal(err)
		}
	}
	db, err = sqlite.Open(ctx, t.TempDir()+"/gpucost.db")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	env := map[string]string{"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=http;AccountName=" + azblobtest.Account +
		";AccountKey=" + azblobtest.Key + ";BlobEndpoint=" + endpoint + ";"}
	src, err = cloudsource.Open(ctx, "azure://"+azblobtest.Account+"/costs/exports/", func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return put, csv, lines, src, db
}
