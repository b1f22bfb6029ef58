package recommend

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
)

// move is where a group of movable machines goes and the hourly prices behind it.
type move struct {
	to       gpucost.Offer
	spot     bool
	from, at gpucost.Money // the hourly price now and after the move
}

// findMoves moves movable work (Resource.Movable, never serving) to the same GPU model and count
// in the provider and region where the catalog prices it lowest (Prices.CheapestAnywhere), under
// the pricing it has now — on-demand, or spot where it already runs on spot — when that is at
// least Options.MoveMargin cheaper than where it runs and the saving repays the data's egress
// within Options.MovePaybackDays. Committed machines stay.
func findMoves(e *engine) []step {
	moves := map[string]move{}
	var steps []step
	for _, g := range groupBy(e.fleet, func(r *Resource) (string, bool) {
		m, ok := e.cheaperPlace(r)
		if !ok {
			return "", false
		}
		k := strings.Join([]string{r.Provider, r.Region, r.InstanceType, string(pricing(r)), r.Namespace,
			m.to.Provider, m.to.Region, m.to.InstanceType}, "|")
		moves[k] = m
		return k, true
	}) {
		if s, ok := e.moveStep(g, moves[g.key]); ok {
			steps = append(steps, s)
		}
	}
	return steps
}

// cheaperPlace returns where r's work runs at least the margin cheaper, if anywhere.
func (e *engine) cheaperPlace(r *Resource) (move, bool) {
	if !r.Movable || r.Kind == KindServing || r.Hourly.Nanos <= 0 {
		return move{}, false
	}
	m := move{from: r.Hourly}
	switch pricing(r) {
	case gpucost.OnDemand:
	case gpucost.Spot:
		o, ok := e.prices.Cheapest(PriceQuery{Model: r.GPUModel, Provider: r.Provider, Region: r.Region,
			InstanceType: r.InstanceType, Spot: true})
		if !ok {
			return move{}, false // today's spot price unknown: nothing to compare
		}
		m.spot, m.from = true, o.SpotPrice
	default:
		return move{}, false
	}
	_, peak := usedGPUs(r, e.opt.UsedVRAMGB)
	q := PriceQuery{Model: r.GPUModel, MinGPUs: r.GPUs, MinMemoryGB: peak * 1.1, Spot: m.spot}
	var o gpucost.Offer
	var ok bool
	if e.opt.OtherProviders {
		o, ok = e.prices.CheapestAnywhere(q)
	} else {
		q.Provider = r.Provider // another region of the same provider: same account, tools and contracts
		o, ok = e.prices.Cheapest(q)
	}
	if !ok || int(o.GPUCount) != r.GPUs || strings.EqualFold(o.Provider, r.Provider) && strings.EqualFold(o.Region, r.Region) {
		return move{}, false
	}
	m.to, m.at = o, price(o, m.spot)
	if float64(m.at.Nanos) > (1-e.opt.MoveMargin)*float64(m.from.Nanos) {
		return move{}, false
	}
	if !m.spot && r.Interruptible {
		// Work that may go to spot is better off on spot where it is than on demand elsewhere.
		home, ok := e.prices.Cheapest(PriceQuery{Model: r.GPUModel, Provider: r.Provider, Region: r.Region,
			InstanceType: r.InstanceType, Spot: true})
		if ok && home.SpotPrice.Nanos <= m.at.Nanos {
			return move{}, false
		}
	}
	return m, true
}

// moveStep is the move of g's machines to m, or false when the saving would not repay the
// egress of their data in time.
func (e *engine) moveStep(g *group, m move) (step, bool) {
	f := float64(m.at.Nanos) / float64(m.from.Nanos)
	saving := gpucost.USD(0)
	for _, r := range g.rs {
		saving = saving.Add(r.Monthly.Sub(scale(r.Monthly, f)))
	}
	r0, o := g.rs[0], m.to
	eg := moveEgress(r0.Provider, o.Provider, e.opt.MoveDataGB)
	if paybackDays(eg.cost, saving) > e.opt.MovePaybackDays {
		return step{}, false
	}
	kind := "on-demand"
	if m.spot {
		kind = "spot"
	}
	rec := gpucost.Recommendation{Kind: gpucost.RecMoveRegion, Resources: g.ids,
		Action: fmt.Sprintf("move %s from %s %s %s to %s %s %s (%g × %s, %s %s/h instead of %s/h)",
			Names(g.ids), r0.Provider, r0.Region, r0.InstanceType, o.Provider, o.Region, o.InstanceType,
			o.GPUCount, r0.GPUModel, kind, m.at, m.from),
		MonthlySaving: saving,
		OneTimeCost:   eg.cost,
		Evidence: append(e.common(g.rs),
			fmt.Sprintf("%s %s/h in %s %s (%s) against %s/h where it runs: %.0f%% less, margin %.0f%%",
				kind, m.at, o.Provider, o.Region, o.Source, m.from, 100*(1-f), 100*e.opt.MoveMargin),
			fmt.Sprintf("%s work (%s/%s), marked movable: no data locality", r0.Kind, r0.Owner, r0.Namespace),
			egressEvidence(eg, e.opt.MoveDataGB, saving)),
		Risk: moveRisk(r0, o),
	}
	e.confidence(&rec, "list prices from the catalog")
	lower(&rec, gpucost.ConfidenceMedium, fmt.Sprintf("the data moved is assumed to be %.0f GB; quotas and capacity there are not checked", e.opt.MoveDataGB))
	return step{rec: rec, target: o.Provider + " " + o.Region + " " + o.InstanceType,
		needs: []string{fmt.Sprintf("a %s quota in %s %s and the work's data copied there (about %.0f GB, %s once)", o.InstanceType, o.Provider, o.Region, e.opt.MoveDataGB, eg.cost.Dollars())},
		apply: func(fl []Resource) {
			for _, r := range byIDs(fl, g.ids) {
				r.Monthly = scale(r.Monthly, f)
				if o.HasOnDemand && o.OnDemand.Nanos > 0 {
					r.Hourly = o.OnDemand
				} else {
					r.Hourly = scale(r.Hourly, f)
				}
				r.Provider, r.Region, r.InstanceType = o.Provider, o.Region, o.InstanceType
			}
		}}, true
}

func moveRisk(r *Resource, o gpucost.Offer) string {
	s := fmt.Sprintf("data egress: the one-time cost assumes the data moved; results that keep flowing back are charged per GB too; "+
		"the %s quota in %s must be raised before the move, and capacity there may be short",
		o.InstanceType, o.Region)
	if !strings.EqualFold(r.Provider, o.Provider) {
		s += fmt.Sprintf("; %s needs its own account, images, credentials and storage", o.Provider)
	}
	return s
}
