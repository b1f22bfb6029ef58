// Package billimport is the one way a bill gets into the store: gpucost import billing, the
// server's POST /api/v1/bills and gpucost demo all call Importer.Import, which detects each
// file's format, picks its reader from one registry (Formats), checksums and dedupes it against
// what is stored, streams and aggregates its rows (billing.Aggregator), reconciles the reader's
// totals with the aggregated ones to the cent per currency, and stores the import in one
// transaction.
package billimport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/internal/totals"
)

// Store is what importing needs of a store: the imports made so far, to skip a file imported
// before and refuse another bill of a stored account's period, and the one transaction that
// stores a batch of imports whole. gpucost.CostStore has both.
type Store interface {
	// CostImports lists the imports, oldest first.
	CostImports(ctx context.Context) ([]gpucost.CostImport, error)
	// PutCostBatch stores imports in one transaction, each first deleting the imports it
	// replaces; a checksum, identity or (account, period) stored already is an EConflict.
	PutCostBatch(ctx context.Context, puts []gpucost.CostPut) ([]gpucost.CostImport, error)
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
// currency and computes what the bill covers (gpucost.BillIdentity); then it refuses a bill
// that covers a stored import's (billing account, billing period) unless asked to replace it,
// and stores every import of the batch in one transaction (batch.go).
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

	// Partial lets Replace replace a stored multi-part import with less than the whole of it:
	// fewer files than its parts, or files that leave one of its (billing account, billing
	// period) pairs uncovered. Without it that replace is refused (replace_parts.go), since it
	// would drop the other parts' lines.
	Partial bool

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
	Skip string // why the file is passed over (not a bill: .svg); empty to import it

	// Export names the manifest that lists the file as a part of one export: the parts of one
	// export become one import.
	Export string
}

// Result is what importing one bill file did.
type Result struct {
	File     string              `json:"file"`
	Format   string              `json:"format"`
	Version  string              `json:"version,omitempty"`
	Rows     int                 `json:"rows"`
	Lines    int                 `json:"lines_stored"`
	Totals   []gpucost.CostTotal `json:"totals"`
	Status   string              `json:"status"` // imported, replaced import N, skipped: why, refused: why, not stored: why
	ImportID int64               `json:"import_id"`
	Checksum string              `json:"checksum"`
	Identity string              `json:"identity,omitempty"`
	Unknown  []string            `json:"unknown_columns,omitempty"`
	Kept     bool                `json:"unknown_columns_kept,omitempty"` // the Unknown columns were kept as extras
	Coerced  []Coercion          `json:"coerced,omitempty"`              // what Options.Lenient rewrote

	Parts []string `json:"parts,omitempty"` // the files of the one export this file was imported with

	// Uncovered are the (account, period) pairs the imports it replaced covered and no file of
	// the batch does: replacing took them out of the store.
	Uncovered []gpucost.BillCoverage `json:"uncovered,omitempty"`

	Skipped  bool                 `json:"-"` // the file was passed over or imported before; nothing changed
	Err      error                `json:"-"` // why the file was refused
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

// read streams the file through its format's reader into agg, with progress by bytes, until
// stop reports true, when it returns errStopped.
func (im *Importer) read(src Source, format string, o Options, agg *billing.Aggregator, stop func() bool) (Stats, error) {
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
	emit := func(l *gpucost.CostLine) error {
		if stop() {
			return errStopped
		}
		agg.Add(l)
		return nil
	}
	head := make([]byte, 4)
	n, _ := f.ReadAt(head, 0)
	if bytes.Equal(head[:n], parquetMagic) {
		if rd.parquet == nil {
			return Stats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %s bills do not come as Parquet; is --format right?", src.Name, format)
		}
		return rd.parquet(progressReaderAt{f, bar}, info.Size(), src.Name, o, emit)
	}
	if n := splitParts(info.Size()); rd.split && n > 1 {
		bars := &lockedWriter{w: bar}
		if st, ok := readSplit(progressReaderAt{f, bars}, info.Size(), src.Name, rd, o, agg, n, stop); ok {
			return st, nil
		}
		if stop() {
			return Stats{}, errStopped
		}
		*agg = billing.Aggregator{Grain: agg.Grain} // the one reader's read below is what counts
	}
	return rd.read(io.TeeReader(f, bar), src.Name, o, emit)
}

// lockedWriter serialises the writes of the parts of a file read side by side to its progress.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
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
