package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/present"
	"github.com/spf13/cobra"
)

func newBudgetCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "budget",
		Short: "Budgets: spend, forecast and thresholds crossed",
	}
	cmd.AddCommand(newBudgetStatusCmd(e), newBudgetCheckCmd(e), newBudgetDeliveriesCmd(e))
	return cmd
}

func newBudgetStatusCmd(e *env) *cobra.Command {
	var file string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Where each budget stands this period: spent, forecast, thresholds crossed",
		Long: `status reads budgets from a YAML file and, from the bills imported into the store, prints for
each budget its period (calendar month or quarter, UTC), the amount, what its scope has spent so
far, the forecast for the whole period with its p10–p90 band, what is left, the daily burn rate
(spent over the days with bill data, which a note counts where fewer than the days elapsed)
against the rate that would end the period at the amount, the thresholds crossed (actual spend
and "projected to exceed"), and a burn-down sparkline of the budget left day by day.

The forecast predicts each remaining day from up to eight weeks of daily cost: the recent level
times the day's weekday factor, following the trend of the weekly means; with less than two
weeks of history it uses the run rate. Days after the bill's last day are predicted too, so a
bill that arrives late does not read as a quiet week. The p10–p90 band comes from the
day-to-day spread: the p10 and p90 of a day's cost less the median day, times the square root
of the days left; under a week of history it says "not enough data".

A budgets file:

  budgets:
    - name: research-gpus
      scope: {team: research, gpu_only: true}   # also tags: {k: v}, namespace, project, provider, service
      period: monthly                           # or quarterly
      amount: 50000
      currency: USD
      notify: [finops-slack]                    # the targets of thresholds without their own
      thresholds:                               # default: actual 50, 80, 100 and forecast 100
        - {actual: 80, notify: [research-leads]}
        - {forecast: 100}`,
		Example: `  gpucost budget status --file budgets.yaml
  gpucost budget status --file budgets.yaml --db /tmp/demo.db --output json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: e.printing(func(cmd *cobra.Command, args []string) (result, error) {
			if file == "" {
				return result{}, usageError{fmt.Errorf("--file is required: the budgets YAML file")}
			}
			budgets, err := budget.ReadFile(file)
			if err != nil {
				return result{}, err
			}
			sp, err := e.budgetSpend(cmd.Context(), budgets)
			if err != nil {
				return result{}, err
			}
			return present.BudgetStatus(sp.Statuses(e.now()), sp.notes()), nil
		}),
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "budgets YAML file")
	return cmd
}

// budgetSpend is the daily spend of each budget's scope, read from the store, with the catalog
// that priced and recognised its lines.
type budgetSpend struct {
	*budget.Spend
	cat     *catalog.Catalog
	noStore bool // the store file does not exist: nothing spent
}

// budgetSpend reads the store's cost lines the budgets need at now (budget.HistoryStart) and
// sums them per budget and day. Without a store file, nothing is spent.
func (e *env) budgetSpend(ctx context.Context, budgets []budget.Budget) (*budgetSpend, error) {
	now := e.now().UTC()
	if e.noStoreYet() {
		cat, err := catalog.Bundled()
		return &budgetSpend{Spend: budget.NewSpend(budgets, budget.CatalogMatcher(cat)), cat: cat, noStore: true}, err
	}
	return fromStore(ctx, e, func(db storeDB) (*budgetSpend, error) {
		sp, cat, err := budget.ReadSpend(ctx, db, budgets, now)
		return &budgetSpend{Spend: sp, cat: cat}, err
	})
}

// checkLimit refuses a negative --limit of a log listing.
func checkLimit(n int) error {
	if n < 0 {
		return usageError{fmt.Errorf("--limit %d: give 0 (all) or more", n)}
	}
	return nil
}

// notes says what the reader should know about the spend (present.BudgetSpendNotes).
func (sp *budgetSpend) notes() []string { return present.BudgetSpendNotes(sp.Spend, sp.noStore) }
