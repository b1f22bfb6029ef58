package web

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/gpucost/gpucost/analyze"
)

// idlePeriodsShown is how many of the longest idle periods the page lists.
const idlePeriodsShown = 15

// idleRowsShown is how many groups and daily habits the page lists: those with the most idle
// cost and hours; the GPUs page pages through all of them.
const idleRowsShown = 15

// idlePage is idle capacity and what it cost: per group, the longest idle stretches, the
// habits (idle every night) and when in the week GPUs sit idle.
type idlePage struct {
	Idle                 analyze.IdleReport
	Groups               analyze.Report
	Cents                groupCents // of every group, before the largest are kept
	Longest              []analyze.IdlePeriod
	Habits               []idleHabit
	Week                 heatmapChart
	Wasted               int // groups whose mean utilisation makes them over-provisioned
	AllGroups, AllHabits int // before keeping the idleRowsShown largest
	HasIdle              bool
	HasGroup             bool
}

// idleHabit is a GPU idle at the same hours every day.
type idleHabit struct {
	GPU, Host, Model string
	From, To         int // hours of the day, in the zone the idle report counted in
	IdleHours        float64
}

func loadIdle(s *site, r *http.Request, q query) (any, error) {
	ctx := r.Context()
	idle, err := s.d.Views.Idle(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	rep, err := s.d.Views.GPUs(ctx, q.Query)
	if err != nil {
		return nil, err
	}
	p := idlePage{Idle: idle, Groups: rep, HasIdle: len(idle.Periods) > 0, HasGroup: len(rep.Groups) > 0}
	p.Longest = slices.Clone(idle.Periods)
	slices.SortStableFunc(p.Longest, func(a, b analyze.IdlePeriod) int { return cmp.Compare(b.Duration, a.Duration) })
	p.Longest = p.Longest[:min(len(p.Longest), idlePeriodsShown)]
	for _, g := range rep.Groups {
		if g.Verdict == analyze.Overprovisioned {
			p.Wasted++
		}
	}
	p.Habits, p.Week = habits(idle.Patterns)
	p.AllGroups, p.AllHabits = len(rep.Groups), len(p.Habits)
	p.Cents = centsOf(rep)
	p.Groups.Groups = largestIdle(rep.Groups, idleRowsShown)
	p.Habits = p.Habits[:min(len(p.Habits), idleRowsShown)]
	return p, nil
}

// habitShare is the share of covered minutes that must be idle, hour by hour, for a daily
// window to count as a habit.
const habitShare = 0.8

// habits finds each GPU's daily idle window and sums the week's idle share over all GPUs.
func habits(patterns []analyze.IdlePattern) ([]idleHabit, heatmapChart) {
	var hs []idleHabit
	var idle, covered [7][24]uint64
	for i := range patterns {
		p := &patterns[i]
		for d := range 7 {
			for h := range 24 {
				idle[d][h] += uint64(p.Idle[d][h])
				covered[d][h] += uint64(p.Covered[d][h])
			}
		}
		if from, to, ok := p.DailyWindow(habitShare); ok && p.Series != nil {
			hs = append(hs, idleHabit{GPU: p.Series.GPU.UUID, Host: p.Series.GPU.Host, Model: p.Series.GPU.Model,
				From: from, To: to, IdleHours: float64(p.IdleMinutes()) / 60})
		}
	}
	slices.SortStableFunc(hs, func(a, b idleHabit) int { return cmp.Compare(b.IdleHours, a.IdleHours) })
	c := heatmapChart{Min: 0, Max: 100, Unit: "%", Cells: cells{}}
	for h := range 24 {
		c.X = append(c.X, fmt.Sprintf("%02d:00", h))
	}
	for i := range 7 {
		wd := time.Weekday((i + 1) % 7) // Monday first
		c.Y = append(c.Y, wd.String()[:3])
		for h := range 24 {
			if covered[wd][h] == 0 {
				continue
			}
			share := float64(idle[wd][h]) / float64(covered[wd][h]) * 100
			c.Cells = append(c.Cells, [3]float64{float64(h), float64(i), math.Round(share*10) / 10})
		}
	}
	return hs, c
}

// largestIdle keeps the n groups with the most idle cost, in their order in groups.
func largestIdle(groups []analyze.GroupStats, n int) []analyze.GroupStats {
	if len(groups) <= n {
		return groups
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(groups[b].IdleCost.Nanos, groups[a].IdleCost.Nanos) })
	order = order[:n]
	slices.Sort(order)
	out := make([]analyze.GroupStats, n)
	for i, at := range order {
		out[i] = groups[at]
	}
	return out
}
