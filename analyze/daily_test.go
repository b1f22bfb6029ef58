package analyze

import (
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func TestUtilizationDailyTrend(t *testing.T) {
	a := series("GPU-a", "h1", "NVIDIA L4", gpucost.Labels{"namespace": "x"})
	b := series("GPU-b", "h2", "NVIDIA L4", gpucost.Labels{"namespace": "x"})
	by, _ := ParseGroupBy("namespace")
	u := NewUtilization(Options{By: by})
	// Day 1: GPU a at 20% for an hour. Day 2: a at 60% and b at 0% for an hour each.
	for _, r := range []*gpucost.Rollup{
		hour(a, t0, repeat(20, 60)...),
		hour(a, t0.Add(24*time.Hour), repeat(60, 60)...),
		hour(b, t0.Add(25*time.Hour), repeat(0, 60)...),
	} {
		u.Add(r)
	}
	rep := u.Result()
	for _, g := range []GroupStats{rep.Groups[0], rep.Fleet} {
		if len(g.Daily) != 2 {
			t.Fatalf("%s: Daily = %v, want two days", g.Key, g.Daily)
		}
		if !g.Daily[0].Day.Equal(t0) || g.Daily[0].UtilMean != 20 || g.Daily[1].UtilMean != 30 {
			t.Errorf("%s: Daily = %v, want 20%% on %s and 30%% the day after", g.Key, g.Daily, t0.Format(time.DateOnly))
		}
	}
}

func TestDayOf(t *testing.T) {
	for _, c := range []struct{ t, want int64 }{{0, 0}, {86399, 0}, {86400, 1}, {-1, -1}, {-86400, -1}, {-86401, -2}} {
		if got := dayOf(c.t); got != c.want {
			t.Errorf("dayOf(%d) = %d, want %d", c.t, got, c.want)
		}
	}
}
