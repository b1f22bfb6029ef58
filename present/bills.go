package present

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
)

// ImportView is an import as gpucost bills prints it in JSON.
type ImportView struct {
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

// BillView is imp as gpucost bills prints it in JSON.
func BillView(imp gpucost.CostImport) ImportView {
	return ImportView{ID: imp.ID, Name: imp.Name, Format: imp.Format, Version: imp.Version, Rows: imp.Rows,
		Lines: imp.Lines, Totals: imp.Totals, Checksum: imp.Checksum, Identity: imp.Identity, ImportedAt: imp.ImportedAt}
}

// Bills is gpucost bills: every stored import with its totals per currency.
func Bills(all []gpucost.CostImport) Table {
	r := Table{
		Columns: []string{"ID", "Name", "Format", "Rows", "Currency", "BilledCost", "EffectiveCost", "Imported", "Identity"},
		Right:   []int{0, 3, 5, 6},
		JSON:    []ImportView{},
	}
	views := []ImportView{}
	for _, imp := range all {
		views = append(views, BillView(imp))
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

// BillImports is what gpucost import billing prints: each file, its rows, lines stored and
// totals per currency, and its status.
func BillImports(all []billimport.Result) Table {
	r := Table{
		Columns: []string{"File", "Format", "Rows", "Lines stored", "Currency", "BilledCost", "EffectiveCost", "Status"},
		Right:   []int{2, 3, 5, 6},
		JSON:    all,
	}
	for _, st := range all {
		format := st.Format
		if st.Version != "" {
			format += " " + st.Version
		}
		for i, t := range st.Totals {
			file, rows, lines := st.File, fmt.Sprint(st.Rows), fmt.Sprint(st.Lines)
			if i > 0 {
				file, format, rows, lines = "", "", "", ""
			}
			r.Rows = append(r.Rows, []string{file, format, rows, lines, t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2), st.Status})
		}
		if len(st.Totals) == 0 {
			r.Rows = append(r.Rows, []string{st.File, format, fmt.Sprint(st.Rows), fmt.Sprint(st.Lines), "", "", "", st.Status})
		}
		if len(st.Unknown) > 0 {
			what := "not read"
			if st.Kept {
				what = "kept as extras"
			}
			r.Notes = append(r.Notes, fmt.Sprintf("  %s: columns outside the format, %s: %s", st.File, what, strings.Join(st.Unknown, ", ")))
		}
		for _, c := range st.Coerced {
			r.Notes = append(r.Notes, fmt.Sprintf("  %s: %s", st.File, c))
		}
	}
	if len(all) > 0 {
		r.Notes = append(r.Notes, "Totals are the source rows' sums, checked to the cent against what was stored; currencies are never added together.")
	}
	return r
}
