package enforce

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// Job is a job or inference endpoint about to launch, for the pre-launch guardrail.
type Job struct {
	Kind      string            // KindEC2 for instances, KindSageMaker for an endpoint
	Line      *gpucost.CostLine // what it will be billed as (budget.Estimate.Line)
	Spot      bool
	Instances int
	// Added is the job's cost in each budget's current period, by budget name; budgets
	// missing from it get nothing added.
	Added map[string]gpucost.Money
}

// Block is a policy that would act against a job once it runs.
type Block struct {
	Policy   string   `json:"policy"`
	Action   string   `json:"action"` // the action that would hit the job: stop or scale-to-zero
	Reason   string   `json:"reason"`
	Evidence Evidence `json:"evidence"`
}

// CheckJob returns the policies that would stop or scale down j: a budget policy whose scope
// covers the job and whose budget, with the job's cost added, reaches its share; or a spot cap
// that the job's spot instances, added to those running in scope, would exceed. A job carrying
// a policy's unless_tags is exempt from it; a policy that only notifies or tags blocks nothing.
// CheckJob is pure.
func CheckJob(policies []Policy, s Snapshot, j Job) []Block {
	act := ActStop
	if j.Kind == KindSageMaker {
		act = ActScaleToZero
	}
	m := matcher(map[*gpucost.CostLine]bool{})
	var out []Block
	for _, pol := range policies {
		if !pol.Has(act) || pol.exempt(j.Line.Tags) != nil {
			continue
		}
		if pol.IsSpotCap() {
			if b, ok := spotBlock(pol, s, j, m); ok {
				out = append(out, b)
			}
			continue
		}
		if b, ok := budgetBlock(pol, s, j, m, act); ok {
			out = append(out, b)
		}
	}
	return out
}

func budgetBlock(pol Policy, s Snapshot, j Job, m *budget.Matcher, act string) (Block, bool) {
	i := slices.IndexFunc(s.Budgets, func(b budget.Budget) bool { return b.Name == pol.Budget })
	if i < 0 || i >= len(s.Statuses) {
		return Block{}, false
	}
	b, st := s.Budgets[i], s.Statuses[i]
	scope := b.Scope
	if pol.HasScope {
		scope = pol.Scope
	}
	if !m.Matches(scope, j.Line) {
		return Block{}, false
	}
	added := j.Added[b.Name]
	base, measure := st.Spent, budget.KindActual
	if pol.Forecast {
		base, measure = st.Forecast.Projected, budget.KindForecast
	}
	after := base.Add(added)
	pct := 0.0
	if st.Amount.Nanos > 0 {
		pct = 100 * float64(after.Nanos) / float64(st.Amount.Nanos)
	}
	if pct < pol.Over {
		return Block{}, false
	}
	amount, spent, forecast := st.Amount, st.Spent, st.Forecast.Projected
	reason := fmt.Sprintf("policy %s would %s it: budget %s in %s, %s %s plus the job's %s is %s, %.1f%% of %s, at or over %g%%",
		pol.Name, act, b.Name, st.Period, measure, base.Dollars(), added.Dollars(), after.Dollars(), pct, amount.Dollars(), pol.Over)
	ev := Evidence{Rule: pol.Trigger(), Reason: reason, Budget: b.Name, Period: st.Period, Measure: measure, Currency: cmp.Or(amount.Currency, "USD"), Amount: &amount,
		Spent: &spent, Forecast: &forecast, Percent: st.Percent, ForecastPercent: st.ForecastPercent, Over: pol.Over}
	return Block{Policy: pol.Name, Action: act, Reason: reason, Evidence: ev}, true
}

func spotBlock(pol Policy, s Snapshot, j Job, m *budget.Matcher) (Block, bool) {
	if !j.Spot || j.Kind != KindEC2 || !m.Matches(pol.Scope, j.Line) {
		return Block{}, false
	}
	running := 0
	for i := range s.Resources {
		r := &s.Resources[i]
		if r.Running && r.Kind == KindEC2 && r.Spot && m.Matches(pol.Scope, r.Line()) {
			running++
		}
	}
	if running+j.Instances <= pol.MaxSpot {
		return Block{}, false
	}
	limit := pol.MaxSpot
	reason := fmt.Sprintf("policy %s would stop it: %d spot instances running in scope plus the job's %d make %d, over the cap of %d",
		pol.Name, running, j.Instances, running+j.Instances, pol.MaxSpot)
	ev := Evidence{Rule: pol.Trigger(), Reason: reason, SpotCount: running, SpotCap: &limit}
	return Block{Policy: pol.Name, Action: ActStop, Reason: reason, Evidence: ev}, true
}
