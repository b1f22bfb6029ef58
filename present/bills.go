package present

import (
	"fmt"
	"slices"
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
// totals per currency, and its status; why a file was refused goes under the table, where a
// long message reads, and in full in the JSON.
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
		status := importStatus(st)
		if st.Err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("  %s: %s", st.File, st.Status))
		}
		for i, t := range st.Totals {
			file, rows, lines := st.File, fmt.Sprint(st.Rows), fmt.Sprint(st.Lines)
			if i > 0 {
				file, format, rows, lines = "", "", "", ""
			}
			r.Rows = append(r.Rows, []string{file, format, rows, lines, t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2), status})
		}
		if len(st.Totals) == 0 {
			r.Rows = append(r.Rows, []string{st.File, format, fmt.Sprint(st.Rows), fmt.Sprint(st.Lines), "", "", "", status})
		}
		if len(st.Unknown) > 0 {
			what := "not read"
			if st.Kept {
				what = "kept as extras"
			}
			r.Notes = append(r.Notes, fmt.Sprintf("  %s: columns outside the format, %s: %s", st.File, what, strings.Join(st.Unknown, ", ")))
		}
		if len(st.Uncovered) > 0 {
			pairs := make([]string, len(st.Uncovered))
			for i, c := range st.Uncovered {
				pairs[i] = c.String()
			}
			r.Notes = append(r.Notes, fmt.Sprintf("  %s: the imports it replaced also covered %s, which it does not: import those again if they are still billed", st.File, strings.Join(pairs, ", ")))
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

// importStatus is st's status as the table shows it: with the import's id, and a refusal's
// reason left to the notes, where a long message reads.
func importStatus(st billimport.Result) string {
	switch {
	case len(st.Parts) > 1 && st.ImportID != 0 && !st.Skipped:
		return fmt.Sprintf("%s (import %d, one of %d parts of one export)", st.Status, st.ImportID, len(st.Parts))
	case st.Status == "imported":
		return fmt.Sprintf("imported (import %d)", st.ImportID)
	case st.Err != nil:
		return "refused (why below)"
	}
	return st.Status
}

// Imports is gpucost import list: one row per import and currency, with what it covers. The
// table shows the SHA-256's first 12 hex digits; csv (full) the whole of it, as json does.
func Imports(all []gpucost.CostImport, full bool) Table {
	r := Table{
		Columns: []string{"ID", "Format", "File", "SHA-256", "Provider", "Accounts", "Billing periods", "Charge periods",
			"Rows", "Lines", "Currency", "BilledCost", "EffectiveCost", "Imported"},
		Right: []int{0, 8, 9, 11, 12},
	}
	views := []gpucost.ImportListing{}
	for _, imp := range all {
		l := imp.Listing()
		views = append(views, l)
		sum := l.SHA256
		if !full && len(sum) > 12 {
			sum = sum[:12]
		}
		file := l.File
		if len(l.Parts) > 1 {
			file = fmt.Sprintf("%s (%d files)", file, len(l.Parts))
		}
		accounts := l.Accounts
		if !full && len(accounts) > 3 {
			accounts = append(slices.Clone(accounts[:3]), fmt.Sprintf("+%d more", len(l.Accounts)-3))
		}
		format := l.Format
		if l.Lenient {
			format += " (lenient)"
		}
		row := []string{strconv.FormatInt(l.ID, 10), format, file, sum, strings.Join(l.Providers, ", "), strings.Join(accounts, ", "),
			span(l.Periods), chargeSpan(imp), strconv.Itoa(l.Rows), strconv.Itoa(l.Lines), "", "", "", l.ImportedAt.Format("2006-01-02 15:04")}
		if len(l.Totals) == 0 {
			r.Rows = append(r.Rows, row)
		}
		for i, t := range l.Totals {
			if i > 0 {
				row = make([]string, len(r.Columns))
			}
			row[10], row[11], row[12] = t.Currency, t.BilledCost.Fixed(2), t.EffectiveCost.Fixed(2)
			r.Rows = append(r.Rows, row)
		}
	}
	r.JSON = views
	if len(all) == 0 {
		r.Notes = append(r.Notes, "No bills imported: gpucost import billing FILE|DIR, or POST /api/v1/bills to gpucost serve.")
	} else {
		r.Notes = append(r.Notes, "An import covers each billing account's billing periods listed; another bill of one of them is refused unless it replaces the import (gpucost import billing --replace). gpucost import remove ID takes one out.")
	}
	return r
}

// span is the first and last of labels, sorted: "2026-09 – 2026-11", one label alone, or "".
func span(labels []string) string {
	switch len(labels) {
	case 0:
		return ""
	case 1:
		return labels[0]
	}
	return labels[0] + " – " + labels[len(labels)-1]
}

// chargeSpan is the days imp's charge periods span: "2026-10-01 – 2026-10-31", the last day
// the one the last charge period ends in (or before, at midnight).
func chargeSpan(imp gpucost.CostImport) string {
	if imp.ChargeFrom.IsZero() {
		return ""
	}
	last := imp.ChargeTo.UTC()
	if last.After(imp.ChargeFrom) && last.Equal(last.Truncate(24*time.Hour)) {
		last = last.Add(-time.Nanosecond)
	}
	return imp.ChargeFrom.UTC().Format(time.DateOnly) + " – " + last.Format(time.DateOnly)
}
