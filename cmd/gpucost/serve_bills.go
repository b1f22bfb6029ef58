package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/httpapi"
)

// serverBills imports the bills uploaded to POST /api/v1/bills through the importer gpucost
// import billing uses (billimport.Importer), one at a time in this process (the store itself
// refuses a second import of one bill from another process or server), and removes them for
// DELETE /api/v1/bills/{id}.
type serverBills struct {
	e     *env
	store gpucost.CostStore
	views *storeViews
	dir   string // the SQLite file's folder; empty for PostgreSQL

	mu sync.Mutex
}

var _ httpapi.BillImporter = (*serverBills)(nil)

// ImportBill imports the spooled file at path as the bill o names, at daily grain, with no
// progress bar in the server's log; httpapi records a replacement in the audit log.
func (b *serverBills) ImportBill(ctx context.Context, path string, o httpapi.BillOptions) (httpapi.BillImport, error) {
	if !billimport.IsFormat(o.Format) {
		return httpapi.BillImport{}, gpucost.Errorf(gpucost.EInvalid, "parameter format=%q: use auto, %s", o.Format, strings.Join(billimport.Formats(), ", "))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	im := b.e.billImporter(b.store)
	im.Progress = nil
	all, err := im.Import(ctx, []billimport.Source{{Path: path, Name: o.Name}}, billimport.Options{Format: o.Format, Replace: o.Replace, Lenient: o.Lenient})
	if err != nil {
		return httpapi.BillImport{}, err
	}
	r := all[0]
	if !r.Skipped && b.views != nil {
		b.views.forget()
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
func (b *serverBills) RemoveBill(ctx context.Context, id int64) (gpucost.CostImport, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	imp, err := b.store.RemoveCosts(ctx, id)
	if err == nil && b.views != nil {
		b.views.forget()
	}
	return imp, err
}

// ParquetDecodedSize returns what the Parquet bill at path holds once decompressed.
func (b *serverBills) ParquetDecodedSize(path string) (int64, error) {
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
func (b *serverBills) StoreDir() string { return b.dir }

// addViews gives srv the read API's views, the bill importer and the budget store over db.
func (e *env) addViews(srv *httpapi.Server, db storeDB, o serveOptions, log *slog.Logger) {
	views := e.newStoreViews(db, o, log)
	srv.Views = views
	bills := &serverBills{e: e, store: db, views: views}
	if !isPostgresURL(e.dbPath) && e.dbPath != "" {
		bills.dir = filepath.Dir(e.dbPath)
	}
	srv.Bills, srv.Imports = bills, db
	srv.MaxBill = o.maxBill
	srv.Budgets = &serverBudgets{db: db, file: o.budgets, views: views}
}

// parseSize parses a size in bytes: 2GiB, 512MiB, 100MB, 4096.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		n      int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range units {
		if n, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(n), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v >= 1) || v*float64(mult) > 1<<50 {
		return 0, fmt.Errorf("use a size such as 2GiB, 500MiB or 100MB")
	}
	return int64(v * float64(mult)), nil
}
