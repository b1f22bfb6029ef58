package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// gpucost import list shows the SHA-256's start and three accounts in the table, all of both in
// CSV and JSON, one row per currency, and the periods and charge days an import covers.
func TestImports(t *testing.T) {
	oct, nov := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	var cov []gpucost.BillCoverage
	for _, a := range []string{"a1", "a2", "a3", "a4", "a5"} {
		cov = append(cov, gpucost.BillCoverage{Account: a, Period: oct}, gpucost.BillCoverage{Account: a, Period: nov})
	}
	sum := strings.Repeat("ab", 32)
	imp := gpucost.CostImport{ID: 7, Name: "focus.csv", Checksum: sum, Format: "focus", Rows: 10, Lines: 4, Coverage: cov,
		Providers: []string{"aws"}, ChargeFrom: oct, ChargeTo: nov.AddDate(0, 1, 0), ImportedAt: nov,
		Totals: []gpucost.CostTotal{{Currency: "EUR", BilledCost: gpucost.Money{Nanos: 1e9, Currency: "EUR"}}, {Currency: "USD", BilledCost: gpucost.USD(2e9)}}}
	table := Imports([]gpucost.CostImport{imp}, false)
	if len(table.Rows) != 2 || table.Rows[0][3] != sum[:12] || table.Rows[0][5] != "a1, a2, a3, +2 more" || table.Rows[0][6] != "2026-10 – 2026-11" ||
		table.Rows[0][7] != "2026-10-01 – 2026-11-30" || table.Rows[1][10] != "USD" || table.Rows[1][11] != "2.00" || table.Rows[1][0] != "" {
		t.Errorf("Imports(table) rows = %q", table.Rows)
	}
	full := Imports([]gpucost.CostImport{imp}, true)
	if full.Rows[0][3] != sum || full.Rows[0][5] != "a1, a2, a3, a4, a5" {
		t.Errorf("Imports(full) row = %q; want the whole SHA-256 and every account", full.Rows[0])
	}
	l := full.JSON.([]gpucost.ImportListing)
	if len(l) != 1 || l[0].SHA256 != sum || len(l[0].Accounts) != 5 || len(l[0].Periods) != 2 || !l[0].ChargeTo.Equal(nov.AddDate(0, 1, 0)) {
		t.Errorf("Imports JSON = %+v", l)
	}
	if empty := Imports(nil, false); len(empty.Rows) != 0 || len(empty.JSON.([]gpucost.ImportListing)) != 0 || !strings.Contains(empty.Notes[0], "gpucost import billing") {
		t.Errorf("Imports(none) = %+v", empty)
	}
}
