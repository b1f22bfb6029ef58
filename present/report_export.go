package present

import (
	"fmt"

	"github.com/gpucost/gpucost"
)

// Export is export focus's table: the file written, its rows and each currency's totals,
// read back identical to the stored lines it exported.
func Export(file string, rows, lines int, totals []gpucost.CostTotal) Table {
	t := Table{
		Columns: []string{"File", "Rows", "Currency", "BilledCost", "EffectiveCost"},
		Right:   []int{1, 3, 4},
		JSON:    map[string]any{"file": file, "rows": rows, "totals": totals},
	}
	for i, c := range totals {
		name, n := file, fmt.Sprint(rows)
		if i > 0 {
			name, n = "", ""
		}
		t.Rows = append(t.Rows, []string{name, n, c.Currency, c.BilledCost.Fixed(2), c.EffectiveCost.Fixed(2)})
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Read back with the FOCUS reader: %d rows, totals identical to the %d stored lines exported.", rows, lines))
	return t
}
