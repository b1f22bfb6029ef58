package server

import (
	"context"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/httpapi"
)

// Bills imports the bills uploaded to POST /api/v1/bills through the importer gpucost import
// billing uses (billimport.Importer), one at a time in this process (the store itself refuses a
// second import of one bill from another process or server), and removes them for DELETE
// /api/v1/bills/{id}.
type Bills struct {
	Store gpucost.CostStore
	Now   func() time.Time // when an import happened; time.Now when nil
	Dir   string           // the SQLite file's folder; empty for PostgreSQL

	views *Views // forgotten after a change, so it shows at once; nil for none
	mu    sync.Mutex
}

var _ httpapi.BillImporter = (*Bills)(nil)

// ImportBill imports the spooled file at path as the bill o names, at daily grain, with no
// progress bar in the server's log; httpapi records a replacement in the audit log.
func (b *Bills) ImportBill(ctx context.Context, path string, o httpapi.BillOptions) (httpapi.BillImport, error) {
	if !billimport.IsFormat(o.Format) {
		return httpapi.BillImport{}, gpucost.Errorf(gpucost.EInvalid, "parameter format=%q: use auto, %s", o.Format, strings.Join(billimport.Formats(), ", "))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	now := b.Now
	if now == nil {
		now = time.Now
	}
	im := &billimport.Importer{Store: b.Store, Now: now}
	all, err := im.Import(ctx, []billimport.Source{{Path: path, Name: o.Name}}, billimport.Options{Format: o.Format, Replace: o.Replace, Lenient: o.Lenient})
	if err != nil {
		return httpapi.BillImport{}, err
	}
	r := all[0]
	if !r.Skipped && b.views != nil {
		b.views.Forget()
	}
	return httpapi.BillImport{Name: o.Name, Format: r.Format, Version: r.Version, Rows: r.Rows, Lines: r.Lines,
		Totals: r.Totals, Status: r.Status, Unchanged: r.Skipped, ImportID: r.ImportID, Unknown: r.Unknown,
		Coerced: billCoercions(r.Coerced), Replaced: r.Replaced}, nil
}

// billCoercions is what a lenient import rewrote, as the upload's answer says it.
func billCoercions(cs []billimport.Coercion) []httpapi.BillCoercion {
	var out []httpapi.BillCoercion
	for _, c := range cs {
		out = append(out, httpapi.BillCoercion{Kind: c.Kind, How: c.How, Columns: c.Columns, Count: c.Count, Summary: c.String()})
	}
	return out
}

// RemoveBill removes the import id and its lines.
func (b *Bills) RemoveBill(ctx context.Context, id int64) (gpucost.CostImport, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	imp, err := b.Store.RemoveCosts(ctx, id)
	if err == nil && b.views != nil {
		b.views.Forget()
	}
	return imp, err
}

// ParquetDecodedSize returns what the Parquet bill at path holds once decompressed.
func (b *Bills) ParquetDecodedSize(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return billing.ParquetDecodedSize(f, info.Size())
}

// StoreDir is the folder of the SQLite file bills are stored in, whose free space the server
// checks before it imports one; empty for PostgreSQL.
func (b *Bills) StoreDir() string { return b.Dir }
