package main

import (
	"fmt"
	"strconv"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newBillsCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bills",
		Short: "List the imported bills, and remove one (the older name of gpucost import list and remove)",
		Long: `bills is the older name of gpucost import list and gpucost import remove: it lists the bills
gpucost import billing and uploads to gpucost serve stored — the import id, the name, the
format, the source rows, the totals per currency and the identity key — and gpucost bills
remove deletes an import and its lines, as DELETE /api/v1/bills/{id} does for an admin token;
both are recorded in the audit log with the import's totals. gpucost import list shows what
each import covers too: billing accounts, billing periods and charge period span.`,
		Example: `  gpucost bills
  gpucost bills remove 12`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.printStored(cmd.Context(), func(db storeDB) (result, error) {
				all, err := db.CostImports(cmd.Context())
				return present.Bills(all), err
			})
		},
	}
	cmd.AddCommand(newBillsRemoveCmd(e), newBillsPeriodsCmd(e))
	return cmd
}

// newBillsRemoveCmd is gpucost import remove, and gpucost bills remove, its older name.
func newBillsRemoveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove an imported bill and its lines (recorded in the audit log)",
		Long: `remove deletes the bill import ID (as gpucost import list shows it) and its lines in one
transaction, as DELETE /api/v1/bills/{id} does for an admin token, and records in the audit log
what it held: its rows and totals per currency. The billing periods it covered can then be
imported again.`,
		Example: `  gpucost import remove 12`,
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageError{fmt.Errorf("import id %q: give the number gpucost import list shows", args[0])}
			}
			ctx := cmd.Context()
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			imp, err := db.RemoveCosts(ctx, id)
			if err != nil {
				return err
			}
			detail := gpucost.ImportChange([]gpucost.CostImport{imp}, nil)
			if err := e.audit(ctx, db, gpucost.AuditBillRemove, fmt.Sprintf("import %d (%s)", imp.ID, imp.Name), detail); err != nil {
				return err
			}
			if e.output == "json" {
				return writeJSONValue(e, present.BillView(imp))
			}
			fmt.Fprintf(e.stdout, "removed %s\n", imp.Summary())
			return nil
		},
	}
}
