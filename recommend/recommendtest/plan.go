// Package recommendtest builds recommend plans for the tests of the packages that print them.
package recommendtest

import (
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/recommend"
)

// Group is a group of machines as its monthly cost before and after each of its steps, in
// nano-dollars, and each step's lever.
type Group struct {
	Costs  []int64
	Levers []string
}

// Plan is a plan of groups, added up as recommend.NewPlan adds up its groups: group i is
// "group-i", its step j "group-i/LEVER/j".
func Plan(groups ...Group) recommend.Plan {
	p := recommend.Plan{Before: gpucost.USD(0), After: gpucost.USD(0), Groups: []recommend.PlanGroup{}}
	for i, g := range groups {
		pg := recommend.PlanGroup{ID: fmt.Sprintf("group-%d", i), Name: fmt.Sprintf("group %d", i), Steps: []recommend.PlanStep{},
			Before: gpucost.USD(g.Costs[0]), After: gpucost.USD(g.Costs[len(g.Costs)-1])}
		pg.Saving = pg.Before.Sub(pg.After)
		for j := 1; j < len(g.Costs); j++ {
			s := recommend.PlanStep{ID: fmt.Sprintf("%s/%s/%d", pg.ID, g.Levers[j-1], j), Lever: g.Levers[j-1],
				Before: gpucost.USD(g.Costs[j-1]), After: gpucost.USD(g.Costs[j])}
			s.Recommendation.Action = "step " + s.ID
			s.Recommendation.MonthlySaving = s.Before.Sub(s.After)
			pg.Steps = append(pg.Steps, s)
		}
		p.Groups = append(p.Groups, pg)
		p.Before, p.After = p.Before.Add(pg.Before), p.After.Add(pg.After)
	}
	p.Saving = p.Before.Sub(p.After)
	if p.Before.Nanos != 0 {
		p.SavingPercent = 100 * float64(p.Saving.Nanos) / float64(p.Before.Nanos)
	}
	p.Levers = recommend.LeverShares(p.Steps(), p.Before)
	return p
}

// Uneven is a plan whose figures do not add up when each is rounded on its own: its first
// step's 79967.694 − 47980.619 = 31987.075 prints as 79967.69 − 47980.62 beside 31987.08, its
// steps' savings add up to 76898.86 and its levers' to 76898.85 under a saving of 76898.84, its
// levers' shares to 59.9% of a 60.0% cut, and one group has no change.
func Uneven() recommend.Plan {
	const m = 1_000_000 // a tenth of a cent in nano-dollars
	return Plan(
		Group{[]int64{79967694 * m, 47980619 * m, 30234734 * m, 23386859 * m}, []string{recommend.LeverRightSizing, recommend.LeverAutoscaling, recommend.LeverCommitments}},
		Group{[]int64{40090114 * m, 25296029 * m}, []string{recommend.LeverCommitments}},
		Group{[]int64{1066245 * m}, nil},
		Group{[]int64{7062385 * m, 5696525 * m, 1538465 * m}, []string{recommend.LeverRightSizing, recommend.LeverIdle}},
	)
}
