package enforce

import (
	"fmt"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/notify"
)

// Summary is the action's evidence in a few words, as gpucost enforce and its log print it:
// "research-monthly 2026-11 actual 104.2% ≥ 100%; matched team=research; sets gpucost-policy=over".
func (a Action) Summary() string {
	ev := a.Evidence
	var parts []string
	switch {
	case ev.Budget != "":
		pct := ev.Percent
		if ev.Measure == budget.KindForecast {
			pct = ev.ForecastPercent
		}
		parts = append(parts, fmt.Sprintf("%s %s %s %.1f%% ≥ %g%%", ev.Budget, ev.Period, ev.Measure, pct, ev.Over))
	case ev.SpotCap != nil:
		parts = append(parts, fmt.Sprintf("spot %d > cap %d, newest #%d", ev.SpotCount, *ev.SpotCap, ev.Rank))
	case describeUsage(ev) != "":
		parts = append(parts, describeUsage(ev))
	}
	if len(ev.ScopeTags) > 0 {
		parts = append(parts, "matched "+pairs(ev.ScopeTags))
	}
	if len(a.Tags) > 0 {
		parts = append(parts, "sets "+pairs(a.Tags))
	}
	return strings.Join(parts, "; ")
}

// pairs writes tags as k=v,k=v in key order.
func pairs(tags map[string]string) string {
	var kv []string
	for _, k := range sortedKeys(tags) {
		kv = append(kv, k+"="+tags[k])
	}
	return strings.Join(kv, ",")
}

// CheckTargets fails when a policy notifies a target that targets (read from file) lacks, or,
// when apply is set and no targets were given (targets nil), when a policy that is not a dry run
// notifies: its alerts could not go out.
func CheckTargets(policies []Policy, targets map[string]notify.Target, file string, apply bool) error {
	var missing []string
	for _, p := range policies {
		if targets == nil && apply && !p.DryRun && len(p.Notify) > 0 {
			return gpucost.Errorf(gpucost.EInvalid, "--targets is required: policy %s (%s:%d) notifies %s", p.Name, p.File, p.Line, strings.Join(p.Notify, ", "))
		}
		for _, n := range p.Notify {
			if _, ok := targets[n]; !ok && targets != nil {
				missing = append(missing, fmt.Sprintf("%s:%d: policy %s notifies target %q", p.File, p.Line, p.Name, n))
			}
		}
	}
	if len(missing) > 0 {
		return gpucost.Errorf(gpucost.EInvalid, "%s, which is not in %s; define it there or fix the name", strings.Join(missing, "; "), file)
	}
	return nil
}

// Repeats remembers the dry-run actions of the last plan it saw, so that a server whose dry run
// plans the same action check after check logs it once, not at every check.
type Repeats struct {
	planned map[string]bool
}

// Drop returns actions without the dry-run ones the last call saw, and remembers this call's.
func (r *Repeats) Drop(actions []Action) []Action {
	planned := map[string]bool{}
	out := actions[:0:0]
	for _, a := range actions {
		if a.DryRun {
			k := a.key()
			planned[k] = true
			if r.planned[k] {
				continue
			}
		}
		out = append(out, a)
	}
	r.planned = planned
	return out
}

// key names what an action does to what, in which budget period.
func (a Action) key() string {
	id := strings.Join(a.Targets, ",")
	if a.Resource != nil {
		id = a.Resource.Kind + "/" + a.Resource.ID
	}
	return strings.Join([]string{a.Policy, a.Action, id, a.Evidence.Period}, "|")
}

// Redact replaces every one of the runner's Secrets in s, for messages that quote a lower
// layer's error outside Run.
func (r *Runner) Redact(s string) string { return r.redact(s) }
