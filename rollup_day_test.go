package gpucost

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestNewDayRollup(t *testing.T) {
	s := &Series{GPU: GPU{Host: "h", UUID: "GPU-1"}}
	day := time.Date(2025, 10, 1, 0, 0, 0, 0, time.UTC)
	hour := func(h int, util float64, hist ...uint32) Rollup {
		return Rollup{Series: s, Start: day.Add(time.Duration(h) * time.Hour), Width: time.Hour, Samples: 2,
			Coverage: 0b11, UtilSum: 2 * util, UtilMax: util, MemMaxMiB: math.NaN(), TempMaxC: math.NaN(), UtilHist: hist}
	}
	d, err := NewDayRollup([]Rollup{hour(0, 10, 0, 2), hour(7, 50, 1, 1), hour(23, 30)})
	if err != nil {
		t.Fatalf("NewDayRollup = %v", err)
	}
	if !d.Day.Equal(day) || len(d.Hours) != 3 || d.Hours[1].Hour != 7 || d.Hours[2].Hour != 23 {
		t.Fatalf("NewDayRollup: day %v hours %+v, want %v and hours 0, 7, 23", d.Day, d.Hours, day)
	}
	if d.UtilMax != 50 || !math.IsNaN(d.MemMaxMiB) || d.UtilHist[0] != 1 || d.UtilHist[1] != 3 {
		t.Errorf("NewDayRollup: UtilMax %v MemMaxMiB %v hist[0:2] %v, want 50 NaN [1 3]", d.UtilMax, d.MemMaxMiB, d.UtilHist[:2])
	}
	if d.Covered() != 6 || d.Samples() != 6 || d.Hours[1].UtilSum != 100 {
		t.Errorf("NewDayRollup: Covered %d Samples %d hour 7 UtilSum %v, want 6 6 100", d.Covered(), d.Samples(), d.Hours[1].UtilSum)
	}

	other := hour(2, 1)
	other.Series = &Series{GPU: GPU{Host: "h", UUID: "GPU-2"}}
	minute := hour(2, 1)
	minute.Width = time.Minute
	for _, tc := range []struct {
		name  string
		hours []Rollup
		want  string
	}{
		{"none", nil, "no hours"},
		{"minute", []Rollup{hour(1, 1), minute}, "hour rollups only"},
		{"two series", []Rollup{hour(1, 1), other}, "one series"},
		{"next day", []Rollup{hour(1, 1), hour(24, 1)}, "not on an hour of 2025-10-01"},
		{"out of order", []Rollup{hour(3, 1), hour(1, 1)}, "time order"},
		{"twice", []Rollup{hour(3, 1), hour(3, 1)}, "time order"},
	} {
		if _, err := NewDayRollup(tc.hours); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewDayRollup(%s) = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}
