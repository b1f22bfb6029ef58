package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
	"github.com/spf13/cobra"
)

// billStats is what importing one bill file did.
type billStats struct {
	File     string              `json:"file"`
	Format   string              `json:"format"`
	Version  string              `json:"version,omitempty"`
	Rows     int                 `json:"rows"`
	Lines    int                 `json:"lines_stored"`
	Totals   []gpucost.CostTotal `json:"totals"`
	Status   string              `json:"status"` // imported, replaced, skipped
	ImportID int64               `json:"import_id"`
	Unknown  []string            `json:"unknown_columns,omitempty"`
	Kept     bool                `json:"unknown_columns_kept,omitempty"`

	stored   gpucost.CostImport   // the import stored, if one was
	replaced []gpucost.CostImport // the imports it replaced, for the audit log
}

func newImportBillingCmd(e *env) *cobra.Command {
	var (
		format  string
		grain   string
		replace bool
		keep    []string
	)
	cmd := &cobra.Command{
		Use:   "billing FILE|DIR...",
		Short: "Import cloud bills: FOCUS, AWS CUR 2.0, GCP and Azure cost exports",
		Long: `billing reads cloud bills and stores them aggregated per day × resource × SKU × pricing
category × tag set (--grain hour keeps hours). Formats, detected from the content with
--format auto: FOCUS 1.0–1.3 (CSV, gzip CSV, Parquet), AWS CUR 2.0 and legacy CUR (CSV,
Parquet), the GCP billing export to BigQuery (newline-delimited JSON or flattened CSV) and
Azure cost details exports (actual or amortised CSV). A directory is read recursively.

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
anything.`,
		Example: `  gpucost import billing focus-2026-10.csv
  gpucost import billing --format aws-cur exports/cur2/data/BILLING_PERIOD=2026-10/
  gpucost import billing --replace --grain hour gcp_billing_export.jsonl`,
		Args: usageArgs(cobra.MinimumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			g, err := parseGrain(grain)
			if err != nil {
				return err
			}
			if _, ok := billReaders[format]; !ok && format != "auto" {
				return gpucost.Errorf(gpucost.EInvalid, "--format %q: use auto, %s", format, strings.Join(billFormats(), ", "))
			}
			files, err := billFiles(args)
			if err != nil {
				return err
			}
			// What an import holds is its aggregated lines; collecting garbage at 1.5× of them
			// rather than the default 2× keeps a 10 M-row file under 200 MB at no cost in speed.
			defer debug.SetGCPercent(debug.SetGCPercent(importGCPercent))
			ctx := cmd.Context()
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			var all []billStats
			for _, name := range files {
				st, err := e.importBill(ctx, db, name, format, g, replace, keep...)
				if err != nil {
					return err
				}
				all = append(all, st)
			}
			return e.print(billImportResult(all))
		},
	}
	cmd.Flags().StringVar(&format, "format", "auto", "bill format: auto, "+strings.Join(billFormats(), ", "))
	cmd.Flags().StringVar(&grain, "grain", "day", "aggregation grain: day or hour")
	cmd.Flags().BoolVar(&replace, "replace", false, "replace an earlier import of the same bill (same content or same identity key); recorded in the audit log")
	cmd.Flags().StringSliceVar(&keep, "keep-columns", nil, "FOCUS columns outside the specification (x_Team, …) to keep and sum by; the others are not read, so a column unique per row (Id) does not stop rows summing")
	return cmd
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

// billFiles expands directories into the bill files they hold, in name order.
func billFiles(args []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		info, err := os.Stat(arg)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", arg, err)
		}
		if !info.IsDir() {
			out = append(out, arg)
			continue
		}
		n := len(out)
		err = filepath.WalkDir(arg, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && isBillFile(path) {
				out = append(out, path)
			}
			return err
		})
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", arg, err)
		}
		if len(out) == n {
			return nil, gpucost.Errorf(gpucost.ENotFound, "import %s: no bill files (.csv, .csv.gz, .parquet, .json, .jsonl, .ndjson) in the directory", arg)
		}
		slices.Sort(out[n:])
	}
	return out, nil
}

// isBillFile reports whether a file in a directory looks like bill data: CUR and FOCUS exports
// keep manifests (JSON) beside their data files, and those are not bills.
func isBillFile(path string) bool {
	name := strings.TrimSuffix(strings.ToLower(filepath.Base(path)), ".gz")
	if strings.Contains(name, "manifest") {
		return false
	}
	for _, ext := range []string{".csv", ".parquet", ".json", ".jsonl", ".ndjson"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// importBill imports one file: checksum, skip or replace, read through the aggregator, check the
// totals against the reader's, store in one transaction. A replace is recorded in the audit log.
func (e *env) importBill(ctx context.Context, store gpucost.CostStore, name, format string, grain time.Duration, replace bool, keep ...string) (billStats, error) {
	st, err := e.importBillFile(ctx, store, name, name, format, grain, replace, keep...)
	if err != nil || len(st.replaced) == 0 {
		return st, err
	}
	target := fmt.Sprintf("import %d (%s)", st.ImportID, name)
	return st, e.audit(ctx, store, gpucost.AuditBillReplace, target, gpucost.ImportChange(st.replaced, &st.stored))
}

// importBillFile is importBill of the file at path as the bill called name, which messages and
// the stored import carry: the server spools an uploaded bill to a temporary path. What
// identifies the bill is its checksum and its identity key (gpucost.BillIdentity), computed
// from what the file holds and its base name, never from where it lies; the store refuses a
// second import of either, so of two imports of one bill made at once one lands.
// keep names the columns outside the format to keep (FOCUS extras); by default none is read.
func (e *env) importBillFile(ctx context.Context, store gpucost.CostStore, path, name, format string, grain time.Duration, replace bool, keep ...string) (billStats, error) {
	st := billStats{File: name}
	sum, err := fileChecksum(path)
	if err != nil {
		return st, err
	}
	all, err := store.CostImports(ctx)
	if err != nil {
		return st, err
	}
	if p, ok := importOf(all, sum, ""); ok && !replace {
		return skippedBill(st, p), nil
	}
	if format == "auto" {
		if format, err = detectBillFormatOf(path, name); err != nil {
			return st, err
		}
	}
	agg := billing.Aggregator{Grain: grain}
	rs, err := e.readBill(path, name, format, keep, agg.Add)
	if err != nil {
		return st, err
	}
	if err := reconcile(name, rs.Totals, agg.Totals()); err != nil {
		return st, err
	}
	var id gpucost.BillIdentity
	for l := range agg.Lines() {
		id.Add(l)
	}
	key := id.Key(format, name)
	prev := sameBill(all, sum, key)
	if len(prev) > 0 && !replace {
		return st, billConflict(name, prev[0])
	}
	ids := make([]int64, len(prev))
	for i, p := range prev {
		ids[i] = p.ID
	}
	imp, err := store.PutCosts(ctx, gpucost.CostImport{
		Name: name, Checksum: sum, Identity: key, Format: format, Version: rs.Version, Grain: grain,
		Rows: agg.Rows(), Lines: agg.Len(), Totals: agg.Totals(), ImportedAt: e.now().UTC(),
	}, agg.Lines(), ids)
	if gpucost.ErrorCode(err) == gpucost.EConflict {
		return lostRace(ctx, store, st, sum, key, err)
	}
	if err != nil {
		return st, fmt.Errorf("import %s: %w", name, err)
	}
	st.Format, st.Version, st.Rows, st.Lines, st.Totals, st.ImportID, st.Unknown, st.Kept =
		format, rs.Version, imp.Rows, imp.Lines, imp.Totals, imp.ID, rs.Unknown, rs.Kept
	st.Status, st.stored, st.replaced = "imported", imp, prev
	if len(prev) > 0 {
		st.Status = fmt.Sprintf("replaced import %d", prev[0].ID)
	}
	return st, nil
}

// skippedBill is st for a file imported before as p: nothing changes.
func skippedBill(st billStats, p gpucost.CostImport) billStats {
	st.Status, st.ImportID, st.Format, st.Version, st.Rows, st.Lines, st.Totals =
		fmt.Sprintf("skipped: imported before (import %d)", p.ID), p.ID, p.Format, p.Version, p.Rows, p.Lines, p.Totals
	return st
}

// billConflict is the EConflict of importing name, other content than p, which is the same bill.
func billConflict(name string, p gpucost.CostImport) error {
	return gpucost.Errorf(gpucost.EConflict, "import %s: a bill with the same identity (format, provider, billing accounts, billing periods and file name) was imported on %s as import %d (%s); if the provider restated the bill, an admin may replace it with --replace (gpucost import billing --replace, or replace=true with an admin token)",
		name, p.ImportedAt.Format(time.DateOnly), p.ID, p.Name)
}

// lostRace answers a conflict the store found within its transaction: another import of the
// same file or bill landed between the look-up and the store. The same file is skipped, as if it
// had been there before; another file of the same bill is a conflict with the usual advice.
func lostRace(ctx context.Context, store gpucost.CostStore, st billStats, sum, key string, cerr error) (billStats, error) {
	all, err := store.CostImports(ctx)
	if err != nil {
		return st, cerr
	}
	if p, ok := importOf(all, sum, ""); ok {
		return skippedBill(st, p), nil
	}
	if p, ok := importOf(all, "", key); ok {
		return st, billConflict(st.File, p)
	}
	return st, cerr
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

func fileChecksum(name string) (string, error) {
	f, err := os.Open(name)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// reconcile checks that the aggregated totals equal the reader's sums of the source rows.
func reconcile(name string, source, stored []gpucost.CostTotal) error {
	if slices.Equal(source, stored) {
		return nil
	}
	return gpucost.Errorf(gpucost.EInternal, "import %s: aggregated totals %v differ from the source rows' %v; nothing was stored", name, stored, source)
}

func billImportResult(all []billStats) result {
	r := result{
		Columns: []string{"File", "Format", "Rows", "Lines stored", "Currency", "BilledCost", "EffectiveCost", "Status"},
		Right:   []int{2, 3, 5, 6},
		JSON:    all,
	}
	for _, st := range all {
		format := st.Format
		if st.Version != "" {
			format += " " + st.Version
		}
		for i, t := range st.Totals {
			file, rows, lines := st.File, fmt.Sprint(st.Rows), fmt.Sprint(st.Lines)
			if i > 0 {
				file, format, rows, lines = "", "", "", ""
			}
			r.Rows = append(r.Rows, []string{file, format, rows, lines, t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2), st.Status})
		}
		if len(st.Totals) == 0 {
			r.Rows = append(r.Rows, []string{st.File, format, fmt.Sprint(st.Rows), fmt.Sprint(st.Lines), "", "", "", st.Status})
		}
		if len(st.Unknown) > 0 {
			what := "not read"
			if st.Kept {
				what = "kept as extras"
			}
			r.Notes = append(r.Notes, fmt.Sprintf("  %s: columns outside the format, %s: %s", st.File, what, strings.Join(st.Unknown, ", ")))
		}
	}
	if len(all) > 0 {
		r.Notes = append(r.Notes, "Totals are the source rows' sums, checked to the cent against what was stored; currencies are never added together.")
	}
	return r
}
