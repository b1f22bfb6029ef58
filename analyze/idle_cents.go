package analyze

import "github.com/gpucost/gpucost"

// PeriodCents returns each period's cost rounded to the cent, in the order of r.Periods, so that
// a list of all of them adds up to r.Cost as a headline prints it (its exact value rounded):
// the priced periods are rounded down or up by largest remainder (gpucost.Apportion), and an
// unpriced period's is zero. report idle and the dashboard's Idle page print a period's cost
// from it, so both print the same cents for it, whether they list all the periods or the
// longest few.
func (r IdleReport) PeriodCents() []gpucost.Money {
	var priced []int
	var costs []gpucost.Money
	for i, p := range r.Periods {
		if p.Priced {
			priced = append(priced, i)
			costs = append(costs, p.Cost)
		}
	}
	costs = gpucost.Apportion(costs, 2)
	out := make([]gpucost.Money, len(r.Periods))
	for j, i := range priced {
		out[i] = costs[j]
	}
	return out
}
