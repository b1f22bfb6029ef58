package main

import (
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newBillsPeriodsCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "periods",
		Short: "List the billing periods the stored bills cover, and the span of the telemetry",
		Long: `periods lists what the store holds of each billing period and provider: the billing
accounts, the first and last charge dates, the lines and the totals per currency; and the span
of the stored GPU telemetry. A report with --month or --quarter reads the lines of the billing
periods that start in it, whatever their charge dates; --since and --until read lines by charge
date (docs/architecture.md "Figures").`,
		Example: `  gpucost import periods
  gpucost import periods --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.printStored(cmd.Context(), func(db storeDB) (result, error) {
				periods, err := db.CostPeriods(cmd.Context())
				if err != nil {
					return result{}, err
				}
				span, err := db.TelemetrySpan(cmd.Context())
				return present.StoredPeriods(periods, span), err
			})
		},
	}
}
