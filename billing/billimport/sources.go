package billimport

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Sources returns the bill files the paths name: a file as it is, a directory as the bill files
// below it (.csv, .parquet, .json, .jsonl, .ndjson, each maybe .gz), in name order. Manifests in
// a directory are passed over: the data files they name lie in the directory too.
func Sources(paths ...string) ([]Source, error) {
	var out []Source
	for _, arg := range paths {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", arg, err)
		}
		if !info.IsDir() {
			out = append(out, Source{Path: arg, Name: arg})
			continue
		}
		var found []string
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isBillFile(path) {
				found = append(found, path)
			}
			return err
		})
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", arg, err)
		}
		if len(found) == 0 {
			return nil, gpucost.Errorf(gpucost.ENotFound, "import %s: no bill files (.csv, .csv.gz, .parquet, .json, .jsonl, .ndjson) in the directory", arg)
		}
		slices.Sort(found)
		for _, p := range found {
			out = append(out, Source{Path: p, Name: p})
		}
	}
	return out, nil
}

// isBillFile reports whether a file in a directory looks like bill data: CUR and FOCUS exports
// keep manifests (JSON) beside their data files, and those are not bills.
func isBillFile(path string) bool {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz")
	if strings.Contains(name, "manifest") {
		return false
	}
	for _, ext := range []string{".csv", ".parquet", ".json", ".jsonl", ".ndjson"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}
