package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/plan"
)

// TestCommitColumnsCarryUnits checks that every quantity and money column of plan commit's
// back-test and layers tables names its unit, and that a note says what a unit is.
func TestCommitColumnsCarryUnits(t *testing.T) {
	for name, tab := range map[string]Table{
		"backtest": Backtest(plan.BacktestResult{}, 14*24*time.Hour, 24*time.Hour, 0.4),
		"layers":   Layers(plan.LayerResult{}),
	} {
		for _, c := range tab.Columns {
			switch c {
			case "From hour", "Instrument", "Discount", "Captured", "Utilisation", "Cost":
				continue // a count of hours, a name, percentages, and dollars written with $ in every cell
			}
			if !strings.HasSuffix(c, "units/h") && !strings.HasSuffix(c, "Units/h") && !strings.HasSuffix(c, " $") {
				t.Errorf("%s column %q names no unit", name, c)
			}
		}
		if !strings.Contains(strings.Join(tab.Notes, "\n"), "A unit is one GPU with --from-store") {
			t.Errorf("%s notes %q do not say what a unit is", name, tab.Notes)
		}
	}
}
