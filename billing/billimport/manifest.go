package billimport

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// A manifest is the JSON file AWS Data Exports (CUR 2.0 and FOCUS exports: dataFiles) and the
// legacy Cost and Usage Report (reportKeys) write beside a bill's data files: it names the
// objects that make up one delivery of the bill. Importing a manifest imports those files.
type manifest struct {
	DataFiles  []string `json:"dataFiles"`
	ReportKeys []string `json:"reportKeys"`
}

// manifestKeys are the keys that make a JSON object a manifest.
var manifestKeys = [][]byte{[]byte(`"dataFiles"`), []byte(`"reportKeys"`)}

// isManifest reports whether first, the start of a file, is a manifest: a JSON object naming
// data files.
func isManifest(first []byte) bool {
	t := bytes.TrimLeft(first, " \t\r\n\xef\xbb\xbf")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	return bytes.Contains(t, manifestKeys[0]) || bytes.Contains(t, manifestKeys[1])
}

// maxManifest is the largest manifest read: one names a month's data files and its columns,
// tens of kilobytes.
const maxManifest = 16 << 20

// manifestFiles returns the data files the manifest at path names, found on this machine: each
// object key (s3://bucket/prefix/export/data/BILLING_PERIOD=2026-10/export-00001.csv.gz) is
// looked for below the manifest's folder and the three above it — where a copy of the export's
// folder puts it — by the longest tail of the key that names a file there. name names the
// manifest in messages.
func manifestFiles(path, name string) ([]Source, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	if info.Size() > maxManifest {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: a manifest of %d bytes is over the %d read; import the data files themselves", name, info.Size(), maxManifest)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	var m manifest
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &m); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: not a readable manifest: %v; import the data files themselves", name, err)
	}
	keys := append(m.DataFiles, m.ReportKeys...)
	if len(keys) == 0 {
		return nil, gpucost.Errorf(gpucost.ENotFound, "import %s: the manifest names no data files; the export delivered nothing for the period", name)
	}
	out := make([]Source, 0, len(keys))
	for _, key := range keys {
		p, ok := findKey(filepath.Dir(path), key)
		if !ok {
			return nil, gpucost.Errorf(gpucost.ENotFound, "import %s: data file %s is not beside the manifest; copy the export's whole folder (data and metadata) and import the manifest again, or import the data files themselves", name, key)
		}
		out = append(out, Source{Path: p, Name: p})
	}
	return out, nil
}

// findKey looks for the object key below dir and the three folders above it, by the longest
// tail of the key that names a regular file there.
func findKey(dir, key string) (string, bool) {
	key = strings.TrimPrefix(key, "s3://")
	parts := strings.Split(strings.Trim(key, "/"), "/")
	if slices.Contains(parts, "..") {
		return "", false
	}
	for up := 0; up < 4; up++ {
		for i := range parts {
			p := filepath.Join(append([]string{dir}, parts[i:]...)...)
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
				return p, true
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}
