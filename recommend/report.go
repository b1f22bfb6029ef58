package recommend

import "github.com/gpucost/gpucost"

// LeverSavings is one lever's part of the savings report.
type LeverSavings struct {
	Lever           string                   `json:"lever"`
	MonthlySaving   gpucost.Money            `json:"monthly_saving"`
	Percent         float64                  `json:"percent"` // of the monthly cost before
	Recommendations []gpucost.Recommendation `json:"recommendations"`
}

// SavingsReport is a plan's monthly cost before and after, by lever, in the order the levers
// are applied. Before − After is the sum of the levers' savings, and the plan's total.
type SavingsReport struct {
	Before        gpucost.Money  `json:"before"`
	After         gpucost.Money  `json:"after"`
	Saving        gpucost.Money  `json:"saving"`
	SavingPercent float64        `json:"saving_pct"`
	OneTimeCost   gpucost.Money  `json:"one_time_cost"` // paid once to make the changes (data egress of moves)
	Levers        []LeverSavings `json:"levers"`
	// Cents is what a table of the report prints (Plan.Cents); the JSON carries the exact amounts.
	Cents Cents `json:"-"`
}

// Savings is the plan's steps by lever; every lever appears, with zero where it found nothing.
func Savings(p Plan) SavingsReport {
	rep := SavingsReport{Before: p.Before, After: p.After, Saving: p.Saving, SavingPercent: p.SavingPercent, OneTimeCost: p.OneTimeCost,
		Cents: p.Cents()}
	for _, l := range p.Levers {
		ls := LeverSavings{Lever: l.Lever, MonthlySaving: l.MonthlySaving, Percent: l.Percent, Recommendations: []gpucost.Recommendation{}}
		for _, s := range p.Steps() {
			if s.Lever == l.Lever {
				ls.Recommendations = append(ls.Recommendations, s.Recommendation)
			}
		}
		rep.Levers = append(rep.Levers, ls)
	}
	return rep
}
