package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// GET /api/v1/imports lists the stored imports with what each covers, to viewers; without a
// lister it answers 503, and it takes no parameters.
func TestGetImports(t *testing.T) {
	f := newFixture(t)
	status, _ := f.do(t, "GET", "/api/v1/imports", f.secrets[gpucost.RoleViewer], nil)
	if status != http.StatusServiceUnavailable {
		t.Errorf("GET /api/v1/imports without a lister = %d, want 503", status)
	}
	oct := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	line := gpucost.CostLine{Provider: "AWS", BillingAccountID: "111", BillingPeriodStart: oct, ChargePeriodStart: oct, ChargePeriodEnd: oct.Add(24 * time.Hour),
		BilledCost: gpucost.USD(1_500_000_000), EffectiveCost: gpucost.USD(1_000_000_000)}
	var b gpucost.BillIdentity
	b.Add(&line)
	imp := gpucost.CostImport{Name: "focus-2026-10.csv", Checksum: "abc", Format: "focus", Rows: 1}
	b.Describe(&imp, "focus")
	stored, err := f.db.PutCosts(context.Background(), imp, func(yield func(*gpucost.CostLine) bool) { yield(&line) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.srv.Imports = f.db
	if status, _ := f.do(t, "GET", "/api/v1/imports", "", nil); status != http.StatusUnauthorized {
		t.Errorf("GET /api/v1/imports without a token = %d, want 401", status)
	}
	if status, _ := f.do(t, "GET", "/api/v1/imports?x=1", f.secrets[gpucost.RoleViewer], nil); status != http.StatusBadRequest {
		t.Errorf("GET /api/v1/imports?x=1 = %d, want 400", status)
	}
	status, out := f.do(t, "GET", "/api/v1/imports", f.secrets[gpucost.RoleViewer], nil)
	var got struct {
		Imports []struct {
			gpucost.ImportListing
			Totals []struct {
				Currency   string `json:"currency"`
				BilledCost string `json:"billed_cost"`
			} `json:"totals"`
		} `json:"imports"`
	}
	if err := json.Unmarshal(out, &got); status != http.StatusOK || err != nil || len(got.Imports) != 1 {
		t.Fatalf("GET /api/v1/imports = %d %s, %v", status, out, err)
	}
	l := got.Imports[0]
	if l.ID != stored.ID || l.File != "focus-2026-10.csv" || l.SHA256 != "abc" || len(l.Accounts) != 1 || l.Accounts[0] != "111" ||
		len(l.Periods) != 1 || l.Periods[0] != "2026-10" || l.ChargeFrom == nil || !l.ChargeFrom.Equal(oct) || l.Lines != 1 ||
		len(l.Totals) != 1 || l.Totals[0].BilledCost != "1.5" || len(l.Providers) != 1 || l.Providers[0] != "aws" {
		t.Errorf("GET /api/v1/imports = %s; want import %d of account 111, period 2026-10, USD 1.5 billed", out, stored.ID)
	}
}
