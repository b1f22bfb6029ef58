package present

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpucost/gpucost/telemetry/teleimport"
)

// TelemetryImports is gpucost import telemetry: per file what was read, skipped and stored,
// the first five skipped lines and the metrics that were not DCGM's.
func TelemetryImports(all []teleimport.Stats) Table {
	r := Table{
		Columns: []string{"File", "Lines", "Samples", "Skipped", "Rollups stored", "Already stored"},
		Right:   []int{1, 2, 3, 4, 5},
		JSON:    all,
	}
	for _, st := range all {
		r.Rows = append(r.Rows, []string{st.File, fmt.Sprint(st.Lines), fmt.Sprint(st.Samples),
			fmt.Sprint(st.Skipped), fmt.Sprint(st.Rollups), fmt.Sprint(st.Repeated)})
		for i, s := range st.Skips {
			if i == 5 {
				r.Notes = append(r.Notes, fmt.Sprintf("  … and %d more skipped in %s", st.Skipped-5, st.File))
				break
			}
			r.Notes = append(r.Notes, "  skipped "+s)
		}
		for _, name := range slices.Sorted(maps.Keys(st.Unknown)) {
			n := st.Unknown[name]
			r.Notes = append(r.Notes, fmt.Sprintf("  unknown metric %s (%d lines) ignored in %s", name, n, st.File))
		}
	}
	return r
}
