package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/gpucost/gpucost"
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
			if err := e.validOutput(); err != nil {
				return err
			}
			db, err := e.openDB(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			all, err := db.CostImports(cmd.Context())
			if err != nil {
				return err
			}
			return e.print(billsResult(all))
		},
	}
	cmd.AddCommand(newBillsRemoveCmd(e))
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
				return writeJSONValue(e, billView(imp))
			}
			fmt.Fprintf(e.stdout, "removed %s\n", imp.Summary())
			return nil
		},
	}
}

// importView is an import as gpucost bills prints it in JSON.
type importView struct {
	ID         int64               `json:"id"`
	Name       string              `json:"name"`
	Format     string              `json:"format"`
	Version    string              `json:"version,omitempty"`
	Rows       int                 `json:"rows"`
	Lines      int                 `json:"lines_stored"`
	Totals     []gpucost.CostTotal `json:"totals"`
	Checksum   string              `json:"checksum"`
	Identity   string              `json:"identity,omitempty"`
	ImportedAt time.Time           `json:"imported_at"`
}

func billView(imp gpucost.CostImport) importView {
	return importView{ID: imp.ID, Name: imp.Name, Format: imp.Format, Version: imp.Version, Rows: imp.Rows,
		Lines: imp.Lines, Totals: imp.Totals, Checksum: imp.Checksum, Identity: imp.Identity, ImportedAt: imp.ImportedAt}
}

func billsResult(all []gpucost.CostImport) result {
	r := result{
		Columns: []string{"ID", "Name", "Format", "Rows", "Currency", "BilledCost", "EffectiveCost", "Imported", "Identity"},
		Right:   []int{0, 3, 5, 6},
		JSON:    []importView{},
	}
	views := []importView{}
	for _, imp := range all {
		views = append(views, billView(imp))
		key := imp.Identity
		if len(key) > 15 {
			key = key[:15] + "…"
		}
		row := []string{strconv.FormatInt(imp.ID, 10), imp.Name, imp.Format, strconv.Itoa(imp.Rows), "", "", "",
			imp.ImportedAt.Format(time.DateOnly), key}
		for i, t := range imp.Totals {
			if i > 0 {
				row = []string{"", "", "", "", "", "", "", "", ""}
			}
			row[4], row[5], row[6] = t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2)
			r.Rows = append(r.Rows, row)
		}
		if len(imp.Totals) == 0 {
			r.Rows = append(r.Rows, row)
		}
	}
	r.JSON = views
	if len(all) == 0 {
		r.Notes = append(r.Notes, "No bills imported: gpucost import billing FILE, or POST /api/v1/bills to gpucost serve.")
	}
	return r
}
