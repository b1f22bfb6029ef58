// Package billimport is the one way a bill gets into the store: gpucost import billing, the
// server's POST /api/v1/bills and gpucost demo all call Importer.Import, which detects each
// file's format, picks its reader from one registry (Formats), checksums and dedupes it against
// what is stored, streams and aggregates its rows (billing.Aggregator), reconciles the reader's
// totals with the aggregated ones to the cent per currency, and stores the import in one
// transaction.
package billimport

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Store is what importing needs of a store: the imports made so far, to skip a file imported
// before and refuse another file of the same bill, and the one transaction that stores an
// import whole. gpucost.CostStore has both.
type Store interface {
	// CostImports lists the imports, oldest first.
	CostImports(ctx context.Context) ([]gpucost.CostImport, error)
	// PutCosts stores an import and its lines in one transaction, first deleting the imports
	// listed in replace; a checksum or identity stored already is an EConflict.
	PutCosts(ctx context.Context, imp gpucost.CostImport, lines iter.Seq[*gpucost.CostLine], replace []int64) (gpucost.CostImport, error)
}

var _ Store = gpucost.CostStore(nil)

// Progress is told the bytes an import reads, and when the file is done: a progress bar.
type Progress interface {
	io.Writer
	Finish() error
}

// Importer is the one way a bill gets into the store — gpucost import billing, POST
// /api/v1/bills and gpucost demo all call Import. For each file it computes the SHA-256, skips
// a file imported before, detects the format, streams the rows through the format's reader
// into an Aggregator, reconciles the reader's totals with the aggregated ones to the cent per
// currency, computes the bill's identity key (gpucost.BillIdentity), refuses another file of
// a bill stored already unless asked to replace it, and stores the import in one transaction.
type Importer struct {
	Store Store
	Now   func() time.Time // the import time stored; time.Now when nil

	// Progress, when set, makes the progress report of a file of size bytes called name.
	Progress func(name string, size int64) Progress
}

// Options say how to import.
type Options struct {
	Format  string        // a format of Formats, or auto (or empty) to detect each file's
	Grain   time.Duration // what lines are summed over: billing.Day when zero, or time.Hour
	Replace bool          // replace an earlier import of the same bill (a restated bill)
	Keep    []string      // FOCUS columns outside the specification to keep and sum by

	// Lenient reads amounts written with a currency symbol and thousands separators and dates
	// in unambiguous forms other than ISO 8601, which are errors otherwise, and says in
	// Result.Coerced how many it rewrote (billing/internal/lenient; FOCUS CSV files).
	Lenient bool

	// Manifests lets a source be an export's manifest, which imports the data files it names
	// from beside it. Only for files a person named on this machine: never for uploads.
	Manifests bool

	NoSource bool // keep no copy of the file for export focus --all (source.go)
}

// Coercion counts the values of one kind a lenient import rewrote (Options.Lenient).
type Coercion = totals.Coercion

// Source is a bill file to import.
type Source struct {
	Path string // where the file lies
	Name string // what messages and the stored import call it; Path when empty
}

// Result is what importing one bill file did.
type Result struct {
	File     string              `json:"file"`
	Format   string              `json:"format"`
	Version  string              `json:"version,omitempty"`
	Rows     int                 `json:"rows"`
	Lines    int                 `json:"lines_stored"`
	Totals   []gpucost.CostTotal `json:"totals"`
	Status   string              `json:"status"` // imported, replaced import N, skipped: imported before (import N)
	ImportID int64               `json:"import_id"`
	Checksum string              `json:"checksum"`
	Identity string              `json:"identity,omitempty"`
	Unknown  []string            `json:"unknown_columns,omitempty"`
	Kept     bool                `json:"unknown_columns_kept,omitempty"` // the Unknown columns were kept as extras
	Coerced  []Coercion          `json:"coerced,omitempty"`              // what Options.Lenient rewrote

	Skipped  bool                 `json:"-"` // the same file was imported before; nothing changed
	Stored   gpucost.CostImport   `json:"-"` // the import stored, if one was
	Replaced []gpucost.CostImport `json:"-"` // the imports it replaced, newest first, for the audit log
}

// ReplaceDetail says for the audit log what a replacing import did; "" when it replaced none.
func (r Result) ReplaceDetail() string {
	if len(r.Replaced) == 0 {
		return ""
	}
	return gpucost.ImportChange(r.Replaced, &r.Stored)
}

// Import imports the sources in order, each whole or not at all, and returns what each did. It
// stops at the first file that fails, returning the results of those before it: they are
// stored. Bad input is an EInvalid error naming the file, line and column; another file of a
// bill stored already is an EConflict unless o.Replace.
func (im *Importer) Import(ctx context.Context, sources []Source, o Options) ([]Result, error) {
	if !IsFormat(o.Format) && o.Format != "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "format %q: use auto, %s", o.Format, strings.Join(Formats(), ", "))
	}
	var out []Result
	for _, src := range sources {
		if src.Name == "" {
			src.Name = src.Path
		}
		files := []Source{src}
		if o.Manifests && sourceIsManifest(src.Path) {
			var err error
			if files, err = manifestFiles(src.Path, src.Name); err != nil {
				return out, err
			}
		}
		for _, f := range files {
			r, err := im.importFile(ctx, f, o)
			if err != nil {
				return out, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

// sourceIsManifest reports whether the file at path starts as a manifest.
func sourceIsManifest(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	first := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, first)
	return isManifest(first[:n])
}

// importFile imports one file.
func (im *Importer) importFile(ctx context.Context, src Source, o Options) (Result, error) {
	res := Result{File: src.Name}
	sum, err := Checksum(src.Path)
	if err != nil {
		return res, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", src.Name, err)
	}
	res.Checksum = sum
	all, err := im.Store.CostImports(ctx)
	if err != nil {
		return res, err
	}
	if p, ok := importOf(all, sum, ""); ok && !o.Replace {
		return skipped(res, p), nil
	}
	format := o.Format
	if format == "" || format == "auto" {
		if format, err = Detect(src.Path, src.Name); err != nil {
			return res, err
		}
	}
	grain := cmp.Or(o.Grain, billing.Day)
	agg := billing.Aggregator{Grain: grain}
	st, err := im.read(src, format, o, &agg)
	if err != nil {
		return res, err
	}
	if err := Reconcile(src.Name, st.CostTotals(), agg.Totals()); err != nil {
		return res, err
	}
	var id gpucost.BillIdentity
	for l := range agg.Lines() {
		id.Add(l)
	}
	res.Identity = id.Key(format, src.Name)
	prev := sameBill(all, sum, res.Identity)
	if len(prev) > 0 && !o.Replace {
		return res, conflict(src.Name, prev[0])
	}
	imp, err := im.store(ctx, gpucost.CostImport{
		Name: src.Name, Checksum: sum, Identity: res.Identity, Format: format, Version: st.Version, Grain: grain,
		Rows: agg.Rows(), Lines: agg.Len(), Totals: agg.Totals(),
	}, &agg, prev)
	if gpucost.ErrorCode(err) == gpucost.EConflict {
		return im.lostRace(ctx, res, err)
	}
	if err != nil {
		return res, fmt.Errorf("import %s: %w", src.Name, err)
	}
	return stored(res, imp, st, prev), im.keepSource(ctx, src, imp, o)
}

// store writes the import and its aggregated lines in one transaction, replacing prev.
func (im *Importer) store(ctx context.Context, imp gpucost.CostImport, agg *billing.Aggregator, prev []gpucost.CostImport) (gpucost.CostImport, error) {
	now := time.Now
	if im.Now != nil {
		now = im.Now
	}
	imp.ImportedAt = now().UTC()
	ids := make([]int64, len(prev))
	for i, p := range prev {
		ids[i] = p.ID
	}
	return im.Store.PutCosts(ctx, imp, agg.Lines(), ids)
}

// stored is res for the import imp just stored from a file the reader described in st,
// replacing prev.
func stored(res Result, imp gpucost.CostImport, st Stats, prev []gpucost.CostImport) Result {
	res.Format, res.Version, res.Rows, res.Lines, res.Totals, res.ImportID =
		imp.Format, imp.Version, imp.Rows, imp.Lines, imp.Totals, imp.ID
	res.Unknown, res.Coerced = st.Unknown, st.Coerced
	if len(res.Unknown) == 0 && len(st.Kept) > 0 {
		res.Unknown, res.Kept = st.Kept, true
	}
	res.Status, res.Stored, res.Replaced = "imported", imp, prev
	if len(prev) > 0 {
		res.Status = fmt.Sprintf("replaced import %d", prev[0].ID)
	}
	return res
}

// read streams the file through its format's reader into agg, with progress by bytes.
func (im *Importer) read(src Source, format string, o Options, agg *billing.Aggregator) (Stats, error) {
	rd := formats[format]
	f, err := os.Open(src.Path)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", src.Name, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", src.Name, err)
	}
	var bar io.Writer = io.Discard
	if im.Progress != nil {
		p := im.Progress(src.Name, info.Size())
		defer p.Finish()
		bar = p
	}
	emit := func(l *gpucost.CostLine) error { agg.Add(l); return nil }
	head := make([]byte, 4)
	n, _ := f.ReadAt(head, 0)
	if bytes.Equal(head[:n], parquetMagic) {
		if rd.parquet == nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %s bills do not come as Parquet; is --format right?", src.Name, format)
		}
		return rd.parquet(progressReaderAt{f, bar}, info.Size(), src.Name, o, emit)
	}
	return rd.read(io.TeeReader(f, bar), src.Name, o, emit)
}

// progressReaderAt counts the bytes a Parquet reader reads on a progress report.
type progressReaderAt struct {
	r   io.ReaderAt
	bar io.Writer
}

func (p progressReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := p.r.ReadAt(b, off)
	p.bar.Write(b[:n])
	return n, err
}

// Checksum returns the SHA-256 of the file at path, in hex: what identifies a file imported
// before.
func Checksum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Reconcile checks that the aggregated totals equal the reader's sums of the source rows, to
// the cent (to the nano-unit) in every currency.
func Reconcile(name string, source, stored []gpucost.CostTotal) error {
	if slices.Equal(source, stored) {
		return nil
	}
	return gpucost.Errorf(gpucost.EInternal, "import %s: aggregated totals %v differ from the source rows' %v; nothing was stored", name, stored, source)
}

// skipped is res for a file imported before as p: nothing changes.
func skipped(res Result, p gpucost.CostImport) Result {
	res.Status, res.ImportID, res.Format, res.Version, res.Rows, res.Lines, res.Totals, res.Identity, res.Skipped =
		fmt.Sprintf("skipped: imported before (import %d)", p.ID), p.ID, p.Format, p.Version, p.Rows, p.Lines, p.Totals, p.Identity, true
	return res
}

// conflict is the EConflict of importing name, other content than p, which is the same bill.
func conflict(name string, p gpucost.CostImport) error {
	return gpucost.Errorf(gpucost.EConflict, "import %s: a bill with the same identity (format, provider, billing accounts, billing periods and file name) was imported on %s as import %d (%s); if the provider restated the bill, an admin may replace it with --replace (gpucost import billing --replace, or replace=true with an admin token)",
		name, p.ImportedAt.Format(time.DateOnly), p.ID, p.Name)
}

// lostRace answers a conflict the store found within its transaction: another import of the
// same file or bill landed between the look-up and the store. The same file is skipped, as if it
// had been there before; another file of the same bill is a conflict with the usual advice.
func (im *Importer) lostRace(ctx context.Context, res Result, cerr error) (Result, error) {
	all, err := im.Store.CostImports(ctx)
	if err != nil {
		return res, cerr
	}
	if p, ok := importOf(all, res.Checksum, ""); ok {
		return skipped(res, p), nil
	}
	if p, ok := importOf(all, "", res.Identity); ok {
		return res, conflict(res.File, p)
	}
	return res, cerr
}

// importOf returns the newest import of all with checksum sum or identity key (either may be
// empty, matching nothing).
func importOf(all []gpucost.CostImport, sum, key string) (gpucost.CostImport, bool) {
	for _, imp := range slices.Backward(all) {
		if (sum != "" && imp.Checksum == sum) || (key != "" && imp.Identity == key) {
			return imp, true
		}
	}
	return gpucost.CostImport{}, false
}

// sameBill returns the imports of all with checksum sum or identity key, newest first: what a
// replace replaces. Imports stored without an identity match by checksum only.
func sameBill(all []gpucost.CostImport, sum, key string) []gpucost.CostImport {
	var out []gpucost.CostImport
	for _, imp := range slices.Backward(all) {
		if imp.Checksum == sum || (imp.Identity != "" && imp.Identity == key) {
			out = append(out, imp)
		}
	}
	return out
}
