package main

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// importBillingFlags are gpucost import billing's flags.
type importBillingFlags struct {
	format, grain    string
	replace, lenient bool
	keep             []string
}

func newImportBillingCmd(e *env) *cobra.Command {
	var f importBillingFlags
	cmd := &cobra.Command{
		Use:   "billing FILE|DIR...",
		Short: "Import cloud bills: FOCUS, AWS CUR 2.0, GCP and Azure cost exports",
		Long: `billing reads cloud bills and stores them aggregated per day × resource × SKU × pricing
category × tag set (--grain hour keeps hours). Formats, detected from the content with
--format auto: FOCUS 1.0–1.3 (CSV, gzip CSV, Parquet), AWS CUR 2.0 and legacy CUR (CSV,
Parquet), the GCP billing export to BigQuery (newline-delimited JSON or flattened CSV) and
Azure cost details exports (actual or amortised CSV). A directory is read recursively. An AWS
Data Exports or CUR manifest (…-Manifest.json) imports the data files it names, found beside it
in a copy of the export's folder.

Each file lands whole or not at all. A file imported before (same SHA-256) is skipped. Other
content of the same bill — a bill the provider restated — is refused, so nothing is counted
twice: --replace replaces the earlier import with it (recorded in the audit log). A bill is
identified by a key computed from what the file holds, never from where it lies: the format,
the providers, the billing accounts and the billing periods its lines cover, and the export's
base file name without .gz (so the parts of one multi-part CUR export stay distinct, while a
restated bill, which providers deliver under the same name, is the same bill). An upload to
gpucost serve (POST /api/v1/bills) computes the same key, and the store refuses a second
import of a key or a checksum even when both run at once. gpucost bills lists the imports and
removes one. For each file it prints the rows read and the BilledCost and EffectiveCost totals
per currency, which it checks against the source rows' own sums to the cent before storing
anything.

A FOCUS file's nulls are empty fields or the word NULL in any case (null, Null). A value that
is not of its column's kind stops the import with file:line: column N (name). Amounts written
with a currency symbol and thousands separators ($10,000.00) and dates in a form other than ISO
8601 (2025/10/01, RFC 1123) are such errors; --lenient reads them (FOCUS CSV files) and says
how many it coerced, per kind and column. An amount whose symbol is not the row's billing
currency, and a date such as 01/02/2025 (day/month or month/day), stay errors.`,
		Example: `  gpucost import billing focus-2026-10.csv
  gpucost import billing --format aws-cur exports/cur2/data/BILLING_PERIOD=2026-10/
  gpucost import billing exports/cur2/metadata/BILLING_PERIOD=2026-10/cur2-Manifest.json
  gpucost import billing --replace --grain hour gcp_billing_export.jsonl
  gpucost import billing --lenient focus-from-a-spreadsheet.csv`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return e.importBilling(cmd.Context(), f, args) },
	}
	cmd.Flags().StringVar(&f.format, "format", "auto", "bill format: auto, "+strings.Join(billimport.Formats(), ", "))
	cmd.Flags().StringVar(&f.grain, "grain", "day", "aggregation grain: day or hour")
	cmd.Flags().BoolVar(&f.replace, "replace", false, "replace an earlier import of the same bill (same content or same identity key); recorded in the audit log")
	cmd.Flags().BoolVar(&f.lenient, "lenient", false, "read amounts with a currency symbol and thousands separators ($10,000.00) and unambiguous non-ISO dates (2025/10/01, RFC 1123), and say how many were coerced")
	cmd.Flags().StringSliceVar(&f.keep, "keep-columns", nil, "FOCUS columns outside the specification (x_Team, …) to keep and sum by; the others are not read, so a column unique per row (Id) does not stop rows summing")
	return cmd
}

// importBilling imports the bills under paths into the store and prints what each file gave.
func (e *env) importBilling(ctx context.Context, f importBillingFlags, paths []string) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	g, err := parseGrain(f.grain)
	if err != nil {
		return err
	}
	if !billimport.IsFormat(f.format) {
		return gpucost.Errorf(gpucost.EInvalid, "--format %q: use auto, %s", f.format, strings.Join(billimport.Formats(), ", "))
	}
	sources, err := billimport.Sources(paths...)
	if err != nil {
		return err
	}
	// What an import holds is its aggregated lines; collecting garbage at 1.5× of them
	// rather than the default 2× keeps a 10 M-row file under 200 MB at no cost in speed.
	defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	all, err := e.importBills(ctx, db, sources, billimport.Options{Format: f.format, Grain: g, Replace: f.replace, Keep: f.keep, Lenient: f.lenient, Manifests: true})
	if err != nil {
		return err
	}
	return e.print(present.BillImports(all))
}

// importGCPercent is the garbage collector's target while importing bills (GOGC).
const importGCPercent = 50

func parseGrain(s string) (time.Duration, error) {
	switch s {
	case "day":
		return billing.Day, nil
	case "hour":
		return time.Hour, nil
	}
	return 0, gpucost.Errorf(gpucost.EInvalid, "--grain %q: use day or hour", s)
}

// billImporter is the importer of every bill that reaches store: gpucost import billing's, the
// server's and the demo's. It shows a progress bar by bytes on stderr, which the server turns
// off.
func (e *env) billImporter(store billimport.Store) *billimport.Importer {
	return &billimport.Importer{Store: store, Now: e.now,
		Progress: func(name string, size int64) billimport.Progress {
			return e.progress(size, filepath.Base(name), true)
		}}
}

// importBills imports the sources into store and records each replacement in the audit log.
func (e *env) importBills(ctx context.Context, store billimport.Store, sources []billimport.Source, o billimport.Options) ([]billimport.Result, error) {
	all, err := e.billImporter(store).Import(ctx, sources, o)
	for _, r := range all {
		if detail := r.ReplaceDetail(); detail != "" {
			target := fmt.Sprintf("import %d (%s)", r.ImportID, r.File)
			if aerr := e.audit(ctx, store, gpucost.AuditBillReplace, target, detail); aerr != nil {
				return all, aerr
			}
		}
	}
	return all, err
}
