package billimport

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// curParts writes the CUR 2.0 sample as two parts of one export, cur2-00001.csv and
// cur2-00002.csv, each half of its rows, and returns their folder and paths.
func curParts(t *testing.T) (dir, p1, p2 string) {
	t.Helper()
	lines := bytes.SplitAfter(readFile(t, curSample), []byte("\n"))
	head, rows := lines[0], lines[1:]
	dir = t.TempDir()
	p1, p2 = filepath.Join(dir, "cur2-00001.csv"), filepath.Join(dir, "cur2-00002.csv")
	for p, part := range map[string][][]byte{p1: rows[:len(rows)/2], p2: rows[len(rows)/2:]} {
		if err := os.WriteFile(p, append(bytes.Clone(head), bytes.Join(part, nil)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, p1, p2
}

// One part of a stored two-part export given alone with --replace is refused, naming the import,
// its parts and the command that replaces the whole export, and the store is left as it was; so
// is a one-file restatement under another name. --partial says the smaller replacement is meant.
func TestReplaceOnePartRefused(t *testing.T) {
	ctx := context.Background()
	dir, p1, p2 := curParts(t)
	db := newStore(t)
	im := &Importer{Store: db}
	if got, err := im.Import(ctx, []Source{{Path: p1}, {Path: p2}}, Options{}); err != nil || got[0].ImportID != got[1].ImportID {
		t.Fatalf("Import(two parts) = %+v, %v; want one import", got, err)
	}
	before := stateOf(t, db)
	restated := writeFile(t, "restated/october.csv", readFile(t, curSample))
	for _, src := range []string{p1, p2, restated} {
		got, err := im.Import(ctx, []Source{{Path: src}}, Options{Replace: true})
		if gpucost.ErrorCode(err) != gpucost.EConflict {
			t.Fatalf("Import(%s, Replace) = %v; want an EConflict", filepath.Base(src), err)
		}
		for _, want := range []string{"import 1 (", "an export of 2 parts (cur2-00001.csv, cur2-00002.csv)", "with this one file alone",
			"gpucost import billing --replace " + dir, "--replace --partial", "nothing was stored"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Import(%s, Replace) = %v; want it to say %q", filepath.Base(src), err, want)
			}
		}
		if len(got) != 1 || !strings.HasPrefix(got[0].Status, "refused: ") {
			t.Errorf("Import(%s, Replace) results = %+v; want the file refused", filepath.Base(src), got)
		}
		sameState(t, db, before, "replacing with "+filepath.Base(src))
	}
	got, err := im.Import(ctx, []Source{{Path: restated}}, Options{Replace: true, Partial: true})
	if err != nil || got[0].Status != "replaced import 1" {
		t.Fatalf("Import(restated, Replace, Partial) = %+v, %v; want import 1 replaced", got, err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 1 || len(imps[0].Files) != 0 || !equalTotals(imps[0].Totals, sourceTotals(t, curSample)) {
		t.Errorf("after --partial, imports = %+v; want the restated file alone with the sample's totals", imps)
	}
}

// A manifest's two parts cover two billing accounts; replacing them with a smaller delivery
// whose manifest names one part is refused, naming the account it would drop; --partial
// replaces and says what is no longer covered.
func TestReplaceManifestUncovered(t *testing.T) {
	ctx := context.Background()
	key := "s3://b/gpu-cur/data/BILLING_PERIOD=2025-06/"
	manifest, data := exportFolder(t, key+"gpu-cur-00001.csv.gz", key+"other.csv")
	rows := bytes.SplitAfter(readFile(t, curSample), []byte("\n"))
	other := append(bytes.Clone(rows[0]), bytes.ReplaceAll(rows[1], []byte("111122223333"), []byte("999988887777"))...)
	if err := os.WriteFile(filepath.Join(filepath.Dir(data), "other.csv"), other, 0o644); err != nil {
		t.Fatal(err)
	}
	db := newStore(t)
	im := &Importer{Store: db}
	if _, err := im.Import(ctx, []Source{{Path: manifest}}, Options{Manifests: true}); err != nil {
		t.Fatal(err)
	}
	if imps, _ := db.CostImports(ctx); len(imps) != 1 || len(imps[0].Coverage) != 2 {
		t.Fatalf("stored = %+v; want one import covering two accounts", imps)
	}
	before := stateOf(t, db)
	smaller := filepath.Join(filepath.Dir(manifest), "gpu-cur-restated-Manifest.json")
	if err := os.WriteFile(smaller, []byte(`{"dataFiles":["`+key+`gpu-cur-00001.csv.gz"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{smaller, data} {
		_, err := im.Import(ctx, []Source{{Path: src}}, Options{Replace: true, Manifests: true})
		if gpucost.ErrorCode(err) != gpucost.EConflict || !strings.Contains(err.Error(), "billing account 999988887777 2025-06, which it does not cover") ||
			!strings.Contains(err.Error(), "gpu-cur-00001.csv.gz, other.csv") {
			t.Errorf("Import(%s, Replace) = %v; want a conflict naming the parts and the account it drops", filepath.Base(src), err)
		}
		sameState(t, db, before, "replacing with "+filepath.Base(src))
	}
	got, err := im.Import(ctx, []Source{{Path: smaller}}, Options{Replace: true, Partial: true, Manifests: true})
	if err != nil || got[0].Status != "replaced import 1" || len(got[0].Uncovered) != 1 || got[0].Uncovered[0].Account != "999988887777" {
		t.Errorf("Import(smaller manifest, Replace, Partial) = %+v, %v; want import 1 replaced and 999988887777 named uncovered", got, err)
	}
}
