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
		Short: "List the imported bills, and remove one",
		Long: `bills lists the bills gpucost import billing and uploads to gpucost serve stored: the import
id, the name, the format, the source rows, the totals per currency and the identity key that
makes a restated bill the same bill (see gpucost import billing --help). gpucost bills remove
deletes an import and its lines, as DELETE /api/v1/bills/{id} does for an admin token; both
are recorded in the audit log with the import's totals.`,
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

func newBillsRemoveCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID",
		Short: "Remove an imported bill and its lines (recorded in the audit log)",
		Args:  usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := strconv.ParseInt(args[0], 10, 64)
			if err != nil || id <= 0 {
				return usageError{fmt.Errorf("import id %q: give the number gpucost bills lists", args[0])}
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
