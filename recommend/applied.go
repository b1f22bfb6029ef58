package recommend

import (
	"time"

	"github.com/gpucost/gpucost"
)

// Applied is the record of plan step id made at at: what the plan predicted for it and the
// workload it changes (its group's provider, region, instance type, namespace and machines as
// v names them), so that its saving can be measured on later bills (docs/architecture.md
// "Realized savings"). how is gpucost.AppliedManual or what the bill showed; actor who
// records it. An id the plan lacks is an ENotFound that says where the ids are listed.
func Applied(p Plan, v FleetView, id string, at time.Time, how, actor, note string) (gpucost.AppliedStep, error) {
	s, ok := p.Step(id)
	if !ok {
		return gpucost.AppliedStep{}, gpucost.Errorf(gpucost.ENotFound,
			"the plan has no step %s: gpucost recommend lists the steps' ids (over --since, --until: the period before the change)", id)
	}
	a := gpucost.AppliedStep{ID: s.ID, Group: s.Group, Lever: s.Lever, Action: s.Recommendation.Action,
		Predicted: s.Recommendation.MonthlySaving, Before: s.Before, After: s.After, Resources: []string{},
		At: at.UTC(), How: how, Actor: actor, Note: note}
	for _, g := range p.Groups {
		if g.ID != s.Group {
			continue
		}
		a.Resources = append(a.Resources, g.Resources...)
		for _, r := range v.Resources {
			if len(g.Resources) > 0 && r.ID == g.Resources[0] {
				a.Provider, a.Region, a.InstanceType, a.Namespace = r.Provider, r.Region, r.InstanceType, r.Namespace
				break
			}
		}
	}
	return a, nil
}
