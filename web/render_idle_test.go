package web

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
)

// TestLongestIdleAddsUp: three idle periods of $0.335 each print $1.01 on the Cost of idle
// time card; the longest periods' Cost column, with the row of the periods not listed, adds up
// to it, where rounding each period on its own printed $0.34 three times.
func TestLongestIdleAddsUp(t *testing.T) {
	start := time.Date(2026, 11, 19, 19, 0, 0, 0, time.UTC)
	third := gpucost.USD(335_000_000)
	idle := analyze.IdleReport{MinIdle: gpucost.Duration(30 * time.Minute), Currency: "USD", Cost: gpucost.USD(1_005_000_000), GPUHours: 3}
	for i := range 3 {
		s := &gpucost.Series{GPU: gpucost.GPU{UUID: "GPU-" + string(rune('a'+i)), Host: "host-a"}}
		idle.Periods = append(idle.Periods, analyze.IdlePeriod{Series: s, Start: start, End: start.Add(time.Hour),
			Duration: gpucost.Duration(time.Hour), GPUHours: 1, Cost: third, Priced: true})
	}
	for _, shown := range []int{3, 2, 1} {
		d := idlePage{Idle: idle, Longest: idle.Periods[:shown]}
		h := &htmlPage{assets: mustAssets()}
		writeIdleCards(h, d)
		writeLongestIdle(h, d)
		if h.err != nil {
			t.Fatal(h.err)
		}
		page := h.String()
		if !strings.Contains(page, `<h2>Cost of idle time</h2><p class="big">$1.01</p>`) {
			t.Fatalf("idle page with %d of 3 periods: no $1.01 card:\n%s", shown, page)
		}
		cells := regexp.MustCompile(`<td class="num">\$([0-9.]+)</td></tr>`).FindAllStringSubmatch(page, -1)
		sum := gpucost.USD(0)
		var printed []string
		for _, c := range cells {
			m, err := gpucost.ParseMoney(c[1], "USD")
			if err != nil {
				t.Fatal(err)
			}
			sum, printed = sum.Add(m), append(printed, c[1])
		}
		wantRows := min(shown+1, 3)
		if len(cells) != wantRows || sum.Fixed(2) != "1.01" {
			t.Errorf("idle page with %d of 3 periods: Cost column %v adds up to %s, want %d rows adding up to 1.01", shown, printed, sum.Fixed(2), wantRows)
		}
	}
}
