package query

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost/fleet"
)

func TestBillWindow(t *testing.T) {
	oct := fleet.Period{Start: time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2025, 11, 1, 0, 0, 0, 0, time.UTC), Billed: true}
	week := fleet.Period{Start: time.Date(2025, 10, 3, 15, 0, 0, 0, time.UTC), End: time.Date(2025, 10, 10, 15, 0, 0, 0, time.UTC)}
	for _, tt := range []struct {
		name     string
		w        fleet.Period
		lookback time.Duration
		want     fleet.Period
	}{
		{"a month", oct, 0, oct},
		{"a month and a baseline", oct, 28 * 24 * time.Hour, fleet.Period{Start: time.Date(2025, 9, 3, 0, 0, 0, 0, time.UTC), End: oct.End}},
		{"a week from mid-day", week, 0, fleet.Period{Start: time.Date(2025, 10, 3, 0, 0, 0, 0, time.UTC), End: week.End}},
	} {
		got, err := BillWindow(tt.w, tt.lookback)
		if err != nil || got != tt.want {
			t.Errorf("%s: BillWindow(%v, %v) = %+v, %v; want %+v", tt.name, tt.w, tt.lookback, got, err, tt.want)
		}
	}
}
