package present

import (
	"reflect"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestExportAll(t *testing.T) {
	totals := []gpucost.CostTotal{{Currency: "USD", BilledCost: gpucost.USD(12e9), EffectiveCost: gpucost.USD(10e9)}}
	from, to := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name     string
		from, to time.Time
		want     string
	}{
		{"every row", time.Time{}, time.Time{}, "Every row of 2 imported bills; read back with the FOCUS reader: 40 rows, the totals of the rows written."},
		{"a period", from, to, "Every row of 2 imported bills charged from 2026-10-01T00:00:00Z to 2026-11-01T00:00:00Z; read back with the FOCUS reader: 40 rows, the totals of the rows written."},
	} {
		got := ExportAll("bill.csv", 40, totals, 2, tt.from, tt.to)
		if !reflect.DeepEqual(got.Notes, []string{tt.want}) {
			t.Errorf("%s: ExportAll notes = %q, want %q", tt.name, got.Notes, tt.want)
		}
		if want := Export("bill.csv", 40, 40, totals); !reflect.DeepEqual(got.Rows, want.Rows) || !reflect.DeepEqual(got.JSON, want.JSON) {
			t.Errorf("%s: ExportAll rows %v, JSON %v; want Export's %v, %v", tt.name, got.Rows, got.JSON, want.Rows, want.JSON)
		}
	}
}
