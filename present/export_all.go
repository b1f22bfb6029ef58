package present

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// ExportAll is export focus --all's table: Export's, with a note on the imports whose rows it
// holds, those charged in [from, to) when a period chose them (zero times: every row).
func ExportAll(file string, rows int, totals []gpucost.CostTotal, imports int, from, to time.Time) Table {
	t := Export(file, rows, rows, totals)
	period := ""
	if !from.IsZero() || !to.IsZero() {
		period = fmt.Sprintf(" charged from %s to %s", from.Format(time.RFC3339), to.Format(time.RFC3339))
	}
	t.Notes = []string{fmt.Sprintf("Every row of %s%s; read back with the FOCUS reader: %d rows, the totals of the rows written.", count(imports, "imported bill"), period, rows)}
	return t
}
