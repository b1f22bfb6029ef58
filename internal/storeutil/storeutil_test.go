package storeutil

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestSettleAndParseTotals(t *testing.T) {
	sums := []gpucost.CostTotal{
		{Currency: "EUR", BilledCost: gpucost.Money{Nanos: 1, Currency: "EUR"}, EffectiveCost: gpucost.Money{Nanos: -7, Currency: "EUR"}},
		{Currency: "USD", BilledCost: gpucost.USD(123_456_789_012), EffectiveCost: gpucost.USD(5)},
	}
	imp := gpucost.CostImport{Name: "a.csv"}
	js, err := SettleTotals(&imp, sums)
	if err != nil || !reflect.DeepEqual(imp.Totals, sums) {
		t.Fatalf("SettleTotals = %q, %v; totals %v", js, err, imp.Totals)
	}
	got, err := ParseTotals(js)
	if err != nil || !reflect.DeepEqual(got, sums) {
		t.Errorf("ParseTotals(%s) = %v, %v; want %v", js, got, err, sums)
	}
	if got, err := ParseTotals("null"); got != nil || err != nil {
		t.Errorf("ParseTotals(null) = %v, %v", got, err)
	}
	if _, err := ParseTotals(`[{"currency":"USD","billed_cost":"x","effective_cost":"1"}]`); err == nil || !strings.Contains(err.Error(), "USD billed cost") {
		t.Errorf("ParseTotals of a bad amount = %v", err)
	}
	given := gpucost.CostImport{Name: "b.csv", Totals: []gpucost.CostTotal{{BilledCost: gpucost.USD(123_456_789_012), EffectiveCost: gpucost.USD(5)}}}
	if _, err := SettleTotals(&given, sums); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "EUR totals") {
		t.Errorf("SettleTotals without the EUR total = %v, want EInvalid naming EUR", err)
	}
	given.Totals = append(given.Totals, sums[0])
	if _, err := SettleTotals(&given, sums); err != nil {
		t.Errorf("SettleTotals with an empty currency read as USD = %v", err)
	}
}

func TestPrepareImport(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 3600))
	if _, err := PrepareImport(gpucost.CostImport{Name: "a"}, now); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("PrepareImport without a checksum = %v, want EInvalid", err)
	}
	imp, err := PrepareImport(gpucost.CostImport{Name: "a", Checksum: "c"}, now)
	if err != nil || !imp.ImportedAt.Equal(now) || imp.ImportedAt.Location() != time.UTC {
		t.Errorf("PrepareImport = %v, %v; want imported at %v in UTC", imp.ImportedAt, err, now)
	}
}

func TestChecksAndTally(t *testing.T) {
	o := gpucost.Offer{Provider: "AWS", Region: "r", Zone: "z", InstanceType: "p5", GPUModel: "H100"}
	if err := CheckOffers([]gpucost.Offer{o, {Provider: "AWS"}}); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "offer 2") {
		t.Errorf("CheckOffers = %v, want EInvalid naming offer 2", err)
	}
	if err := CheckInventory([]gpucost.InventoryEntry{{ResourceID: "r", GPUs: -1}}); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("CheckInventory of -1 GPUs = %v, want EInvalid", err)
	}
	var tally Tally[OfferKey]
	lower := o
	lower.Provider = "aws"
	for i, k := range []OfferKey{KeyOf(o), KeyOf(lower), {Provider: "gcp"}} {
		if tally.First(k) {
			tally.Count(i == 0)
		}
	}
	if tally.Added != 1 || tally.Replaced != 1 {
		t.Errorf("tally = %d added, %d replaced; want 1, 1", tally.Added, tally.Replaced)
	}
}

// FuzzParseTotals checks that whatever totals parse encode back to the same totals.
func FuzzParseTotals(f *testing.F) {
	f.Add(`[{"currency":"USD","billed_cost":"12.5","effective_cost":"-0.000000001"}]`)
	f.Add(`[]`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, s string) {
		ts, err := ParseTotals(s)
		if err != nil {
			return
		}
		imp := gpucost.CostImport{Totals: ts}
		js, err := SettleTotals(&imp, ts)
		if err != nil {
			t.Fatal(err)
		}
		again, err := ParseTotals(js)
		if err != nil || !reflect.DeepEqual(again, ts) {
			t.Fatalf("%s: parsed %v, re-encoded %s, parsed %v, %v", s, ts, js, again, err)
		}
	})
}
