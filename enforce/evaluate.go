package enforce

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// Snapshot is what policies are evaluated against: the budgets with their statuses at Now and
// the inventory of resources.
type Snapshot struct {
	Now       time.Time
	Budgets   []budget.Budget
	Statuses  []budget.Status // one per budget, in the same order
	Resources []Resource
	// Activity is the GPU telemetry idle policies judge, per GPU, covering at least the longest
	// idle window before Now (ReadActivity reads it from the store).
	Activity []GPUActivity
	// InForce are the stops and scale-downs carried out earlier and not yet reversed (InForce
	// finds them in the action log): an off-hours policy reverses its own when its window ends.
	InForce []LogEntry
	// Busy names the hosts where a job or queue worker is mid-batch, with why; idle and
	// off-hours policies leave the resources on them alone.
	Busy map[string]string
}

// Plan is what the policies would do, and did, at one time.
type Plan struct {
	At       time.Time      `json:"at"`
	Apply    bool           `json:"apply"` // the caller asked for the actions to be carried out
	Policies []PolicyResult `json:"policies"`
	Actions  []Action       `json:"actions"`
}

// PolicyResult is how one policy stands: whether it triggered, why, and the resources it
// matched, exempted and acts on.
type PolicyResult struct {
	Policy    string   `json:"policy"`
	Trigger   string   `json:"trigger"` // "research-monthly actual ≥ 100%", "spot instances > 40"
	Triggered bool     `json:"triggered"`
	Reason    string   `json:"reason"` // the figures, in a sentence
	InScope   int      `json:"in_scope"`
	Exempt    []string `json:"exempt"` // ids of resources in scope carrying the unless_tags
	Actions   int      `json:"actions"`
	DryRun    bool     `json:"dry_run"`
	Skipped   []string `json:"skipped,omitempty"` // "stop: sagemaker-endpoint x (stop acts on EC2 instances)"
}

// Action is one thing a policy does to one resource (or, for notify, to its targets).
type Action struct {
	Policy   string            `json:"policy"`
	Action   string            `json:"action"`             // ActNotify, ActTag, ActStop or ActScaleToZero
	Resource *Ref              `json:"resource,omitempty"` // nil for notify
	Targets  []string          `json:"targets,omitempty"`  // notify's
	Tags     map[string]string `json:"tags,omitempty"`     // tag's
	// Components are the SageMaker inference components scale-to-zero sets to zero copies.
	Components []string `json:"inference_components,omitempty"`
	// Copies and Variants are a SageMaker endpoint's inference components' copy counts and
	// production variants' instance counts before scale-to-zero: what its scale-back restores.
	Copies   map[string]int `json:"copy_counts,omitempty"`
	Variants map[string]int `json:"variant_instances,omitempty"`
	// Size is what scale-to-zero found and scale-back restores: replicas, or an endpoint's
	// instances; GPUs are the resource's when it was acted on, for the GPU-hours avoided.
	Size int `json:"size,omitempty"`
	GPUs int `json:"gpus,omitempty"`
	// Undoes is the log id of the action a start or scale-back reverses.
	Undoes   int64    `json:"undoes,omitempty"`
	DryRun   bool     `json:"dry_run"`
	Evidence Evidence `json:"evidence"`
	Result   string   `json:"result,omitempty"` // set by the Runner: planned, done, failed
	Error    string   `json:"error,omitempty"`
}

// Evidence is why an action is taken: the budget's figures or the spot count, and what of the
// resource put it in scope.
type Evidence struct {
	Rule            string            `json:"rule"`   // the policy's trigger
	Reason          string            `json:"reason"` // a sentence with the figures
	Budget          string            `json:"budget,omitempty"`
	Period          string            `json:"period,omitempty"`
	Measure         string            `json:"measure,omitempty"`  // actual or forecast
	Currency        string            `json:"currency,omitempty"` // of Amount, Spent and Forecast
	Amount          *gpucost.Money    `json:"amount,omitempty"`
	Spent           *gpucost.Money    `json:"spent,omitempty"`
	Forecast        *gpucost.Money    `json:"forecast,omitempty"`
	Percent         float64           `json:"percent,omitempty"`
	ForecastPercent float64           `json:"forecast_pct,omitempty"`
	Over            float64           `json:"over,omitempty"`
	SpotCount       int               `json:"spot_count,omitempty"`
	SpotCap         *int              `json:"spot_cap,omitempty"`
	Rank            int               `json:"rank,omitempty"`       // a spot instance's place, newest first, among those acted on
	ScopeTags       map[string]string `json:"scope_tags,omitempty"` // the resource's tags that put it in scope
	Resources       []string          `json:"resources,omitempty"`  // notify's: the resources acted on
	Launched        *time.Time        `json:"launched,omitempty"`
	InstanceType    string            `json:"instance_type,omitempty"`
	State           string            `json:"state,omitempty"`
	// An idle policy's finding, an off-hours policy's schedule and when its window ends.
	Idle     *IdleVerdict   `json:"idle,omitempty"`
	Schedule string         `json:"schedule,omitempty"`
	OffUntil *time.Time     `json:"off_until,omitempty"`
	Hourly   *gpucost.Money `json:"hourly,omitempty"` // the resource's cost an hour, in Currency
}

// Evaluate decides what the policies do given s: for each policy whose trigger holds, one
// action per action kind and running resource in scope that is not exempt and that the action
// applies to (stop to EC2 instances, scale-to-zero to endpoints and Deployments; tag only to
// resources that lack the tags), and one notify action listing them. An action is a dry run unless apply is true and its policy says
// dry_run: false. Evaluate is pure.
func Evaluate(policies []Policy, s Snapshot, apply bool) Plan {
	p := Plan{At: s.Now, Apply: apply, Policies: []PolicyResult{}, Actions: []Action{}}
	lines := make([]*gpucost.CostLine, len(s.Resources))
	gpus := map[*gpucost.CostLine]bool{}
	for i := range s.Resources {
		lines[i] = s.Resources[i].Line()
		gpus[lines[i]] = s.Resources[i].GPUs > 0
	}
	m := matcher(gpus)
	halted := map[string]string{} // resource kind/id → the policy that halts it in this plan
	for _, pol := range policies {
		if pol.PerResource() {
			res, acts := evaluateUsage(pol, s, lines, m, apply, halted)
			p.Policies, p.Actions = append(p.Policies, res), append(p.Actions, acts...)
			continue
		}
		res := PolicyResult{Policy: pol.Name, Trigger: pol.Trigger(), DryRun: pol.DryRun || !apply, Exempt: []string{}}
		scope, ev, ok := trigger(pol, s, &res)
		var targets []*Resource
		var inScope []int
		for i := range s.Resources {
			r := &s.Resources[i]
			if !r.Running || !m.Matches(scope, lines[i]) {
				continue
			}
			inScope = append(inScope, i)
			if pol.IsSpotCap() && (r.Kind != KindEC2 || !r.Spot) {
				continue
			}
			if pol.exempt(r.Tags) != nil {
				res.Exempt = append(res.Exempt, r.ID)
				continue
			}
			targets = append(targets, r)
		}
		res.InScope = len(inScope)
		if pol.IsSpotCap() {
			targets, ok = spotExcess(pol, s.Resources, inScope, targets, &ev, &res)
		}
		res.Triggered = ok
		if ok {
			acts := actionsFor(pol, scope, targets, ev, res.DryRun, &res)
			res.Actions = len(acts)
			p.Actions = append(p.Actions, acts...)
		}
		p.Policies = append(p.Policies, res)
	}
	return p
}

// trigger returns the scope a policy acts on, the evidence of its budget and whether its
// trigger holds; a spot cap's trigger is decided by spotExcess.
func trigger(pol Policy, s Snapshot, res *PolicyResult) (budget.Scope, Evidence, bool) {
	ev := Evidence{Rule: pol.Trigger()}
	if pol.IsSpotCap() {
		return pol.Scope, ev, false
	}
	i := slices.IndexFunc(s.Budgets, func(b budget.Budget) bool { return b.Name == pol.Budget })
	if i < 0 || i >= len(s.Statuses) {
		res.Reason = fmt.Sprintf("budget %s has no status", pol.Budget)
		return pol.Scope, ev, false
	}
	b, st := s.Budgets[i], s.Statuses[i]
	scope := b.Scope
	if pol.HasScope {
		scope = pol.Scope
	}
	amount, spent, forecast := st.Amount, st.Spent, st.Forecast.Projected
	ev.Budget, ev.Period, ev.Amount, ev.Spent, ev.Forecast = b.Name, st.Period, &amount, &spent, &forecast
	ev.Currency = cmp.Or(amount.Currency, "USD")
	ev.Percent, ev.ForecastPercent, ev.Over, ev.Measure = st.Percent, st.ForecastPercent, pol.Over, budget.KindActual
	reached := st.Percent
	if pol.Forecast {
		ev.Measure, reached = budget.KindForecast, st.ForecastPercent
	}
	ok := reached >= pol.Over
	verb := "has not reached"
	if ok {
		verb = "reached"
	}
	if pol.Forecast {
		res.Reason = fmt.Sprintf("budget %s in %s: the forecast %s is %.1f%% of %s and %s %g%%",
			b.Name, st.Period, forecast.Dollars(), reached, amount.Dollars(), verb, pol.Over)
	} else {
		res.Reason = fmt.Sprintf("budget %s in %s: %s spent is %.1f%% of %s and %s %g%%",
			b.Name, st.Period, spent.Dollars(), reached, amount.Dollars(), verb, pol.Over)
	}
	ev.Reason = res.Reason
	return scope, ev, ok
}

// spotExcess picks the spot instances beyond a policy's cap: every running spot instance in
// scope counts, exempt ones included, and the newest non-exempt ones are acted on.
func spotExcess(pol Policy, all []Resource, inScope []int, targets []*Resource, ev *Evidence, res *PolicyResult) ([]*Resource, bool) {
	count := 0
	for _, i := range inScope {
		if all[i].Kind == KindEC2 && all[i].Spot {
			count++
		}
	}
	limit := pol.MaxSpot
	ev.SpotCount, ev.SpotCap = count, &limit
	if count <= pol.MaxSpot {
		res.Reason = fmt.Sprintf("%d running spot instances in scope, within the cap of %d", count, pol.MaxSpot)
		ev.Reason = res.Reason
		return nil, false
	}
	excess := count - pol.MaxSpot
	slices.SortStableFunc(targets, func(a, b *Resource) int {
		return cmp.Or(b.Launched.Compare(a.Launched), cmp.Compare(a.ID, b.ID))
	})
	if len(targets) > excess {
		targets = targets[:excess]
	}
	res.Reason = fmt.Sprintf("%d running spot instances in scope, %d over the cap of %d: the newest %d not exempt are acted on",
		count, excess, pol.MaxSpot, len(targets))
	if len(targets) < excess {
		res.Reason += fmt.Sprintf(" (%d more are exempt)", excess-len(targets))
	}
	ev.Reason = res.Reason
	return targets, true
}

// actionsFor returns a triggered policy's actions on targets, in the policy's order of actions
// and then the targets' order, with notify as one action listing the resources.
func actionsFor(pol Policy, scope budget.Scope, targets []*Resource, ev Evidence, dryRun bool, res *PolicyResult) []Action {
	out := make([]Action, 0, len(pol.Actions)*len(targets)+1)
	ids := make([]string, 0, len(targets))
	for _, r := range targets {
		ids = append(ids, r.ID)
	}
	tags := pol.tagsToSet()
	for _, a := range pol.Actions {
		if a == ActNotify {
			e := ev
			e.Resources = append([]string{}, ids...)
			out = append(out, Action{Policy: pol.Name, Action: a, Targets: pol.Notify, DryRun: dryRun, Evidence: e})
			continue
		}
		for rank, r := range targets {
			if !canDo(a, r.Kind) {
				// Stop and scale-to-zero split the kinds between them: only a policy that lacks
				// the other one leaves this resource running, which is worth saying.
				if other := otherHalt(a); other != "" && !pol.Has(other) {
					res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s %s (%s)", a, r.Kind, r.ID, cannot(a)))
				}
				continue
			}
			if a == ActTag && hasAll(r.Tags, tags) {
				continue // tagged by an earlier run: nothing to change
			}
			if a == ActScaleToZero && r.Kind == KindSageMaker && len(r.Components) == 0 {
				res.Skipped = append(res.Skipped, fmt.Sprintf("%s: %s %s (it hosts no inference components; SageMaker scales only those to zero)", a, r.Kind, r.ID))
				continue
			}
			ref := r.ref()
			e := ev
			e.ScopeTags, e.InstanceType, e.State = scopeTags(scope, r), r.InstanceType, r.State
			if !r.Launched.IsZero() {
				t := r.Launched
				e.Launched = &t
			}
			if pol.IsSpotCap() {
				e.Rank = rank + 1
			}
			act := Action{Policy: pol.Name, Action: a, Resource: &ref, DryRun: dryRun, Evidence: e}
			switch a {
			case ActTag:
				act.Tags = tags
			case ActScaleToZero:
				r.recordScale(&act)
			}
			out = append(out, act)
		}
	}
	return out
}

// hasAll reports whether tags holds every key of want with its value.
func hasAll(tags, want map[string]string) bool {
	for k, v := range want {
		if got, ok := tags[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// otherHalt returns the action that halts the kinds a cannot: stop ↔ scale-to-zero.
func otherHalt(a string) string {
	switch a {
	case ActStop:
		return ActScaleToZero
	case ActScaleToZero:
		return ActStop
	}
	return ""
}

func cannot(a string) string {
	if a == ActStop {
		return "stop acts on VMs (EC2, GCE, Azure); use scale-to-zero for endpoints, Deployments and StatefulSets"
	}
	return "scale-to-zero acts on SageMaker endpoints and Kubernetes Deployments and StatefulSets; use stop for VMs"
}

// scopeTags returns the resource's tags that its scope asked for (tags, and the tags its team,
// project and namespace were read from), the evidence that it is in scope.
func scopeTags(scope budget.Scope, r *Resource) map[string]string {
	out := map[string]string{}
	for k := range scope.Tags {
		if v, ok := r.Tags[k]; ok {
			out[k] = v
		}
	}
	for word, want := range map[string]string{"team": scope.Team, "project": scope.Project, "namespace": scope.Namespace} {
		if want == "" {
			continue
		}
		for k, v := range r.Tags {
			if v == want && strings.Contains(strings.ToLower(k), word) {
				out[k] = v
			}
		}
		if word == "namespace" && r.Namespace == want {
			out["namespace"] = want
		}
	}
	return out
}

// UnmarshalJSON reads Evidence as MarshalJSON writes it, amounts as decimal strings in Currency,
// so that an action log entry reads back whole.
func (e *Evidence) UnmarshalJSON(data []byte) error {
	type plain Evidence
	var v struct {
		plain
		Amount   *string `json:"amount"`
		Spent    *string `json:"spent"`
		Forecast *string `json:"forecast"`
		Hourly   *string `json:"hourly"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*e = Evidence(v.plain)
	cur := cmp.Or(e.Currency, "USD")
	for _, f := range []struct {
		text *string
		dst  **gpucost.Money
	}{{v.Amount, &e.Amount}, {v.Spent, &e.Spent}, {v.Forecast, &e.Forecast}, {v.Hourly, &e.Hourly}} {
		if f.text == nil {
			continue
		}
		m, err := gpucost.ParseMoney(*f.text, cur)
		if err != nil {
			return fmt.Errorf("evidence amount %q: %w", *f.text, err)
		}
		*f.dst = &m
	}
	return nil
}
