package present

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// TestIdleAddsUp: three periods of $0.335 each, $1.005 in all, print $1.01 in the title; the
// Cost column adds up to it with every period listed, and with a limit the row of the other
// periods makes it add up. Rounded one by one they printed $1.02.
func TestIdleAddsUp(t *testing.T) {
	start := time.Date(2026, 3, 1, 19, 0, 0, 0, time.UTC)
	z := analyze.IdleReport{MinIdle: gpucost.Duration(time.Hour), Currency: "USD", Cost: usd(t, "1.005"), GPUHours: 3}
	for i, c := range amounts335(t, 3) {
		s := gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-" + string(rune('a'+i))}}
		z.Periods = append(z.Periods, analyze.IdlePeriod{Series: &s, Start: start, End: start.Add(time.Hour),
			Duration: gpucost.Duration(time.Hour), GPUHours: 1, Cost: c, Priced: true})
	}
	for _, limit := range []int{0, 2, 1} {
		tab := Idle(IdleReport{ZeroUtil: z}, limit)
		if !strings.HasSuffix(tab.Title, ", $1.01") {
			t.Fatalf("Idle(limit %d) title = %q, want the periods' $1.01", limit, tab.Title)
		}
		if got := sumDollarsColumn(t, tab.Rows, 8); got.Fixed(2) != "1.01" {
			t.Errorf("Idle(limit %d) Cost column = %q, adds up to %s, want 1.01", limit, columnCells(tab.Rows, 8), got.Fixed(2))
		}
		wantRows := 3
		if limit > 0 {
			wantRows = limit + 1
		}
		if len(tab.Rows) != wantRows {
			t.Errorf("Idle(limit %d) = %d rows, want %d: %q", limit, len(tab.Rows), wantRows, tab.Rows)
		}
	}
	rows := Idle(IdleReport{ZeroUtil: z}, 1).Rows
	if last := rows[len(rows)-1]; last[0] != "2 other periods" || last[7] != "2.00" || last[8] != "$0.67" {
		t.Errorf("Idle(limit 1) last row = %q, want 2 other periods, 2.00 GPU-hours, $0.67", last)
	}
}

// columnCells returns column col of rows.
func columnCells(rows [][]string, col int) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[col]
	}
	return out
}
