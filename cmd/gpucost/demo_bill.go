package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/demo"
)

// demoFile is where the demo writes the file it names with suffix, for people to open: beside a
// SQLite store, and in the temporary folder for a PostgreSQL one.
func (e *env) demoFile(suffix string) string {
	base := strings.TrimSuffix(e.dbPath, filepath.Ext(e.dbPath))
	if isPostgresURL(e.dbPath) {
		base = filepath.Join(os.TempDir(), "gpucost-demo")
	}
	return base + suffix
}

// demoBillPath is where the demo writes its FOCUS bill.
func (e *env) demoBillPath() string { return e.demoFile("-bill.focus.csv") }

// loadDemoBill writes the demo fleet's AWS bill for [from, end) as a FOCUS 1.2 file, imports it
// through the same path as gpucost import billing, and ties the instances to their hosts.
func (e *env) loadDemoBill(ctx context.Context, db storeDB, fleet []demo.Instance, from, end time.Time) error {
	cat, err := catalog.Load(ctx, db)
	if err != nil {
		return err
	}
	price := func(instanceType string) (gpucost.Money, bool) {
		for _, o := range cat.Offers() {
			if o.Provider == "aws" && o.Region == "us-east-1" && o.InstanceType == instanceType && o.HasOnDemand {
				return o.OnDemand, true
			}
		}
		return gpucost.Money{}, false
	}
	path := e.demoBillPath()
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("write the demo bill: %w", err)
	}
	defer f.Close()
	w, err := focus.NewWriter(f, focus.WriterOptions{Format: focus.CSV})
	if err != nil {
		return err
	}
	if err := demo.Bill(fleet, from, end, price, w.Write); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("write the demo bill: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write the demo bill: %w", err)
	}
	if _, _, err := db.PutInventory(ctx, demo.Inventory(fleet)); err != nil {
		return err
	}
	all, err := e.importDemoBill(ctx, db, path)
	if err != nil {
		return err
	}
	for _, t := range all[0].Totals {
		fmt.Fprintf(e.stderr, "Imported the demo bill %s: %d FOCUS rows, %s %s billed.\n", path, all[0].Rows, t.Currency, t.BilledCost.Fixed(2))
	}
	return e.writeDemoServing(fleet, from, end)
}

// importDemoBill imports the demo's FOCUS bill at path as gpucost import billing --replace
// would: a demo run again replaces the bill of the run before.
func (e *env) importDemoBill(ctx context.Context, db storeDB, path string) ([]billimport.Result, error) {
	return e.importBills(ctx, db, []billimport.Source{{Path: path, Name: path}}, billimport.Options{Format: "focus", Replace: true})
}
