package billimport

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// Sources returns the files the paths name: a file as it is, a directory as the files below it,
// in name order. Of a directory's files those that are no bill (.csv, .parquet, .json, .jsonl,
// .ndjson, each maybe .gz) come with Skip saying why, so that an import lists every file; so do
// manifests, whose data files lie in the directory too. A directory without a bill file is an
// ENotFound.
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
		bills := 0
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				found = append(found, path)
				if notBill(path) == "" {
					bills++
				}
			}
			return err
		})
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", arg, err)
		}
		if bills == 0 {
			return nil, gpucost.Errorf(gpucost.ENotFound, "import %s: no bill files (.csv, .csv.gz, .parquet, .json, .jsonl, .ndjson) in the directory", arg)
		}
		slices.Sort(found)
		for _, p := range found {
			out = append(out, Source{Path: p, Name: p, Skip: notBill(p)})
		}
	}
	return out, nil
}

// notBill says why a file in a directory is no bill data, by its name: "" for a bill's data
// file, "not a bill: .svg" for another extension, and a reason for the manifests CUR and FOCUS
// exports keep beside their data files.
func notBill(path string) string {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz")
	if strings.Contains(name, "manifest") {
		return "an export's manifest: its data files are imported from the directory (import the manifest itself to take only its files)"
	}
	for _, ext := range []string{".csv", ".parquet", ".json", ".jsonl", ".ndjson"} {
		if strings.HasSuffix(name, ext) {
			return ""
		}
	}
	if ext := filepath.Ext(name); ext != "" && ext != name {
		return "not a bill: " + ext
	}
	return "not a bill: no bill extension (.csv, .parquet, .json, .jsonl, .ndjson, maybe .gz)"
}
