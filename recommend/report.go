package recommend

import "github.com/gpucost/gpucost"

// LeverSavings is one lever's part of the savings report.
type LeverSavings struct {
	Lever           string                   `json:"lever"`
	MonthlySaving   gpucost.Money            `json:"monthly_saving"`
	Recommendations []gpucost.Recommendation `json:"recommendations"`
}

// SavingsReport is the fleet's monthly cost before and after the plan, by lever, in the order
// the levers are applied. Before − After is the sum of the levers' savings.
type SavingsReport struct {
	Before        gpucost.Money  `json:"before"`
	After         gpucost.Money  `json:"after"`
	Saving        gpucost.Money  `json:"saving"`
	SavingPercent float64        `json:"saving_percent"`
	OneTimeCost   gpucost.Money  `json:"one_time_cost"` // paid once to make the changes (data egress of moves)
	Levers        []LeverSavings `json:"levers"`
}

// Levers lists the savings report's levers in the order Plan applies them.
var Levers = []string{LeverIdle, LeverRightSizing, LeverSharing, LeverAutoscaling, LeverRegion, LeverSpot, LeverCommitments}

// Savings builds the savings report of a plan; every lever appears, with zero where it found
// nothing.
func Savings(p PlanResult) SavingsReport {
	rep := SavingsReport{Before: p.Before, After: p.After, Saving: p.Before.Sub(p.After), OneTimeCost: gpucost.USD(0)}
	if p.Before.Nanos > 0 {
		rep.SavingPercent = 100 * float64(rep.Saving.Nanos) / float64(p.Before.Nanos)
	}
	for _, l := range Levers {
		ls := LeverSavings{Lever: l, MonthlySaving: gpucost.USD(0), Recommendations: []gpucost.Recommendation{}}
		for _, s := range p.Steps {
			if s.Lever == l {
				ls.MonthlySaving = ls.MonthlySaving.Add(s.Recommendation.MonthlySaving)
				ls.Recommendations = append(ls.Recommendations, s.Recommendation)
				rep.OneTimeCost = rep.OneTimeCost.Add(s.Recommendation.OneTimeCost)
			}
		}
		rep.Levers = append(rep.Levers, ls)
	}
	return rep
}
