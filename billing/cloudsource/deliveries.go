package cloudsource

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Delivery is the current delivery of one export's billing period: what the provider's latest
// run of the export wrote for the period, and only that.
type Delivery struct {
	Export string // the export's folder (AWS: PREFIX/EXPORT; Azure: DIRECTORY/EXPORT; other files: their folder, "" at the root)
	Period string // the billing period as the layout names it: 2026-10 (AWS), 20261001-20261031 (Azure); "" for other files

	// Manifest is the key of the AWS manifest naming the data files; "" otherwise. Its
	// Files are known only once it is read (Source.files).
	Manifest string
	Files    []gpucost.Object // the data files of the delivery
	Objects  []gpucost.Object // everything the delivery's state depends on: the manifest and the files
}

// Key says which export and billing period the delivery is of.
func (d Delivery) Key() string { return d.Export + "\x00" + d.Period }

var (
	// dataExportsManifest is an AWS Data Exports (CUR 2.0, FOCUS) manifest:
	// PREFIX/EXPORT/metadata/BILLING_PERIOD=2026-10/EXPORT-Manifest.json.
	dataExportsManifest = regexp.MustCompile(`^(.*?)/?metadata/BILLING_PERIOD=([^/]+)/[^/]*-Manifest\.json$`)
	// legacyManifest is a legacy Cost and Usage Report's manifest of the period's current
	// assembly: PREFIX/REPORT/20261001-20261101/REPORT-Manifest.json.
	legacyManifest = regexp.MustCompile(`^(.*?)/?(\d{8}-\d{8})/[^/]*-Manifest\.json$`)
	// azureRun is a file of one run of an Azure cost export:
	// DIRECTORY/EXPORT/20261001-20261031/RUNID/FILE.
	azureRun = regexp.MustCompile(`^(.*?)/?(\d{8}-\d{8})/([^/]+)/([^/]+)$`)
)

// billSuffixes are the endings of the files a plain folder's listing imports: what
// billimport reads.
var billSuffixes = []string{".csv", ".csv.gz", ".gz", ".parquet", ".jsonl", ".json", ".ndjson", ".jsonl.gz"}

// Deliveries returns the current deliveries among objs, the listing of a bucket prefix, sorted
// by export and period:
//
//   - AWS Data Exports and legacy CUR: one per manifest of a billing period. The manifest names
//     the data files of the period's current execution; the files of earlier executions, which
//     stay in the data folder, are passed over.
//   - Azure cost exports: one per export and period, the run whose newest file is the newest
//     (a run's manifest.json, when it has one, names its files; otherwise its bill files are).
//   - Any other bill files (a GCP billing export written from BigQuery, a FOCUS file put there
//     by hand): one delivery per folder, its bill files.
func Deliveries(objs []gpucost.Object) []Delivery {
	var out []Delivery
	owned := map[string]bool{} // folders whose files belong to a manifest's export
	byKey := map[string]gpucost.Object{}
	for _, o := range objs {
		if _, dup := byKey[o.Key]; dup {
			continue // a listing names each key once; a repeated one is passed over
		}
		byKey[o.Key] = o
		if m := dataExportsManifest.FindStringSubmatch(o.Key); m != nil {
			out = append(out, Delivery{Export: m[1], Period: m[2], Manifest: o.Key, Objects: []gpucost.Object{o}})
			owned[join(m[1], "data")], owned[join(m[1], "metadata")] = true, true
		} else if m := legacyManifest.FindStringSubmatch(o.Key); m != nil {
			out = append(out, Delivery{Export: m[1], Period: m[2], Manifest: o.Key, Objects: []gpucost.Object{o}})
			owned[join(m[1], m[2])] = true
		}
	}
	runs := map[string]map[string][]gpucost.Object{} // export and period → run → files
	var plain []gpucost.Object
	for _, o := range objs {
		if byKey[o.Key] != o || strings.HasSuffix(o.Key, "/") || ownedBy(owned, o.Key) {
			continue
		}
		delete(byKey, o.Key) // taken
		if m := azureRun.FindStringSubmatch(o.Key); m != nil {
			k := m[1] + "\x00" + m[2]
			if runs[k] == nil {
				runs[k] = map[string][]gpucost.Object{}
			}
			runs[k][m[3]] = append(runs[k][m[3]], o)
			continue
		}
		if isBill(o.Key) {
			plain = append(plain, o)
		}
	}
	for k, rs := range runs {
		export, period, _ := strings.Cut(k, "\x00")
		out = append(out, newestRun(export, period, rs))
	}
	folders := map[string]int{} // folder → its delivery in out
	for _, o := range plain {
		dir := folder(o.Key)
		i, ok := folders[dir]
		if !ok {
			i = len(out)
			folders[dir] = i
			out = append(out, Delivery{Export: dir})
		}
		out[i].Files = append(out[i].Files, o)
		out[i].Objects = append(out[i].Objects, o)
	}
	slices.SortFunc(out, func(a, b Delivery) int { return strings.Compare(a.Key(), b.Key()) })
	return out
}

// newestRun is the delivery of an Azure export's period: its run whose newest file is the
// newest, by the run folder's name when two tie.
func newestRun(export, period string, runs map[string][]gpucost.Object) Delivery {
	var best string
	var bestAt time.Time
	for run, files := range runs {
		at := newest(files)
		if best == "" || at.After(bestAt) || at.Equal(bestAt) && run > best {
			best, bestAt = run, at
		}
	}
	d := Delivery{Export: export, Period: period, Objects: runs[best]}
	for _, o := range runs[best] {
		if isAzureManifest(o.Key) {
			d.Manifest = o.Key
		} else if isBill(o.Key) {
			d.Files = append(d.Files, o)
		}
	}
	return d
}

// isAzureManifest reports whether key is an Azure export run's manifest: manifest.json as
// exports write it now, _manifest.json as partitioned exports of manifestVersion 2021-01-01
// did (docs/bill-sources.md).
func isAzureManifest(key string) bool {
	b := path.Base(key)
	return b == "manifest.json" || b == "_manifest.json"
}

// newest is the latest modification time among objs.
func newest(objs []gpucost.Object) time.Time {
	var t time.Time
	for _, o := range objs {
		if o.Modified.After(t) {
			t = o.Modified
		}
	}
	return t
}

// isBill reports whether key ends as a bill file does.
func isBill(key string) bool {
	k := strings.ToLower(key)
	if strings.HasSuffix(k, "manifest.json") {
		return false
	}
	return slices.ContainsFunc(billSuffixes, func(s string) bool { return strings.HasSuffix(k, s) })
}

// ownedBy reports whether key lies in one of the folders.
func ownedBy(folders map[string]bool, key string) bool {
	for dir := path.Dir(key); dir != "." && dir != "/" && dir != ""; dir = path.Dir(dir) {
		if folders[dir] {
			return true
		}
	}
	return false
}

// join joins a folder and a name; an empty folder is the bucket's root.
func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// locate says which export and billing period the object key (or URL) belongs to, by the
// layouts Deliveries knows: (PREFIX/EXPORT, 2026-10) for an AWS Data Exports data file or
// manifest, (PREFIX/EXPORT, 20261001-20261031) for a legacy CUR or Azure export file, (its
// folder, "") for another file.
func locate(key string) (export, period string) {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		if v, ok := strings.CutPrefix(p, "BILLING_PERIOD="); ok && i > 0 && (parts[i-1] == "data" || parts[i-1] == "metadata") {
			return strings.Join(parts[:i-1], "/"), v
		}
		if i < len(parts)-1 && periodRange.MatchString(p) {
			return strings.Join(parts[:i], "/"), p
		}
	}
	return folder(key), ""
}

// folder is the folder of key; "" at the root.
func folder(key string) string {
	i := strings.LastIndexByte(key, '/')
	if i < 0 {
		return ""
	}
	return key[:i]
}

// periodRange is the folder of a billing period in the legacy CUR and Azure layouts.
var periodRange = regexp.MustCompile(`^\d{8}-\d{8}$`)
