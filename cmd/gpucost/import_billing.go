package main

import (
	"context"
	"errors"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// importBillingFlags are gpucost import billing's flags.
type importBillingFlags struct {
	format, grain    string
	replace, lenient bool
	partial          bool
	noSource         bool
	keep             []string
}

func newImportBillingCmd(e *env) *cobra.Command {
	var f importBillingFlags
	cmd := &cobra.Command{
		Use:   "billing FILE|DIR|URL...",
		Short: "Import cloud bills: FOCUS, AWS CUR 2.0, GCP and Azure cost exports",
		Long: `billing reads cloud bills and stores them aggregated per day × resource × SKU × pricing
category × tag set (--grain hour keeps hours). Formats, detected from the content with
--format auto: FOCUS 1.0–1.3 (CSV, gzip CSV, Parquet), AWS CUR 2.0 and legacy CUR (CSV,
Parquet), the GCP billing export to BigQuery (newline-delimited JSON or flattened CSV) and
Azure cost details exports (actual or amortised CSV). A directory is read recursively. An AWS
Data Exports or CUR manifest (…-Manifest.json) imports the data files it names, found beside it
in a copy of the export's folder.

A bucket prefix is read where the bills land (docs/bill-sources.md): s3://BUCKET/PREFIX (AWS
Data Exports, CUR 2.0 and FOCUS, through their manifests; credentials from AWS_ACCESS_KEY_ID,
AWS_PROFILE in ~/.aws/credentials or the EC2 instance role), azure://ACCOUNT/CONTAINER/PREFIX or
https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX (Azure cost exports;
AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN) and
gs://BUCKET/PREFIX (files a BigQuery export wrote; GS_ACCESS_KEY_ID and GS_SECRET_ACCESS_KEY,
an HMAC key). Only the current delivery of each export's billing period is imported; one stored
before is skipped, and a newer delivery of the same export and period (a restatement) replaces
the stored one by itself; --replace also replaces the stored imports from elsewhere (a hand
import of the same bill) that a delivery overlaps.

All the files given, or found in a directory, are read and checked first and then stored in
ONE transaction: they land whole or not at all. Every file gets a status line: imported (import
N), replaced import N, skipped (imported before, the same bytes as another file of the batch,
or not a bill: .svg, .txt, a manifest in a directory), refused (why, with file:line: column N
(name) for bad values) or not stored (another file was refused; then nothing is stored and the
exit status is non-zero). --output json gives the same list.

A bill is identified by what it bills, never by its file's name or path: each import records
its providers, billing accounts, billing periods and the (billing account, billing period)
pairs its lines cover. A file imported before (same SHA-256) is skipped. A bill covering a pair
that a stored import covers — a restated bill, the full export after a partial one, the same
bill under another name — is refused, naming the earlier import, so nothing is counted twice:
--replace replaces every import it overlaps (recorded in the audit log), or gpucost import
remove ID takes the earlier one out. The parts of one export given together are one import:
the data files a manifest names, and files of one folder and format whose names differ only in
a trailing part number (cur2-00001.csv.gz, cur2-00002.csv.gz) when they cover a common pair;
any other two files of one batch covering a common pair are refused as ambiguous. --replace
of an export stored in several parts takes all of them out, so it is refused, naming the
import and its parts, when the new files are fewer than the parts (and not an export's
manifest, which names a whole delivery) or leave one of its (billing account, billing period)
pairs uncovered: import every part together (gpucost import billing --replace DIR), or add
--partial when the smaller bill is the whole restatement. An upload to
gpucost serve (POST /api/v1/bills) is checked the same way, and the store refuses a second
import of a pair or a checksum even when both run at once. gpucost import list lists the
imports and what they cover. For each file it prints the rows read and the BilledCost and
EffectiveCost totals per currency, which it checks against the source rows' own sums to the
cent before storing anything.

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
  gpucost import billing --lenient focus-from-a-spreadsheet.csv
  gpucost import billing s3://billing-bucket/exports/
  gpucost import billing azure://costsacct/exports/gpu-actual
  gpucost import billing jan.csv feb.csv mar.csv
  gpucost import list`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error { return e.importBilling(cmd.Context(), f, args) },
	}
	cmd.Flags().StringVar(&f.format, "format", "auto", "bill format: auto, "+strings.Join(billimport.Formats(), ", "))
	cmd.Flags().StringVar(&f.grain, "grain", "day", "aggregation grain: day or hour")
	cmd.Flags().BoolVar(&f.replace, "replace", false, "replace every earlier import covering one of the bill's (billing account, billing period) pairs, or holding the same file; recorded in the audit log")
	cmd.Flags().BoolVar(&f.partial, "partial", false, "with --replace: replace an export stored in several parts with fewer files, or with files that cover fewer of its (billing account, billing period) pairs; refused without it")
	cmd.Flags().BoolVar(&f.lenient, "lenient", false, "read amounts with a currency symbol and thousands separators ($10,000.00) and unambiguous non-ISO dates (2025/10/01, RFC 1123), and say how many were coerced")
	cmd.Flags().BoolVar(&f.noSource, "no-source", false, "keep no compressed copy of the file in the store (export focus --all then cannot give its rows back)")
	cmd.Flags().StringSliceVar(&f.keep, "keep-columns", nil, "FOCUS columns outside the specification (x_Team, …) to keep and sum by; the others are not read, so a column unique per row (Id) does not stop rows summing")
	return cmd
}

// importBilling imports the bills under paths into the store and prints what each file gave.
func (e *env) importBilling(ctx context.Context, f importBillingFlags, paths []string) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	g, err := billing.ParseGrain(f.grain)
	if err != nil {
		return err
	}
	if f.partial && !f.replace {
		return usageError{errors.New("--partial needs --replace: it lets a replace cover less than the export it replaces; add --replace, or drop --partial")}
	}
	if !billimport.IsFormat(f.format) {
		return gpucost.Errorf(gpucost.EInvalid, "--format %q: use auto, %s", f.format, strings.Join(billimport.Formats(), ", "))
	}
	urls, paths := cloudsource.SplitURLs(paths)
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
	o := billimport.Options{Format: f.format, Grain: g, Replace: f.replace, Partial: f.partial, Keep: f.keep, Lenient: f.lenient, Manifests: true, NoSource: f.noSource}
	var all []billimport.Result
	if len(sources) > 0 {
		all, err = e.importBills(ctx, db, sources, o)
	}
	if err == nil && len(urls) > 0 {
		var pulled []billimport.Result
		pulled, err = e.pullBills(ctx, db, urls, o)
		all = append(all, pulled...)
	}
	if len(all) > 0 {
		// Every file's status, refused ones included; the error then sets the exit status.
		if perr := e.print(present.BillImports(all)); err == nil {
			err = perr
		}
	}
	return err
}

// importGCPercent is the garbage collector's target while importing bills (GOGC).
const importGCPercent = 50

// billImporter is the importer of every bill that reaches store: gpucost import billing's, the
// server's and the demo's. It shows a progress bar by bytes on stderr, which the server turns
// off.
func (e *env) billImporter(store billimport.Store) *billimport.Importer {
	return &billimport.Importer{Store: store, Now: e.now,
		Progress: func(name string, size int64) billimport.Progress {
			return e.progress(size, filepath.Base(name), true)
		}}
}

// importBills imports the sources into store and records each replacement in the audit log,
// once per import (the parts of one export share theirs).
func (e *env) importBills(ctx context.Context, store billimport.Store, sources []billimport.Source, o billimport.Options) ([]billimport.Result, error) {
	all, err := e.billImporter(store).Import(ctx, sources, o)
	for _, a := range billimport.Replacements(all) {
		if aerr := e.audit(ctx, store, a.Action, a.Target, a.Detail); aerr != nil {
			return all, aerr
		}
	}
	return all, err
}
