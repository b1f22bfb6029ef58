package web

import (
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/fleet"
)

// TestRealizedAddsUp: three measured steps of $0.335 print a total of $1.01 ($1.005) above
// them; their rows print $0.34, $0.34 and $0.33, which add up to it, where rounding each
// printed $0.34 three times.
func TestRealizedAddsUp(t *testing.T) {
	third := gpucost.USD(335_000_000)
	rep := fleet.RealizedReport{Measured: 3, Predicted: gpucost.USD(1_005_000_000), Realized: gpucost.USD(1_005_000_000)}
	for i := range 3 {
		rep.Steps = append(rep.Steps, fleet.RealizedStep{AppliedStep: gpucost.AppliedStep{ID: "step-" + string(rune('a'+i)),
			At: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), Predicted: third}, Status: fleet.RealizedMeasured, Realized: third, Low: third, High: third})
	}
	h := &htmlPage{assets: mustAssets()}
	writeRealized(h, rep)
	page := h.String()
	if !strings.Contains(page, ": $1.01/month realized against $1.01 predicted") {
		t.Errorf("realized section has no $1.01 totals:\n%s", page)
	}
	if n := strings.Count(page, `<td class="num">$0.33</td><td class="num">$0.33</td>`); n != 1 {
		t.Errorf("realized section has %d rows of $0.33 predicted and realized, want 1 (0.34 + 0.34 + 0.33 = 1.01):\n%s", n, page)
	}
}
