package main

import (
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newExportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write stored data in open formats",
	}
	cmd.AddCommand(newExportFocusCmd(e))
	return cmd
}

func newExportFocusCmd(e *env) *cobra.Command {
	var (
		f         costFlags
		out       string
		allocated bool
		all       bool
	)
	cmd := &cobra.Command{
		Use:   "focus --out FILE.csv|FILE.parquet",
		Short: "Export GPU cost as FOCUS 1.2, allocated to teams, namespaces and jobs with --allocated",
		Long: `focus writes the stored GPU cost lines of a period as FOCUS 1.2 CSV or Parquet, by the
file's extension.

With --all it writes every row of the imported bills instead, from the copy of each file the
store keeps (import billing keeps it compressed): a FOCUS bill's rows as they are, every
column (BillingAccountName, ListUnitPrice, x_ columns …) with its periods as written (a Parquet
bill's values as text); a bill of another format (AWS CUR, GCP, Azure) row by row as its reader
maps each row, with the instance type in x_InstanceType and the reader's own x_ columns. A
bill imported with --lenient is read the same way: the amounts and dates the import coerced
($10,000.00, 2025/10/01) are written as plain decimals and RFC 3339 times in UTC, every other
cell as written. Importing the file stores the same lines and totals as the bills did (name the x_ columns to
sum by with --keep-columns, as for any FOCUS file). Rows are chosen by ChargePeriodStart when
--since or --until is given, and all rows of every import otherwise. A Parquet export holds
every column as text, as the bill wrote it. An import stored without its file (before gpucost
kept them) must be imported again with --replace first.

With --allocated each line becomes one row per user
of its GPUs and one for its idle capacity, split as report cost splits it, with the owner in
x_Team, x_Project, x_Namespace, x_Pod and x_Job, the policy in x_AllocationPolicy, x_Idle true
on idle rows and the GPU-hours in x_GPUHours and x_UsedGPUHours. Amounts are split exactly: the
rows of a line add up to it to the nano-unit.

The file is read back with the FOCUS reader before it replaces FILE, and the command checks
that the totals read are the stored ones.`,
		Example: `  gpucost export focus --out gpu-cost.csv
  gpucost export focus --all --out bill.csv
  gpucost export focus --allocated --since 90d --out allocated.parquet`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return gpucost.Errorf(gpucost.EInvalid, "--out is required: the file to write, .csv or .parquet")
			}
			ctx := cmd.Context()
			if all && !allocated {
				return e.exportSources(ctx, f, cmd.Flags().Changed("since") || cmd.Flags().Changed("until"), out)
			}
			f.gpuOnly = !all
			s, err := f.open(ctx, e)
			if err != nil {
				return err
			}
			defer s.Close()
			opts := focus.WriterOptions{Format: focus.FormatOf(out)}
			if allocated {
				opts.Extra = fleet.AllocationColumns
			}
			w, err := focus.WriteLinesFile(out, opts, func(write func(*gpucost.CostLine) error) (focus.Written, error) {
				n, err := s.ExportLines(ctx, allocated, write)
				return focus.Written{Rows: n, Totals: s.Stats.Totals.Sorted()}, err
			})
			if err != nil {
				return err
			}
			return e.print(present.Export(out, w.Rows, s.Stats.Lines, w.Totals))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "the file to write: .csv, .csv.gz or .parquet")
	cmd.Flags().BoolVar(&allocated, "allocated", false, "one row per owner and one for idle capacity, with x_Team, x_Project, x_Namespace, x_Job and x_AllocationPolicy")
	cmd.Flags().BoolVar(&all, "all", false, "every row of the imported bills, every column, as the bills hold them (with --allocated: every stored line)")
	return cmd
}

// exportSources is export focus --all: every row of the imports' kept files
// (billimport.Export), of the flags' period when periodGiven, of every import otherwise. The
// file is read back and its rows and totals checked before it replaces out; with every import
// exported, its totals are checked against the stored imports' too.
func (e *env) exportSources(ctx context.Context, f costFlags, periodGiven bool, out string) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	x := billimport.Export{}
	if periodGiven {
		from, to, err := f.resolve(e.now())
		if err != nil {
			return err
		}
		x.From, x.To = from, to
	}
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	x.Sources = db
	imps, err := db.CostImports(ctx)
	if err != nil {
		return err
	}
	if len(imps) == 0 {
		return gpucost.Errorf(gpucost.ENotFound, "no bills are stored in %s: import bills with gpucost import billing", db.Name())
	}
	w, err := x.WriteFile(ctx, imps, out)
	if err != nil {
		return err
	}
	return e.print(present.ExportAll(out, w.Rows, w.Totals, len(imps), x.From, x.To))
}
