package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/focus"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

// allocationColumns are the extra columns of an allocated FOCUS export.
var allocationColumns = []string{"x_Team", "x_Project", "x_Namespace", "x_Pod", "x_Job", "x_AllocationPolicy", "x_Idle", "x_GPUHours", "x_UsedGPUHours"}

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
maps each row, with the instance type in x_InstanceType and the reader's own x_ columns.
Importing the file stores the same lines and totals as the bills did (name the x_ columns to
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
			tmp, err := os.CreateTemp(filepath.Dir(out), ".gpucost-export-*")
			if err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "export to %s: %w", out, err)
			}
			defer os.Remove(tmp.Name())
			opts := focus.WriterOptions{Format: focus.FormatOf(out)}
			if allocated {
				opts.Extra = allocationColumns
			}
			w, err := focus.NewWriter(tmp, opts)
			if err != nil {
				return err
			}
			rows, err := s.Lines(ctx, allocated, w.Write)
			if gpucost.ErrorCode(err) == gpucost.ENotFound && f.gpuOnly {
				err = noGPULines(ctx, s, err)
			}
			if err == nil {
				err = w.Close()
			}
			if err == nil {
				err = tmp.Close()
			}
			if err != nil {
				tmp.Close()
				return fmt.Errorf("export to %s: %w", out, err)
			}
			if err := checkExport(tmp.Name(), out, rows, s.Stats.Totals.Sorted()); err != nil {
				return err
			}
			if err := os.Rename(tmp.Name(), out); err != nil {
				return gpucost.Errorf(gpucost.EInvalid, "export to %s: %w", out, err)
			}
			return e.print(present.Export(out, rows, s.Stats.Lines, s.Stats.Totals.Sorted()))
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&out, "out", "", "the file to write: .csv, .csv.gz or .parquet")
	cmd.Flags().BoolVar(&allocated, "allocated", false, "one row per owner and one for idle capacity, with x_Team, x_Project, x_Namespace, x_Job and x_AllocationPolicy")
	cmd.Flags().BoolVar(&all, "all", false, "every row of the imported bills, every column, as the bills hold them (with --allocated: every stored line)")
	return cmd
}

// checkExport reads the written file back and compares its totals with the stored lines'.
func checkExport(tmp, out string, rows int, want []gpucost.CostTotal) error {
	st, err := focus.ReadFile(tmp, func(*gpucost.CostLine) error { return nil })
	if err != nil {
		return gpucost.Errorf(gpucost.EInternal, "export to %s: reading the file back: %w", out, err)
	}
	if st.Rows != rows {
		return gpucost.Errorf(gpucost.EInternal, "export to %s: wrote %d rows, read back %d", out, rows, st.Rows)
	}
	for _, t := range want {
		got, cur := st.Totals[t.Currency], t.Currency
		if got.BilledCost != t.BilledCost || got.EffectiveCost != t.EffectiveCost {
			return gpucost.Errorf(gpucost.EInternal, "export to %s: %s totals read back %v/%v, stored %v/%v", out, cur, got.BilledCost, got.EffectiveCost, t.BilledCost, t.EffectiveCost)
		}
	}
	return nil
}
