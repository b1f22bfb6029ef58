package gcp

import (
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/billtest"
	"github.com/gpucost/gpucost/internal/goldenfile"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixtures are the exports in testdata, built by hand from Google's schema (testdata/README.md):
// a detailed export as newline-delimited JSON, a standard export in euros as CSV with dotted
// names, a detailed export as CSV with underscore names, and rows as `bq query` prints them.
var fixtures = []string{"detailed_export.jsonl", "standard_export_eur.csv", "detailed_export_underscore.csv", "bq_query.json"}

// readAll reads a file and returns copies of its lines.
func readAll(t testing.TB, path string) ([]gpucost.CostLine, Stats) {
	t.Helper()
	return billtest.Collect(t, path, func(emit func(*gpucost.CostLine) error) (Stats, error) { return ReadFile(path, emit) })
}

// renderStats writes Stats for golden files.
func renderStats(st Stats) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# dialect=%q format=%s names=%s rows=%d unknown=%q cost_types=%v\n",
		st.Dialect, st.Format, st.Names, st.Rows, st.Unknown, st.Types)
	for _, cur := range st.Currencies() {
		t, cr := st.Totals[cur], st.Credits[cur]
		byType := gpucost.Labels{}
		for typ, m := range cr.ByType {
			byType[typ] = m.Decimal()
		}
		fmt.Fprintf(&b, "# %s rows=%d billed=%s effective=%s list=%s contracted=%s cost=%s credits=%s by_type=%s\n", cur,
			t.Rows, t.BilledCost.Decimal(), t.EffectiveCost.Decimal(), t.ListCost.Decimal(), t.ContractedCost.Decimal(),
			t.Source.Decimal(), cr.Total.Decimal(), byType)
	}
	return b.String()
}

func TestReadGolden(t *testing.T) {
	for _, name := range fixtures {
		t.Run(name, func(t *testing.T) {
			lines, st := readAll(t, filepath.Join("testdata", name))
			var b strings.Builder
			for i := range lines {
				b.WriteString(billtest.Line(&lines[i]) + "\n")
			}
			b.WriteString(renderStats(st))
			golden := filepath.Join("testdata", strings.TrimSuffix(name, filepath.Ext(name))+".golden")
			goldenfile.Check(t, golden, []byte(b.String()), *update)
		})
	}
}
