package analyze

import "github.com/gpucost/gpucost"

// Cents is a group's idle cost and cost as a table of its report prints them (Report.Cents).
type Cents struct {
	IdleCost, Cost gpucost.Money
}

// Cents returns each group's idle cost and cost rounded to the cent, and the fleet's last.
// Where the groups split the fleet — their exact amounts add up to the fleet's, as when each
// GPU is in one group — the groups' cents add up to the fleet's (gpucost.Apportion); where they
// do not, as with groups by label that share GPUs, each is rounded on its own.
func (r Report) Cents() []Cents {
	n := len(r.Groups)
	idle, cost := make([]gpucost.Money, n+1), make([]gpucost.Money, n+1)
	var sumIdle, sumCost int64
	for i, g := range r.Groups {
		idle[i], cost[i] = g.IdleCost, g.Cost
		sumIdle += g.IdleCost.Nanos
		sumCost += g.Cost.Nanos
	}
	split := sumIdle == r.Fleet.IdleCost.Nanos && sumCost == r.Fleet.Cost.Nanos
	if split {
		idle, cost = gpucost.Apportion(idle[:n], 2), gpucost.Apportion(cost[:n], 2)
		idle, cost = append(idle, r.Fleet.IdleCost.Round(2)), append(cost, r.Fleet.Cost.Round(2))
	} else {
		idle[n], cost[n] = r.Fleet.IdleCost, r.Fleet.Cost
		for i := range idle {
			idle[i], cost[i] = idle[i].Round(2), cost[i].Round(2)
		}
	}
	out := make([]Cents, n+1)
	for i := range out {
		out[i] = Cents{IdleCost: idle[i], Cost: cost[i]}
	}
	return out
}
