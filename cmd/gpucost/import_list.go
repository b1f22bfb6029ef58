package main

import (
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// newImportListCmd is gpucost import list: every stored bill import and what it covers.
func newImportListCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the imported bills: file, SHA-256, accounts, billing periods, rows and totals",
		Long: `list shows every bill import gpucost import billing and uploads to gpucost serve stored, one row
per import and currency: its id, format, file (a multi-part export's first part or manifest,
with the count of files), SHA-256 (the first 12 hex digits in the table, the whole of it with
--output csv or json), providers, billing accounts, billing periods (first – last), the days its
charge periods span, source rows read, lines stored, BilledCost and EffectiveCost per currency
and when it was imported. A bill imported with --lenient shows as "focus (lenient)" ("lenient":
true in JSON): export focus --all reads its file leniently too. GET /api/v1/imports serves the same list as JSON.

An import covers each of its billing accounts' billing periods: gpucost import billing refuses
another bill of one of them, whatever its file is called, unless --replace (a restated bill, or
the full export of a partial one). gpucost import remove ID takes an import out.`,
		Example: `  gpucost import list
  gpucost import list --output json
  gpucost import remove 12`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.printStored(cmd.Context(), func(db storeDB) (result, error) {
				all, err := db.CostImports(cmd.Context())
				return present.Imports(all, e.output != "table"), err
			})
		},
	}
}
