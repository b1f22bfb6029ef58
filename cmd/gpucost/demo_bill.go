package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

// printDemoSpend prints the demo bill's spend by team, idle apart, reconciled with the bill.
func (e *env) printDemoSpend(ctx context.Context, end time.Time, days int) error {
	f := costFlags{period: period{since: strconv.Itoa(days) + "d", until: end.Format(time.RFC3339)}, policy: gpucost.PolicyUsed, weight: 0.5}
	s, err := f.open(ctx, e)
	if err != nil {
		return err
	}
	defer s.Close()
	key, _ := costKey("team")
	groups := newCostGroups("team", s.from, s.to)
	if err := s.each(ctx, func(a *gpucost.Allocation, gpu catalog.LineGPU, _ bool) { groups.add(key(a, gpu), a) }); err != nil {
		return err
	}
	r := costResult("team", groups, s)
	var idle, all int64
	for _, g := range groups.groups {
		idle += g.IdleCost.Nanos
		all += g.total()
	}
	r.Title = fmt.Sprintf("\nSpend by team from the demo bill (%s): %s, of which %s (%s) bought GPU time nobody used.\n"+
		"GPU instances are split by telemetry: busy time (held × utilisation) is charged to the teams, the rest is Idle.",
		filepath.Base(e.demoBillPath()), gpucost.USD(all).Dollars(), gpucost.USD(idle).Dollars(), percentOf(idle, all))
	if saving, err := e.demoSavings(ctx, f); err == nil {
		r.Notes = append(r.Notes, "", saving)
	} else {
		return err
	}
	r.Notes = append(r.Notes, "",
		"Next: gpucost report cost --db "+e.dbPath+" --by namespace --gpu-only",
		"      gpucost report savings --db "+e.dbPath+"   # and gpucost recommend: the changes behind it",
		"      gpucost recommend --db "+e.dbPath+" --serving "+servingFile(e)+"   # the serving pool sized by its requests",
		"      gpucost report kpi --db "+e.dbPath+" --by team",
		"      gpucost report untagged --db "+e.dbPath,
		"      gpucost export focus --db "+e.dbPath+" --allocated --out allocated.csv")
	return e.print(r)
}

// demoSavings says what the recommendations would save on the demo fleet, from its bill and
// telemetry.
func (e *env) demoSavings(ctx context.Context, f costFlags) (string, error) {
	rep, err := e.savings(ctx, &recommendFlags{costFlags: f, minSaving: "100"})
	if err != nil {
		return "", err
	}
	var levers []string
	for _, l := range rep.Levers {
		if l.MonthlySaving.Nanos > 0 {
			levers = append(levers, fmt.Sprintf("%s %s", l.Lever, l.MonthlySaving.Dollars()))
		}
	}
	return fmt.Sprintf("Recommendations would take the GPU bill from %s to %s a month (−%.1f%%): %s.",
		rep.Before.Dollars(), rep.After.Dollars(), rep.SavingPercent, strings.Join(levers, ", ")), nil
}
