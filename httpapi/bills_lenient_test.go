package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestPostBillLenient passes lenient=true to the importer, as gpucost import billing --lenient,
// and answers what it coerced.
func TestPostBillLenient(t *testing.T) {
	f := newFixture(t)
	bills := &fakeBills{}
	f.srv.Bills = bills
	ingest := f.secrets[gpucost.RoleIngest]
	csv := []byte("BilledCost,EffectiveCost\n\"$1,000\",1\n$2,2\n")
	status, out := f.do(t, "POST", "/api/v1/bills?name=s.csv", ingest, csv)
	if status != http.StatusCreated || len(bills.opts) != 1 || bills.opts[0].Lenient {
		t.Fatalf("POST without lenient = %d %s, options %+v; want 201 and a strict import", status, out, bills.opts)
	}
	status, out = f.do(t, "POST", "/api/v1/bills?name=s2.csv&lenient=true", ingest, append(csv, "3,3\n"...))
	var imp BillImport
	if err := json.Unmarshal(out, &imp); status != http.StatusCreated || err != nil || len(bills.opts) != 2 || !bills.opts[1].Lenient {
		t.Fatalf("POST lenient=true = %d %s, options %+v; want 201 and a lenient import", status, out, bills.opts)
	}
	if len(imp.Coerced) != 1 || imp.Coerced[0].Count != 2 || imp.Coerced[0].Summary == "" {
		t.Errorf("POST lenient=true answered coerced %+v, want the importer's count", imp.Coerced)
	}
}
