package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/internal/storeopen"
)

// demoFiles are where the demo writes the files people open: beside a SQLite store, and in the
// temporary folder for a PostgreSQL one.
func (e *env) demoFiles() demo.Files {
	return demo.FilesFor(e.dbPath, storeopen.IsPostgres(e.dbPath))
}

// loadDemoBill writes the demo fleet's AWS bill of load as a FOCUS 1.2 file, ties the
// instances to their hosts, and imports the bill through the same path as gpucost import
// billing.
func (e *env) loadDemoBill(ctx context.Context, db storeDB, load demo.Load, fleet []demo.Instance) error {
	files := e.demoFiles()
	if err := load.WriteBill(ctx, db, files.Bill, fleet); err != nil {
		return err
	}
	if _, _, err := db.PutInventory(ctx, demo.Inventory(fleet)); err != nil {
		return err
	}
	all, err := e.importDemoBill(ctx, db, files.Bill)
	if err != nil {
		return err
	}
	for _, t := range all[0].Totals {
		fmt.Fprintf(e.stderr, "Imported the demo bill %s: %d FOCUS rows, %s %s billed.\n", files.Bill, all[0].Rows, t.Currency, t.BilledCost.Fixed(2))
	}
	return nil
}

// importDemoBill imports the demo's FOCUS bill at path as gpucost import billing --replace
// would: a demo run again replaces the bill of the run before.
func (e *env) importDemoBill(ctx context.Context, db storeDB, path string) ([]billimport.Result, error) {
	return e.importBills(ctx, db, []billimport.Source{{Path: path, Name: path}}, billimport.Options{Format: "focus", Replace: true})
}
