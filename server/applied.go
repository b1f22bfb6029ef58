package server

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/httpapi"
	"github.com/gpucost/gpucost/query"
	"github.com/gpucost/gpucost/recommend"
)

// AppliedSteps records the plan steps teams made in the store and measures them on its bill,
// for POST /api/v1/recommendations/{id}/apply and GET /api/v1/recommendations/realized.
type AppliedSteps struct {
	Store gpucost.Store
	Now   func() time.Time
}

var _ httpapi.StepApplier = (*AppliedSteps)(nil)

// ApplyStep records step id of the plan over the 30 days before at (query.PlanBefore), as
// gpucost recommend apply does.
func (a *AppliedSteps) ApplyStep(ctx context.Context, id string, at time.Time, actor, note string) (gpucost.AppliedStep, error) {
	return a.apply(ctx, id, at, gpucost.AppliedManual, actor, note)
}

// apply records step id of the plan over the 30 days before at, made how.
func (a *AppliedSteps) apply(ctx context.Context, id string, at time.Time, how, actor, note string) (gpucost.AppliedStep, error) {
	bp, err := query.PlanBefore(ctx, a.Store, at)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	cat, err := catalog.Load(ctx, a.Store)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	plan, v, err := a.planOver(cat)(ctx, bp)
	if err != nil {
		return gpucost.AppliedStep{}, err
	}
	s, err := recommend.Applied(plan, v, id, at, how, actor, note)
	if err != nil {
		return s, err
	}
	s.Recorded = a.Now().UTC()
	return s, a.Store.PutAppliedStep(ctx, s)
}

// planOver returns the plan over a period with gpucost recommend's default options.
func (a *AppliedSteps) planOver(cat *catalog.Catalog) query.PlanOver {
	return func(ctx context.Context, p fleet.Period) (recommend.Plan, recommend.FleetView, error) {
		opts, err := recommend.NewOptions("100", false, 1000)
		if err != nil {
			return recommend.Plan{}, recommend.FleetView{}, err
		}
		b, err := query.OpenBill(ctx, a.Store, cat, fleet.SplitOptions{Period: p, Policy: gpucost.PolicyUsed, Weight: 0.5})
		if err != nil {
			return recommend.Plan{}, recommend.FleetView{}, err
		}
		v, prices, err := b.Recommendable(ctx)
		if err != nil {
			return recommend.Plan{}, recommend.FleetView{}, err
		}
		plan, err := recommend.NewPlan(v, prices, opts)
		return plan, v, err
	}
}

// Realized measures the recorded steps on the bill up to the end of q's period (now by default).
func (a *AppliedSteps) Realized(ctx context.Context, q httpapi.Query) (fleet.RealizedReport, error) {
	end := q.To
	if end.IsZero() {
		end = httpapi.PeriodEnd(a.Now())
	}
	return query.StoredRealized(ctx, a.Store, end, "aws")
}
