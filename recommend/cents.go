package recommend

import (
	"math"

	"github.com/gpucost/gpucost"
)

// Cents is a plan's figures as gpucost recommend, report savings and the Recommendations page
// print them: rounded to the cent so that what is printed adds up (Plan.Cents). The JSON and
// the API carry the plan's exact amounts.
type Cents struct {
	// Before, After and Saving are the headline's: Before is the plan's before rounded, Saving
	// its saving rounded, and After is Before − Saving.
	Before, After, Saving gpucost.Money
	// SavingPercent is the cut in percent to one decimal, the sum of the levers' shares.
	SavingPercent float64
	Groups        []GroupCents // in the order of Plan.Groups
	Levers        []LeverCents // in the order of Plan.Levers
	// Unlisted groups have no step and no option left out, so the tables do not list them;
	// UnlistedCost is their monthly cost, before and after, which a table prints as one row so
	// that its groups add up to the headline.
	Unlisted     int
	UnlistedCost gpucost.Money
}

// GroupCents is a group's monthly cost before and after its steps, and each step's, in cents.
type GroupCents struct {
	Before, After, Saving gpucost.Money
	Steps                 []StepCents // in the order of PlanGroup.Steps
}

// StepCents is a step's group cost before and after it, and its saving: Before − After.
type StepCents struct {
	Before, After, Saving gpucost.Money
}

// LeverCents is a lever's saving, the sum of its steps' cents, and its share of the cost
// before in percent to one decimal.
type LeverCents struct {
	Saving  gpucost.Money
	Percent float64
	// Steps are the savings of the lever's steps in the order Plan.Steps gives them.
	Steps []gpucost.Money
}

// Listed is true when a plan's tables list the group: it has a step or an option left out.
func (g PlanGroup) Listed() bool { return len(g.Steps) > 0 || len(g.NotChosen) > 0 }

// Cents rounds the plan's figures to the cent so that every printed figure adds up
// (docs/architecture.md "Rounding"): each step's Before − After is its saving, a step's After
// is the next step's Before, the groups' (with the unlisted ones as one row) add up to the
// headline's Before, After and Saving, each lever's saving is the sum of its steps', and the
// levers' savings and shares add up to the headline's. The groups are rounded as a table of
// totals split into a saving and a cost after (gpucost.ApportionSplit): each group's saving
// and cost after is its exact value rounded down or up, and its cost before their sum. A
// group's steps share its printed saving as their costs fall (stepCents): each step's saving
// is its exact value rounded down or up. A plan's groups add up to its Before and Saving, as
// NewPlan makes it.
func (p Plan) Cents() Cents {
	var befores, savings []gpucost.Money
	var unlisted gpucost.Money
	c := Cents{Groups: make([]GroupCents, len(p.Groups))}
	for _, g := range p.Groups {
		if !g.Listed() {
			c.Unlisted++
			unlisted = unlisted.Add(g.Before)
			continue
		}
		befores, savings = append(befores, g.Before), append(savings, g.Before.Sub(g.After))
	}
	if c.Unlisted > 0 {
		befores, savings = append(befores, unlisted), append(savings, gpucost.Money{Currency: unlisted.Currency})
	}
	before, saving, after := gpucost.ApportionSplit(befores, savings, 2)
	row := 0
	for i, g := range p.Groups {
		if !g.Listed() {
			continue
		}
		c.Groups[i] = GroupCents{Before: before[row], After: after[row], Saving: saving[row], Steps: stepCents(g, after[row], saving[row])}
		row++
	}
	if c.Unlisted > 0 {
		c.UnlistedCost = before[row]
	}
	c.Before, c.Saving = gpucost.USD(0), gpucost.USD(0)
	if len(before) > 0 {
		c.Before.Currency, c.Saving.Currency = before[0].Currency, before[0].Currency
	}
	for i := range before {
		c.Before, c.Saving = c.Before.Add(before[i]), c.Saving.Add(saving[i])
	}
	c.After = c.Before.Sub(c.Saving)
	c.Levers, c.SavingPercent = leverCents(p, c)
	return c
}

// stepCents rounds a group's steps so that their savings add up to the group's printed saving
// and its printed cost after is the last step's after. A step's cost after is the group's
// printed cost after plus what the steps after it save, that remainder rounded at one offset
// for all of them — the one that rounds the group's whole saving to its printed saving, as near
// half a cent as it can be — so that each step's saving, the difference of two such roundings,
// is its exact saving rounded down or up.
func stepCents(g PlanGroup, after, saving gpucost.Money) []StepCents {
	const unit = 10_000_000 // a cent in nano-units
	exact := g.Before.Sub(g.After).Nanos
	down := floorTo(exact, unit)
	offset := int64(unit / 2)
	switch {
	case saving.Nanos == down && exact != down:
		offset = min(offset, unit-(exact-down)-1)
	case saving.Nanos == down+unit:
		offset = max(offset, unit-(exact-down))
	}
	left := func(i int) gpucost.Money { // the printed saving still to come after step i−1
		switch i {
		case 0:
			return saving
		case len(g.Steps):
			return gpucost.Money{Currency: saving.Currency}
		}
		rem := g.Steps[i].Before.Sub(g.After)
		return gpucost.Money{Nanos: floorTo(rem.Nanos+offset, unit), Currency: saving.Currency}
	}
	out := make([]StepCents, len(g.Steps))
	for i := range g.Steps {
		b, a := left(i), left(i+1)
		out[i] = StepCents{Before: after.Add(b), After: after.Add(a), Saving: b.Sub(a)}
	}
	return out
}

// leverCents adds up each lever's steps' cents, and rounds the levers' shares of the plan's
// Before to one decimal so that they add up to the cut it returns (gpucost.Apportion, with a
// share held in nano-units of a percent).
func leverCents(p Plan, c Cents) ([]LeverCents, float64) {
	var steps []StepCents
	var levers []string
	for i, g := range p.Groups {
		for j, s := range g.Steps {
			steps, levers = append(steps, c.Groups[i].Steps[j]), append(levers, s.Lever)
		}
	}
	out := make([]LeverCents, len(p.Levers))
	shares := make([]gpucost.Money, len(p.Levers))
	for i, l := range p.Levers {
		out[i].Saving = gpucost.Money{Currency: c.Before.Currency}
		for j, s := range steps {
			if levers[j] == l.Lever {
				out[i].Saving = out[i].Saving.Add(s.Saving)
				out[i].Steps = append(out[i].Steps, s.Saving)
			}
		}
		shares[i] = gpucost.Money{Nanos: int64(math.Round(l.Percent * 1e9))}
	}
	var pct gpucost.Money
	for i, s := range gpucost.Apportion(shares, 1) {
		out[i].Percent = float64(s.Nanos) / 1e9
		pct = pct.Add(s)
	}
	return out, float64(pct.Nanos) / 1e9
}

// floorTo rounds n down to a multiple of unit.
func floorTo(n, unit int64) int64 {
	d := n / unit * unit
	if n < 0 && d != n {
		d -= unit
	}
	return d
}
