package billimport

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestReplacements(t *testing.T) {
	day := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	old := gpucost.CostImport{ID: 3, Name: "old.csv", ImportedAt: day, Totals: []gpucost.CostTotal{{Currency: "USD", BilledCost: gpucost.USD(1e9), EffectiveCost: gpucost.USD(1e9)}}}
	stored := gpucost.CostImport{ID: 7, Name: "cur-00001.csv", ImportedAt: day.Add(time.Hour), Totals: []gpucost.CostTotal{{Currency: "USD", BilledCost: gpucost.USD(2e9), EffectiveCost: gpucost.USD(2e9)}}}
	results := []Result{
		{File: "new.csv", ImportID: 5},
		{File: "cur-00001.csv", ImportID: 7, Stored: stored, Replaced: []gpucost.CostImport{old}},
		{File: "cur-00002.csv", ImportID: 7, Stored: stored, Replaced: []gpucost.CostImport{old}},
	}
	got := Replacements(results)
	if len(got) != 1 || got[0].Action != gpucost.AuditBillReplace || got[0].Target != "import 7 (cur-00001.csv)" || got[0].Detail != results[1].ReplaceDetail() || got[0].Detail == "" {
		t.Errorf("Replacements(a new import, two parts of one replacing import) = %+v; want one bill.replace entry for import 7", got)
	}
	if got := Replacements(results[:1]); len(got) != 0 {
		t.Errorf("Replacements(a new import) = %+v; want none", got)
	}
}
