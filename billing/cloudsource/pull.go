package cloudsource

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
)

// DefaultMaxFile is the largest data file a pull downloads, as the largest bill an upload
// takes (httpapi.DefaultMaxBill, docs/limits.md "Bill uploads and imports").
const DefaultMaxFile = 2 << 30

// maxManifest is the largest manifest read: one names a month's data files and its columns.
const maxManifest = 16 << 20

// Puller imports the current deliveries of sources. It remembers what each delivery's objects
// were when it last stored or found it unchanged, so that a pull every few hours downloads only
// what changed since; a new Puller (gpucost import billing) downloads every delivery once and
// skips those whose files are stored by their SHA-256.
type Puller struct {
	Importer *billimport.Importer
	Options  billimport.Options // format, grain, columns kept; Replace and Partial are set for restated deliveries, and for all when set here
	Dir      string             // where deliveries are downloaded; os.TempDir when empty
	MaxFile  int64              // the largest data file downloaded; DefaultMaxFile when 0

	mu   sync.Mutex
	seen map[string]string // source root + delivery key → fingerprint of its objects
}

// Report is what one pull of a source did.
type Report struct {
	Source     string              `json:"source"`
	Deliveries int                 `json:"deliveries"` // current deliveries found
	Imported   int                 `json:"imported"`   // deliveries stored as new imports
	Replaced   int                 `json:"replaced"`   // deliveries that replaced an earlier one of their export and period
	Unchanged  int                 `json:"unchanged"`  // deliveries stored before, not downloaded again or skipped by checksum
	Refused    int                 `json:"refused"`    // deliveries refused (Results say why)
	Results    []billimport.Result `json:"files"`
}

// delivery is one delivery being pulled: where its files were downloaded and how it is imported.
type delivery struct {
	Delivery
	export, period string // the export and period of its files, as URLs (locate)
	fingerprint    string
	sources        []billimport.Source
	sums           []string
}

// Pull imports src's current deliveries that are new or restated, one delivery at a time,
// each a billimport batch of its own (one transaction; the disk and memory of one delivery): a
// new one without Replace, so it is refused if it overlaps a stored bill from elsewhere; a
// restated one — a stored import came from the same export and billing period, with other
// bytes — with Replace, and Partial since a delivery is the whole of its period, replacing
// what it overlaps. A refused delivery does not hold back the others; the error joins the
// refusals, and Report.Results says what became of every file.
func (p *Puller) Pull(ctx context.Context, src *Source) (Report, error) {
	rep := Report{Source: src.Label()}
	objs, err := src.Bucket.List(ctx, src.Prefix)
	if err != nil {
		return rep, err
	}
	found := Deliveries(objs)
	rep.Deliveries = len(found)
	stored, err := p.Importer.Store.CostImports(ctx)
	if err != nil {
		return rep, err
	}
	byKey := map[string]gpucost.Object{}
	for _, o := range objs {
		byKey[o.Key] = o
	}
	var errs []error
	for _, fd := range found {
		d := &delivery{Delivery: fd}
		if err := p.pullDelivery(ctx, src, d, byKey, stored, &rep); err != nil {
			errs = append(errs, err)
		}
	}
	return rep, errors.Join(errs...)
}

// pullDelivery downloads d, unless it is what was pulled before, and imports it unless its
// files are stored.
func (p *Puller) pullDelivery(ctx context.Context, src *Source, d *delivery, byKey map[string]gpucost.Object, stored []gpucost.CostImport, rep *Report) error {
	err := p.resolve(ctx, src, d, byKey)
	if err == nil && p.seenBefore(src, d) {
		rep.Unchanged++
		return nil
	}
	var dir string
	if err == nil {
		dir, err = os.MkdirTemp(p.Dir, "gpucost-pull-")
		if err != nil {
			err = fmt.Errorf("pull %s: make a download folder: %w; set TMPDIR to a folder with room", src.Label(), err)
		} else {
			defer os.RemoveAll(dir)
			err = p.fetch(ctx, src, d, dir)
		}
	}
	if err != nil {
		rep.Refused++
		rep.Results = append(rep.Results, billimport.Result{File: src.Root + d.Export, Status: "refused: " + err.Error(), Err: err})
		return err
	}
	if storedBefore(stored, d.sums) {
		rep.Unchanged++
		rep.Results = append(rep.Results, unchanged(stored, d)...)
		p.remember(src, d)
		return nil
	}
	return p.importBatch(ctx, src, []*delivery{d}, sameExport(stored, d.export, d.period), rep)
}

// importBatch imports ds as one billimport batch and counts what became of each delivery.
func (p *Puller) importBatch(ctx context.Context, src *Source, ds []*delivery, replace bool, rep *Report) error {
	if len(ds) == 0 {
		return nil
	}
	var sources []billimport.Source
	for _, d := range ds {
		sources = append(sources, d.sources...)
	}
	o := p.Options
	o.Replace, o.Partial, o.Manifests = replace || o.Replace, replace || o.Partial, false
	results, err := p.Importer.Import(ctx, sources, o)
	rep.Results = append(rep.Results, results...)
	for _, d := range ds {
		var rs []billimport.Result
		for _, r := range results {
			if slices.ContainsFunc(d.sources, func(s billimport.Source) bool { return s.Name == r.File }) {
				rs = append(rs, r)
			}
		}
		switch {
		case slices.ContainsFunc(rs, func(r billimport.Result) bool { return r.Err != nil }) || len(rs) == 0:
			rep.Refused++
		case slices.ContainsFunc(rs, func(r billimport.Result) bool { return len(r.Replaced) > 0 }):
			rep.Replaced++
			p.remember(src, d)
		case slices.ContainsFunc(rs, func(r billimport.Result) bool { return !r.Skipped }):
			rep.Imported++
			p.remember(src, d)
		default:
			rep.Unchanged++
			p.remember(src, d)
		}
	}
	return err
}

// resolve reads d's manifest, if it has one, for its data files, and sets d's fingerprint:
// the manifest's bytes (a listing's times are whole seconds, and Data Exports rewrites the
// manifest in place) and its files' keys, sizes and times.
func (p *Puller) resolve(ctx context.Context, src *Source, d *delivery, byKey map[string]gpucost.Object) error {
	d.fingerprint = fingerprint(d.Objects)
	if d.Manifest != "" {
		keys, sum, err := manifestKeys(ctx, src, d.Manifest)
		if err != nil {
			return err
		}
		if len(keys) > 0 || len(d.Files) == 0 {
			d.Files = nil
			for _, e := range keys {
				o, ok := byKey[e.key]
				if !ok { // a name relative to the manifest's folder
					o, ok = byKey[path.Join(path.Dir(d.Manifest), e.key)]
				}
				if !ok {
					return gpucost.Errorf(gpucost.ENotFound, "pull %s%s: it names %s, which is not in the bucket listing; the export may still be delivering: pull again later", src.Root, d.Manifest, e.key)
				}
				if e.size >= 0 && o.Size != e.size {
					return gpucost.Errorf(gpucost.ENotFound, "pull %s%s: it gives %s as %d bytes, the bucket holds %d; the export may still be delivering: pull again later", src.Root, d.Manifest, o.Key, e.size, o.Size)
				}
				d.Files = append(d.Files, o)
			}
		}
		d.fingerprint += sum + "\n"
	}
	if len(d.Files) == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "pull %s%s: the delivery names no data files; the export delivered nothing for period %s", src.Root, cmp.Or(d.Manifest, d.Export), d.Period)
	}
	d.fingerprint += fingerprint(d.Files)
	return nil
}

// fetch downloads d's data files into dir and makes them the sources of its import.
func (p *Puller) fetch(ctx context.Context, src *Source, d *delivery, dir string) error {
	name := src.Root + cmp.Or(d.Manifest, d.Export) // the manifest, the Azure export's run folder or the files' folder
	if d.Manifest == "" && d.Period != "" {
		name = src.Root + folder(d.Files[0].Key)
	}
	d.export, d.period = locate(src.Root + d.Files[0].Key)
	for _, o := range d.Files {
		local, err := p.download(ctx, src, o, dir)
		if err != nil {
			return err
		}
		sum, err := billimport.Checksum(local)
		if err != nil {
			return err
		}
		d.sums = append(d.sums, sum)
		d.sources = append(d.sources, billimport.Source{Path: local, Name: src.Root + o.Key, Export: name})
	}
	return nil
}

// download copies the object o into dir, refusing one larger than MaxFile.
func (p *Puller) download(ctx context.Context, src *Source, o gpucost.Object, dir string) (string, error) {
	limit := p.MaxFile
	if limit <= 0 {
		limit = DefaultMaxFile
	}
	what := src.Root + o.Key
	if o.Size > limit {
		return "", gpucost.Errorf(gpucost.EInvalid, "pull %s: %d bytes is over the %d bytes a bill file may be (docs/limits.md); import it by hand with gpucost import billing", what, o.Size, limit)
	}
	// Each file in a folder of its own under its base name, which format detection reads: a
	// key never names a path outside dir.
	sub, err := os.MkdirTemp(dir, "f")
	if err != nil {
		return "", fmt.Errorf("pull %s: %w", what, err)
	}
	local := filepath.Join(sub, cmp.Or(strings.Trim(path.Base("/"+o.Key), "/."), "bill"))
	r, err := src.Bucket.Get(ctx, o.Key)
	if err != nil {
		return "", err
	}
	defer r.Close()
	f, err := os.Create(local)
	if err != nil {
		return "", fmt.Errorf("pull %s: %w", what, err)
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", gpucost.Errorf(gpucost.EUnavailable, "pull %s: download: %v; pull again later", what, err)
	}
	if n > limit {
		return "", gpucost.Errorf(gpucost.EInvalid, "pull %s: over the %d bytes a bill file may be (docs/limits.md); import it by hand with gpucost import billing", what, limit)
	}
	return local, nil
}

// manifest is what a pull reads of a manifest: an AWS Data Exports manifest's dataFiles (full
// s3:// URIs), a legacy CUR manifest's reportKeys (keys) or an Azure export run's blobs, with
// their count and sizes where the manifest gives them.
type manifest struct {
	DataFiles  []string `json:"dataFiles"`
	ReportKeys []string `json:"reportKeys"`
	BlobCount  *int     `json:"blobCount"`
	Blobs      []struct {
		BlobName  string `json:"blobName"`
		ByteCount *int64 `json:"byteCount"`
	} `json:"blobs"`
}

// manifestEntry is a data file a manifest names: its key, and its size in bytes where the
// manifest says it (-1 where not).
type manifestEntry struct {
	key  string
	size int64
}

// manifestKeys returns the data files the manifest at key names, in its bucket, and the
// SHA-256 of its bytes. An Azure manifest whose blobCount is not the number of blobs it lists
// is refused.
func manifestKeys(ctx context.Context, src *Source, key string) ([]manifestEntry, string, error) {
	r, err := src.Bucket.Get(ctx, key)
	if err != nil {
		return nil, "", err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, maxManifest+1))
	if err != nil {
		return nil, "", gpucost.Errorf(gpucost.EUnavailable, "pull %s%s: %v; pull again later", src.Root, key, err)
	}
	if len(data) > maxManifest {
		return nil, "", gpucost.Errorf(gpucost.EInvalid, "pull %s%s: a manifest over %d bytes; import the data files by hand", src.Root, key, maxManifest)
	}
	var m manifest
	if err := json.Unmarshal(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), &m); err != nil {
		return nil, "", gpucost.Errorf(gpucost.EInvalid, "pull %s%s: not a readable manifest: %v", src.Root, key, err)
	}
	var keys []manifestEntry
	for _, u := range append(m.DataFiles, m.ReportKeys...) {
		k, err := src.keyOf(u)
		if err != nil {
			return nil, "", gpucost.Errorf(gpucost.EInvalid, "pull %s%s: %v", src.Root, key, err)
		}
		keys = append(keys, manifestEntry{key: k, size: -1})
	}
	if m.BlobCount != nil && *m.BlobCount != len(m.Blobs) {
		return nil, "", gpucost.Errorf(gpucost.EInvalid, "pull %s%s: its blobCount is %d but it lists %d blobs; the export wrote a damaged manifest: run the export again", src.Root, key, *m.BlobCount, len(m.Blobs))
	}
	for _, b := range m.Blobs {
		e := manifestEntry{key: strings.TrimPrefix(b.BlobName, "/"), size: -1}
		if b.ByteCount != nil {
			e.size = *b.ByteCount
		}
		keys = append(keys, e)
	}
	sum := sha256.Sum256(data)
	return keys, hex.EncodeToString(sum[:]), nil
}

// keyOf returns the key in src's bucket of a manifest's entry: a full URL of the same bucket
// (s3://BUCKET/KEY, as Data Exports writes) or a key.
func (s *Source) keyOf(entry string) (string, error) {
	scheme, rest, ok := strings.Cut(entry, "://")
	if !ok {
		return strings.TrimPrefix(entry, "/"), nil
	}
	bucket, key, _ := strings.Cut(rest, "/")
	rootScheme, rootRest, _ := strings.Cut(s.Root, "://")
	if scheme != rootScheme && !(scheme == "s3" && rootScheme == "gs") || bucket+"/" != rootRest {
		return "", fmt.Errorf("data file %s lies outside %s; gpucost pulls a delivery from its own bucket only", entry, s.Root)
	}
	return key, nil
}

// fingerprint says what a delivery's objects were: their keys, sizes and times.
func fingerprint(objs []gpucost.Object) string {
	var b strings.Builder
	for _, o := range objs {
		fmt.Fprintf(&b, "%s\x00%d\x00%d\n", o.Key, o.Size, o.Modified.UnixNano())
	}
	return b.String()
}

func (p *Puller) seenBefore(src *Source, d *delivery) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[src.Root+d.Key()] == d.fingerprint
}

func (p *Puller) remember(src *Source, d *delivery) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.seen == nil {
		p.seen = map[string]string{}
	}
	p.seen[src.Root+d.Key()] = d.fingerprint
}

// storedBefore reports whether every one of the checksums is a file of a stored import.
func storedBefore(stored []gpucost.CostImport, sums []string) bool {
	for _, s := range sums {
		if !slices.ContainsFunc(stored, func(p gpucost.CostImport) bool { return p.HasFile(s) }) {
			return false
		}
	}
	return len(sums) > 0
}

// unchanged returns the results of d's files, each stored before.
func unchanged(stored []gpucost.CostImport, d *delivery) []billimport.Result {
	var out []billimport.Result
	for i, sum := range d.sums {
		r := billimport.Result{File: d.sources[i].Name, Checksum: sum, Skipped: true}
		for _, p := range slices.Backward(stored) {
			if p.HasFile(sum) {
				r.ImportID, r.Format, r.Version = p.ID, p.Format, p.Version
				r.Status = fmt.Sprintf("skipped: imported before (import %d)", p.ID)
				break
			}
		}
		out = append(out, r)
	}
	return out
}

// sameExport reports whether a stored import came from the export and billing period a
// delivery's files are of, by its name or its parts' names (URLs of the objects it was pulled
// from): then the delivery is a restatement of it.
func sameExport(stored []gpucost.CostImport, export, period string) bool {
	for _, p := range stored {
		names := []string{p.Name}
		for _, f := range p.Files {
			names = append(names, f.Name)
		}
		for _, n := range names {
			if e, per := locate(n); e == export && per == period {
				return true
			}
		}
	}
	return false
}
