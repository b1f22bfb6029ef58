package recommend_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
	"github.com/gpucost/gpucost/recommend/recommendtest"
)

const cent = 10_000_000 // nano-units

func TestPlanCentsDemo(t *testing.T) {
	p := recommendtest.Uneven()
	// Each figure rounded on its own, as the tables printed them.
	stepsOff, groupsBefore, stepSum := 0, gpucost.USD(0), gpucost.USD(0)
	for _, g := range p.Groups {
		if g.Listed() {
			groupsBefore = groupsBefore.Add(g.Before.Round(2))
		}
		for _, s := range g.Steps {
			if s.Before.Round(2).Sub(s.After.Round(2)) != s.Recommendation.MonthlySaving.Round(2) {
				stepsOff++
			}
			stepSum = stepSum.Add(s.Recommendation.MonthlySaving.Round(2))
		}
	}
	if stepsOff == 0 || groupsBefore == p.Before.Round(2) || stepSum == p.Saving.Round(2) {
		t.Fatalf("the case no longer shows the problem: %d steps off, groups before %s, steps %s", stepsOff, groupsBefore.Fixed(2), stepSum.Fixed(2))
	}
	c := p.Cents()
	checkCents(t, p, c)
	if c.Before.Fixed(2) != "128186.44" || c.Saving.Fixed(2) != "76898.84" || c.After.Fixed(2) != "51287.60" || c.SavingPercent != 60 {
		t.Errorf("Cents() headline %s → %s, %s saved, %.1f%%; want 128186.44 → 51287.60, 76898.84 saved, 60.0%%",
			c.Before.Fixed(2), c.After.Fixed(2), c.Saving.Fixed(2), c.SavingPercent)
	}
	if c.Unlisted != 1 || c.UnlistedCost.Fixed(2) != "1066.24" {
		t.Errorf("Cents() unlisted %d groups of %s, want 1 of 1066.24", c.Unlisted, c.UnlistedCost.Fixed(2))
	}
}

// TestPlanCentsAddsUp checks Cents on random plans: every figure a whole number of cents, each
// step's and group's saving its exact value rounded down or up, and everything adding up.
func TestPlanCentsAddsUp(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 3000 {
		var groups []recommendtest.Group
		for range 1 + r.IntN(6) {
			g := recommendtest.Group{Costs: []int64{r.Int64N(100_000_000_000_000)}}
			for range r.IntN(5) {
				g.Costs = append(g.Costs, r.Int64N(g.Costs[len(g.Costs)-1]+1))
				g.Levers = append(g.Levers, recommend.Levers[r.IntN(len(recommend.Levers))])
			}
			groups = append(groups, g)
		}
		p := recommendtest.Plan(groups...)
		if !checkCents(t, p, p.Cents()) {
			t.Fatalf("plan of groups %v", groups)
		}
	}
}

// checkCents reports whether c, p's cents, add up as Plan.Cents promises.
func checkCents(t *testing.T, p recommend.Plan, c recommend.Cents) bool {
	t.Helper()
	ok := true
	fail := func(format string, args ...any) {
		t.Errorf(format, args...)
		ok = false
	}
	near := func(what string, got, exact gpucost.Money, units int64) {
		if got.Nanos%cent != 0 || got.Nanos-exact.Nanos >= units*cent || exact.Nanos-got.Nanos >= units*cent {
			fail("%s %s: not within %d cents of %s", what, got.Decimal(), units, exact.Decimal())
		}
	}
	before, after, saving := c.UnlistedCost, c.UnlistedCost, gpucost.USD(0)
	for i, g := range p.Groups {
		if !g.Listed() {
			continue
		}
		gc := c.Groups[i]
		near("group "+g.ID+" saving", gc.Saving, g.Before.Sub(g.After), 1)
		near("group "+g.ID+" after", gc.After, g.After, 1)
		near("group "+g.ID+" before", gc.Before, g.Before, 2)
		if gc.Before.Sub(gc.After) != gc.Saving {
			fail("group %s: %s − %s != %s", g.ID, gc.Before.Fixed(2), gc.After.Fixed(2), gc.Saving.Fixed(2))
		}
		at := gc.Before
		for j, s := range g.Steps {
			sc := gc.Steps[j]
			near("step "+s.ID+" saving", sc.Saving, s.Recommendation.MonthlySaving, 1)
			near("step "+s.ID+" after", sc.After, s.After, 2)
			if sc.Before != at || sc.Before.Sub(sc.After) != sc.Saving {
				fail("step %s: %s − %s = %s after the step before ended at %s", s.ID, sc.Before.Fixed(2), sc.After.Fixed(2), sc.Saving.Fixed(2), at.Fixed(2))
			}
			at = sc.After
		}
		if at != gc.After {
			fail("group %s ends at %s, its steps at %s", g.ID, gc.After.Fixed(2), at.Fixed(2))
		}
		before, after, saving = before.Add(gc.Before), after.Add(gc.After), saving.Add(gc.Saving)
	}
	if before != c.Before || after != c.After || saving != c.Saving || c.Before.Sub(c.After) != c.Saving {
		fail("groups add up to %s → %s, %s saved; headline %s → %s, %s saved", before.Fixed(2), after.Fixed(2), saving.Fixed(2),
			c.Before.Fixed(2), c.After.Fixed(2), c.Saving.Fixed(2))
	}
	if c.Before != p.Before.Round(2) || c.Saving != p.Saving.Round(2) {
		fail("headline %s, %s saved; want the plan's %s and %s rounded", c.Before.Fixed(2), c.Saving.Fixed(2), p.Before.Decimal(), p.Saving.Decimal())
	}
	levers, tenths := gpucost.USD(0), 0.0
	for i, lc := range c.Levers {
		sum := gpucost.USD(0)
		for _, m := range lc.Steps {
			sum = sum.Add(m)
		}
		if sum != lc.Saving {
			fail("lever %s saves %s, its steps %s", p.Levers[i].Lever, lc.Saving.Fixed(2), sum.Fixed(2))
		}
		levers, tenths = levers.Add(lc.Saving), tenths+math.Round(lc.Percent*10)
	}
	if levers != c.Saving || tenths != math.Round(c.SavingPercent*10) || math.Abs(c.SavingPercent-p.SavingPercent) > 0.051 {
		fail("levers add up to %s and %.1f%%; headline %s saved, %.1f%% (exact %.4f%%)", levers.Fixed(2), tenths/10, c.Saving.Fixed(2), c.SavingPercent, p.SavingPercent)
	}
	return ok
}
