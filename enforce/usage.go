package enforce

import (
	"fmt"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// evaluateUsage decides an idle or off-hours policy resource by resource: each running
// resource in scope that is not exempt (its unless_tags, KeepTag), not younger than min_age and
// not mid-batch is stopped or scaled to zero when all its GPUs are idle, or when the schedule is
// in an off window. Outside the off windows an off-hours policy reverses what it did.
//
// A resource an earlier policy of the plan halts is skipped (halted records them).
func evaluateUsage(pol Policy, s Snapshot, lines []*gpucost.CostLine, m *budget.Matcher, apply bool, halted map[string]string) (PolicyResult, []Action) {
	res := PolicyResult{Policy: pol.Name, Trigger: pol.Trigger(), DryRun: pol.DryRun || !apply, Exempt: []string{}}
	var until time.Time
	if pol.Schedule != nil {
		var off bool
		if off, until = pol.Schedule.At(s.Now); !off {
			return restores(pol, s, res)
		}
	}
	var acts []Action
	var ids []string
	states := map[string]int{}
	for i := range s.Resources {
		r := &s.Resources[i]
		if !r.Running || !m.Matches(pol.Scope, lines[i]) {
			continue
		}
		res.InScope++
		if by, ok := halted[r.Kind+"/"+r.ID]; ok {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s %s: policy %s stops it already", r.Kind, r.ID, by))
			continue
		}
		if why := spare(pol, r, s); why != "" {
			if why == "exempt" {
				res.Exempt = append(res.Exempt, r.ID)
			} else {
				res.Skipped = append(res.Skipped, fmt.Sprintf("%s %s: %s", r.Kind, r.ID, why))
			}
			continue
		}
		ev := Evidence{Rule: pol.Trigger(), ScopeTags: scopeTags(pol.Scope, r), InstanceType: r.InstanceType, State: r.State, Hourly: r.Hourly}
		if r.Hourly != nil {
			ev.Currency = r.Hourly.Currency
		}
		if !r.Launched.IsZero() {
			t := r.Launched
			ev.Launched = &t
		}
		if pol.Idle != nil {
			v := JudgeIdle(*pol.Idle, JoinGPUs(r, s.Activity), s.Now)
			states[v.State]++
			if v.State != StateIdle {
				continue
			}
			ev.Idle, ev.Reason = &v, fmt.Sprintf("%s is idle: %s", r.ID, v.Why)
		} else {
			t := until
			ev.Schedule, ev.OffUntil = pol.Schedule.String(), &t
			ev.Reason = fmt.Sprintf("%s is in the off-hours (%s) until %s", r.ID, pol.Schedule.String(), until.Format("Mon 2006-01-02 15:04 MST"))
		}
		n := len(acts)
		acts = append(acts, haltActions(pol, r, ev, res.DryRun || r.Rehearsal)...)
		if len(acts) == n {
			res.Skipped = append(res.Skipped, fmt.Sprintf("%s %s: the policy's actions do not halt a %s (stop halts VMs; scale-to-zero endpoints with inference components, Deployments and StatefulSets)", r.Kind, r.ID, r.Kind))
			continue
		}
		ids = append(ids, r.ID)
		halted[r.Kind+"/"+r.ID] = pol.Name
	}
	res.Triggered = len(ids) > 0
	res.Reason = usageReason(pol, len(ids), res.InScope, states, until)
	if res.Triggered && pol.Has(ActNotify) {
		ev := Evidence{Rule: pol.Trigger(), Reason: res.Reason, Resources: ids}
		acts = append([]Action{{Policy: pol.Name, Action: ActNotify, Targets: pol.Notify, DryRun: res.DryRun, Evidence: ev}}, acts...)
	}
	res.Actions = len(acts)
	return res, acts
}

// spare says why an idle or off-hours policy leaves a resource alone: "exempt" for its
// unless_tags or KeepTag, else its age or the batch running on it; "" when it does not.
func spare(pol Policy, r *Resource, s Snapshot) string {
	switch {
	case keep(r.Tags) || pol.exempt(r.Tags) != nil:
		return "exempt"
	case pol.MinAge > 0 && r.Launched.IsZero():
		return fmt.Sprintf("its launch time is unknown, so it may be younger than min_age %s", shortDuration(pol.MinAge))
	case pol.MinAge > 0 && s.Now.Sub(r.Launched) < pol.MinAge:
		return fmt.Sprintf("launched %s ago, under min_age %s", shortDuration(s.Now.Sub(r.Launched).Truncate(time.Minute)), shortDuration(pol.MinAge))
	}
	hosts := append([]string{r.ID, r.Name}, r.Hosts...)
	for _, g := range JoinGPUs(r, s.Activity) {
		hosts = append(hosts, g.Host)
	}
	for _, h := range hosts {
		if why := s.Busy[h]; h != "" && why != "" {
			return "mid-batch on " + h + ": " + why
		}
	}
	return ""
}

// haltActions are the tag, stop and scale-to-zero actions of pol that apply to r.
func haltActions(pol Policy, r *Resource, ev Evidence, dryRun bool) []Action {
	var out []Action
	halted := false
	for _, a := range pol.Actions {
		if a == ActNotify || !canDo(a, r.Kind) || a == ActTag && hasAll(r.Tags, pol.tagsToSet()) {
			continue
		}
		if a == ActScaleToZero && r.Kind == KindSageMaker && len(r.Components) == 0 {
			continue
		}
		ref := r.ref()
		act := Action{Policy: pol.Name, Action: a, Resource: &ref, DryRun: dryRun, Evidence: ev, GPUs: r.GPUs}
		switch a {
		case ActTag:
			act.Tags = pol.tagsToSet()
		case ActScaleToZero:
			r.recordScale(&act)
			act.Size, halted = r.Count, true
		case ActStop:
			act.Size, halted = 1, true
		}
		out = append(out, act)
	}
	if !halted {
		return nil
	}
	return out
}

// restores are an off-hours policy's actions outside its windows: start each VM it stopped
// and scale back each workload it scaled to zero, to the recorded size.
func restores(pol Policy, s Snapshot, res PolicyResult) (PolicyResult, []Action) {
	var acts []Action
	for _, e := range s.InForce {
		if e.Action.Policy != pol.Name {
			continue
		}
		a, err := Reverse(e)
		if err != nil {
			res.Skipped = append(res.Skipped, err.Error())
			continue
		}
		a.DryRun = res.DryRun
		a.Evidence = Evidence{Rule: pol.Trigger(), Schedule: pol.Schedule.String(), Hourly: e.Action.Evidence.Hourly, Currency: e.Action.Evidence.Currency,
			Reason: fmt.Sprintf("the off-hours (%s) are over at %s: %s", pol.Schedule.String(), s.Now.In(pol.Schedule.zone()).Format("Mon 15:04 MST"), a.what())}
		acts = append(acts, a)
	}
	res.Triggered, res.Actions = len(acts) > 0, len(acts)
	res.Reason = fmt.Sprintf("outside the off-hours: %d resources it stopped or scaled down start again", len(acts))
	return res, acts
}

// usageReason is an idle or off-hours policy's result in a sentence.
func usageReason(pol Policy, acted, inScope int, states map[string]int, until time.Time) string {
	if pol.Idle != nil {
		return fmt.Sprintf("%d of %d running resources in scope idle (%s); %d busy, %d without data",
			acted, inScope, pol.Idle.String(), states[StateBusy], states[StateNoData])
	}
	return fmt.Sprintf("in the off-hours until %s: %d of %d running resources in scope stop or scale to zero",
		until.Format("Mon 2006-01-02 15:04 MST"), acted, inScope)
}

// Reverse returns the action that undoes a logged stop (start) or scale-to-zero (scale back to
// the recorded size). It refuses other actions, dry runs and actions that were not done.
func Reverse(e LogEntry) (Action, error) {
	a := e.Action
	if a.Resource == nil || a.DryRun || a.Result != ResultDone {
		return Action{}, gpucost.Errorf(gpucost.EInvalid, "action %d (%s of policy %s) changed nothing (%s%s): there is nothing to undo",
			e.ID, a.Action, a.Policy, a.Result, map[bool]string{true: ", dry run"}[a.DryRun])
	}
	out := Action{Policy: a.Policy, Resource: a.Resource, Size: a.Size, GPUs: a.GPUs, Components: a.Components,
		Copies: a.Copies, Variants: a.Variants, Undoes: e.ID, Evidence: a.Evidence}
	switch a.Action {
	case ActStop:
		out.Action = ActStart
	case ActScaleToZero:
		if a.Resource.Kind == KindSageMaker {
			if err := a.restorable(); err != nil {
				return Action{}, gpucost.Errorf(gpucost.EInvalid, "action %d %v", e.ID, err)
			}
		} else if a.Size <= 0 {
			return Action{}, gpucost.Errorf(gpucost.EInvalid, "action %d scaled %s to zero without recording its size; scale it back by hand", e.ID, a.Resource.ID)
		}
		out.Action = ActScaleBack
	default:
		return Action{}, gpucost.Errorf(gpucost.EInvalid, "action %d is %s, which gpucost cannot undo; only stop and scale-to-zero are undone", e.ID, a.Action)
	}
	return out, nil
}

// what says what a reverse action does: "start ec2-instance i-0abc", "scale k8s-statefulset
// ns/nb back to 1".
func (a Action) what() string {
	if a.Action == ActScaleBack && len(a.Copies) > 0 {
		return fmt.Sprintf("scale %s %s back to %s", a.Resource.Kind, a.Resource.ID, a.recordedCounts())
	}
	if a.Action == ActScaleBack {
		return fmt.Sprintf("scale %s %s back to %d", a.Resource.Kind, a.Resource.ID, a.Size)
	}
	return fmt.Sprintf("%s %s %s", a.Action, a.Resource.Kind, a.Resource.ID)
}

// InForce returns the stops and scale-downs of entries (oldest first) that were carried out
// and not reversed since: no later start or scale-back of the same resource was done.
func InForce(entries []LogEntry) []LogEntry {
	open := map[string]int{} // resource key → index in out
	var out []LogEntry
	for _, e := range entries {
		a := e.Action
		if a.Resource == nil || a.DryRun || a.Result != ResultDone {
			continue
		}
		k := a.Resource.Kind + "/" + a.Resource.ID
		switch a.Action {
		case ActStop, ActScaleToZero:
			if i, ok := open[k]; ok {
				out[i].ID = -1 // an older halt of the same resource: superseded
			}
			open[k] = len(out)
			out = append(out, e)
		case ActStart, ActScaleBack:
			if i, ok := open[k]; ok {
				out[i].ID = -1
				delete(open, k)
			}
		}
	}
	kept := out[:0]
	for _, e := range out {
		if e.ID != -1 {
			kept = append(kept, e)
		}
	}
	return kept
}

// Avoided are the GPU-hours a logged stop or scale-down kept from running and their cost.
type Avoided struct {
	Entry    LogEntry      `json:"entry"`
	Until    time.Time     `json:"until"` // its reversal, or now while it is in force
	InForce  bool          `json:"in_force"`
	Hours    float64       `json:"hours"`
	GPUHours float64       `json:"gpu_hours"`
	Cost     gpucost.Money `json:"cost"` // Hours × the resource's hourly cost; zero when unpriced
	Priced   bool          `json:"priced"`
}

// AvoidedHours counts, for each stop and scale-to-zero carried out in entries (oldest first),
// the time from the action to the start or scale-back that reversed it, or to now: that time ×
// the resource's GPUs in GPU-hours, and × its hourly cost. AvoidedHours is pure.
func AvoidedHours(entries []LogEntry, now time.Time) []Avoided {
	var out []Avoided
	open := map[string]int{}
	for _, e := range entries {
		a := e.Action
		if a.Resource == nil || a.DryRun || a.Result != ResultDone {
			continue
		}
		k := a.Resource.Kind + "/" + a.Resource.ID
		switch a.Action {
		case ActStop, ActScaleToZero:
			if i, ok := open[k]; ok {
				out[i].close(e.At)
			}
			open[k] = len(out)
			out = append(out, Avoided{Entry: e, InForce: true})
		case ActStart, ActScaleBack:
			if i, ok := open[k]; ok {
				out[i].close(e.At)
				delete(open, k)
			}
		}
	}
	for _, i := range open {
		out[i].close(now)
		out[i].InForce = true
	}
	return out
}

// close ends an avoided stretch at t and counts it.
func (v *Avoided) close(t time.Time) {
	v.Until, v.InForce = t, false
	v.Hours = max(0, t.Sub(v.Entry.At).Hours())
	v.GPUHours = v.Hours * float64(v.Entry.Action.GPUs)
	if h := v.Entry.Action.Evidence.Hourly; h != nil {
		v.Cost, v.Priced = h.MulFloat(v.Hours), true
	}
}

// describeUsage is the idle or schedule part of an action's Summary.
func describeUsage(ev Evidence) string {
	switch {
	case ev.Idle != nil:
		return fmt.Sprintf("idle %s: %d GPUs mean %.1f%% max %.1f%%", shortDuration(ev.Idle.Window.D()), ev.Idle.GPUs, ev.Idle.MeanUtil, ev.Idle.MaxUtil)
	case ev.OffUntil != nil:
		return "off-hours until " + ev.OffUntil.Format("Mon 15:04 MST")
	case ev.Schedule != "":
		return strings.TrimSpace("schedule " + ev.Schedule)
	}
	return ""
}
