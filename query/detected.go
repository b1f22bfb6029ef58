package query

import (
	"context"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/recommend"
)

// DetectedStep is a change the bill shows with the step of the plan before it that the change
// made ("" where none does) and whether that step is recorded applied.
type DetectedStep struct {
	fleet.DetectedChange
	Step     string `json:"step,omitempty"`
	Recorded bool   `json:"recorded"`
}

// PlanOver returns the plan over a period and the fleet it was made on, with the options of its
// caller (gpucost recommend's flags, the server's defaults). It returns an ENotFound error where
// the period's bill holds no GPU machine: that period has no plan.
type PlanOver func(ctx context.Context, p fleet.Period) (recommend.Plan, recommend.FleetView, error)

// DetectedSteps finds the changes p's bill shows (DetectChanges) and names the step of the plan
// over the 30 days before each (PlanBefore, plan) that the change made; a step among applied is
// recorded. It is the one computation behind gpucost recommend applied --detect, GET
// /api/v1/recommendations/detected and the Recommendations page (docs/architecture.md
// "Realized savings").
func DetectedSteps(ctx context.Context, st fleet.Store, cat *catalog.Catalog, p fleet.Period, provider string,
	applied []gpucost.AppliedStep, plan PlanOver) ([]DetectedStep, error) {
	found, err := DetectChanges(ctx, st, cat, p, provider)
	if err != nil {
		return nil, err
	}
	recorded := map[string]bool{}
	for _, a := range applied {
		recorded[a.ID] = true
	}
	type planned struct {
		plan recommend.Plan
		view recommend.FleetView
		ok   bool
	}
	plans := map[fleet.Period]planned{} // changes of one day share the plan before it
	out := []DetectedStep{}
	for _, c := range found {
		bp, err := PlanBefore(ctx, st, c.At)
		if err != nil {
			return nil, err
		}
		pl, seen := plans[bp]
		if !seen {
			pl.plan, pl.view, err = plan(ctx, bp)
			switch {
			case err == nil:
				pl.ok = true
			case gpucost.ErrorCode(err) != gpucost.ENotFound:
				return nil, err
			}
			plans[bp] = pl
		}
		d := DetectedStep{DetectedChange: c}
		if pl.ok {
			if s, ok := c.Step(pl.plan, pl.view); ok {
				d.Step, d.Recorded = s.ID, recorded[s.ID]
			}
		}
		out = append(out, d)
	}
	return out, nil
}
