package catalog

import (
	"bytes"
	"compress/gzip"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var updateBundled = flag.Bool("update-bundled", false, "rewrite catalog/data/*.gz from the files beside them")

// TestBundledGzipMatches: every bundled file (data/*.csv, *.yml, *.json) has a gzipped copy that
// the binary embeds, holding the same bytes, and no .gz is left without its file.
func TestBundledGzipMatches(t *testing.T) {
	var plain []string
	for _, pat := range []string{"data/*.csv", "data/*.yml", "data/*.json"} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		plain = append(plain, m...)
	}
	if len(plain) < 5 {
		t.Fatalf("found %d bundled files, want the catalog's", len(plain))
	}
	for _, name := range plain {
		want, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if *updateBundled {
			var b bytes.Buffer
			z, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
			z.Write(want)
			if err := z.Close(); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name+".gz", b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := readBundled(filepath.ToSlash(name))
		if err != nil {
			t.Errorf("%s: %v (go test ./catalog -run TestBundledGzipMatches -update-bundled writes it)", name, err)
			continue
		}
		if !bytes.Equal(got, want) && !*updateBundled {
			t.Errorf("%s.gz does not hold %s: run go test ./catalog -run TestBundledGzipMatches -update-bundled", name, name)
		}
	}
	gz, _ := filepath.Glob("data/*.gz")
	for _, g := range gz {
		if _, err := os.Stat(g[:len(g)-len(".gz")]); err != nil {
			t.Errorf("%s has no plain file beside it: remove it or add the file", g)
		}
	}
}
